"""MAE's 2-D sin-cos table, one row per token: column half (sin, cos) then row half (sin, cos)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.common import as_array, heatmap, sampled_note
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import DIVERGING_SCALE, REFERENCE_INK
from posenc.i18n import N_, _
from posenc_core import sampling
from posenc_core.encodings import vision

BLOCKS = ("sin(c·ω)", "cos(c·ω)", "sin(r·ω)", "cos(r·ω)")  # the four quarters of the channels, in order


@register(
    "vision-sincos-table",
    title=N_("MAE's 2-D sin-cos table"),
    page="vision",
    params=("grid_h", "grid_w", "embed_dim", "cls_token"),
)
def sincos_table(p: Mapping[str, Any]) -> FigureResult:
    rows, columns, dim, cls = p["grid_h"], p["grid_w"], int(p["embed_dim"]), p["cls_token"]
    table = vision.sincos_2d(rows, columns, dim, cls_token=cls, device=p["device"])  # (cls + H·W, dim)
    tokens = sampling.strided_positions(table.shape[0], sampling.MAX_CELLS_PER_AXIS)
    channels = sampling.strided_positions(dim, sampling.MAX_CELLS_PER_AXIS)
    shown = table[tokens.to(table.device)][:, channels.to(table.device)]
    fig = heatmap(
        shown,
        as_array(channels),
        as_array(tokens),
        title=(
            _("2-D sin-cos, {rows}×{columns} patches + [CLS], dim={dim}")
            if cls
            else _("2-D sin-cos, {rows}×{columns} patches, dim={dim}")
        ).format(rows=rows, columns=columns, dim=dim),
        x_title=_("channel"),
        y_title=_("token (0 = [CLS])") if cls else _("token"),
        value_name="PE",
        colorscale=DIVERGING_SCALE,
        zmid=0.0,
        reversed_y=True,
    )
    quarter = dim // 4
    for k, name in enumerate(BLOCKS):
        if k:
            fig.add_vline(
                x=k * quarter - 0.5, line={"color": REFERENCE_INK, "width": 2 if k == 2 else 1, "dash": "dot"}
            )
        fig.add_annotation(
            x=(k + 0.5) * quarter, y=1, yref="paper", yanchor="bottom", text=name, showarrow=False, font={"size": 11}
        )
    fig.update_layout(height=480, margin={"t": 90})
    notes = []
    if tokens.numel() < table.shape[0]:
        notes.append(sampled_note(tokens.numel(), table.shape[0], "tokens", stride=int(tokens[1] - tokens[0])))
    if channels.numel() < dim:
        notes.append(sampled_note(channels.numel(), dim, "channels", stride=int(channels[1] - channels[0])))
    data = {"table": as_array(shown), "tokens": as_array(tokens), "channels": as_array(channels)}
    return FigureResult(fig, data, tuple(notes))
