"""Axial 2-D RoPE on the patch grid: the angle of one frequency's row pair and column pair, and the order in which
Qwen2-VL's vision encoder reads the patches (its m x m merge blocks)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from plotly.subplots import make_subplots

from posenc.drawing.common import as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import CYCLIC_SCALE, SEQUENTIAL_SCALE
from posenc.figures.vision.grid import LABELLED_CELLS, square_cells
from posenc.i18n import N_, _
from posenc_core.device import resolve_device, work_dtype
from posenc_core.rope import vision as vision_rope

ORDER_AND_ANGLES = (0.42, 0.29, 0.29)  # the order panel widest: its cells hold three-digit token numbers
ORDER_TEXT_SIZE = 8  # px: "195" apart from "196" in a 14 x 14 grid on a desktop (Plotly's own size runs them together)
ANGLES_HEIGHT = 450  # px: the plot area holds the order panel's square on a desktop's chart


def merged(p: Mapping[str, Any]) -> bool:
    """Whether the grid is made of whole merge blocks (Qwen2-VL resizes images so that it is)."""
    merge = p["spatial_merge_size"]
    return p["grid_h"] % merge == 0 and p["grid_w"] % merge == 0


@register(
    "vision-rope-angles",
    title=N_("2-D RoPE angles on the patch grid"),
    page="vision",
    params=("grid_h", "grid_w", "vision_head_dim", "vision_base", "frequency", "spatial_merge_size"),
)
def rope_angles(p: Mapping[str, Any]) -> FigureResult:
    rows, columns, head_dim, j = p["grid_h"], p["grid_w"], int(p["vision_head_dim"]), p["frequency"]
    quarter, merge = head_dim // 4, p["spatial_merge_size"]
    if not 0 <= j < quarter:
        raise ValueError(_("frequency must be below head_dim/4 = {quarter} (got {j})").format(quarter=quarter, j=j))
    device = resolve_device(p["device"])
    angles = vision_rope.axial_angles(
        rows, columns, head_dim, base=p["vision_base"], device=device, dtype=work_dtype(device)
    )
    angles = angles.reshape(rows, columns, head_dim // 2).cpu()
    row_angle = torch.remainder(angles[..., j], 2 * math.pi)
    col_angle = torch.remainder(angles[..., quarter + j], 2 * math.pi)
    in_blocks = merged(p)
    order = torch.empty(rows, columns, dtype=torch.int64)
    positions = vision_rope.patch_positions(
        rows, columns, spatial_merge_size=merge if in_blocks else 1, device="cpu"
    )  # (N, 2): the patch read n-th
    order[positions[:, 0], positions[:, 1]] = torch.arange(rows * columns)
    # the reading order first, then the two angle panels next to the colour bar they share
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=(
            _("order"),  # its m x m blocks show in its numbers (and the notes name them)
            _("pair {j}: row").format(j=j),
            _("pair {j}: column").format(j=quarter + j),
        ),
        column_widths=ORDER_AND_ANGLES,
        horizontal_spacing=0.06,
    )
    labelled = rows * columns <= LABELLED_CELLS
    fig.add_heatmap(
        z=as_array(order),
        x=np.arange(columns),
        y=np.arange(rows),
        colorscale=SEQUENTIAL_SCALE,
        showscale=False,
        text=order.numpy().astype(str) if labelled else None,
        texttemplate="%{text}" if labelled else None,
        textfont={"size": ORDER_TEXT_SIZE},
        hovertemplate=_("row %{y}, column %{x}<br>token %{z}") + "<extra></extra>",
        row=1,
        col=1,
    )
    hover = _("row %{y}, column %{x}<br>angle %{z:.3f} rad") + "<extra></extra>"
    for column, values in enumerate((row_angle, col_angle), start=2):
        fig.add_heatmap(
            z=as_array(values),
            x=np.arange(columns),
            y=np.arange(rows),
            coloraxis="coloraxis",
            hovertemplate=hover,
            row=1,
            col=column,
        )
    for column in (1, 2, 3):
        square_cells(fig, rows, columns, row=1, col=column)
    fig.update_xaxes(title_text=_("patch column"), row=1, col=2)  # once: the three panels share it
    fig.update_yaxes(title_text=_("patch row"), row=1, col=1)
    omega = float(vision_rope.axial_inv_freq(head_dim, base=p["vision_base"], device="cpu", dtype=torch.float64)[j])
    fig.update_layout(
        title=_("2-D RoPE, head_dim={head_dim}, base={base:g}: ω_{j} = {omega:.3g} rad/patch").format(
            head_dim=head_dim, base=p["vision_base"], j=j, omega=omega
        ),
        coloraxis={
            "colorscale": CYCLIC_SCALE,
            "cmin": 0.0,
            "cmax": 2 * math.pi,
            "colorbar": {"title": {"text": _("angle mod 2π")}},
        },
        height=ANGLES_HEIGHT,
    )
    notes = [
        _("ω_{j} = base^(-4·{j}/{head_dim}) = {omega:.4g} rad per patch: one turn every {period:.3g} patches").format(
            j=j, head_dim=head_dim, omega=omega, period=2 * math.pi / omega
        )
    ]
    if not in_blocks:
        notes.append(
            _(
                "the {rows}×{columns} grid is not whole {m}×{m} blocks (Qwen2-VL resizes images so that it is): the "
                "order drawn is row by row"
            ).format(rows=rows, columns=columns, m=merge)
        )
    data = {"row_angle": as_array(row_angle), "column_angle": as_array(col_angle), "order": as_array(order)}
    return FigureResult(fig, data, tuple(notes))
