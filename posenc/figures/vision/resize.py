"""A learned patch table resized to a larger grid (timm's ``resample_abs_pos_embed``), one channel on its grids,
next to its difference from the same smooth waves sampled on the new grid."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from plotly.subplots import make_subplots

from posenc.drawing.common import as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import DIVERGING_SCALE
from posenc.figures.vision.grid import square_cells
from posenc.figures.vision.params import RESIZE_CHANNELS
from posenc.i18n import N_, _
from posenc_core.encodings import vision

PANELS_HEIGHT = 430  # three square panels side by side: a 220 px plot area holds them on a desktop (980 px)
TABLE_STD = 0.02  # the table's scale, as a ViT's initialised table (N(0, 0.02²))


def tables(p: Mapping[str, Any]):
    """(table on the old grid, resized table, the same waves sampled on the new grid): (1 + side², channels) each."""
    old, new = p["old_grid"], p["new_grid"]
    waves = {"std": TABLE_STD, "seed": p["seed"], "device": p["device"]}
    small = vision.smooth_random_table(old, old, RESIZE_CHANNELS, **waves)
    resized = vision.resize_table(small, new, mode=p["resize_mode"], antialias=p["antialias"])
    sampled = vision.smooth_random_table(new, new, RESIZE_CHANNELS, **waves)
    return small, resized, sampled


@register(
    "vision-resize",
    title=N_("A learned patch table resized to a new grid"),
    page="vision",
    params=("old_grid", "new_grid", "resize_mode", "antialias", "channel", "seed"),
)
def resized_table(p: Mapping[str, Any]) -> FigureResult:
    old, new, channel = p["old_grid"], p["new_grid"], p["channel"]
    small, resized, sampled = tables(p)
    before = small[1:, channel].reshape(old, old)
    after = resized[1:, channel].reshape(new, new)
    difference = after - sampled[1:, channel].reshape(new, new)
    reach = float(max(before.abs().max(), after.abs().max(), difference.abs().max()))
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=(
            _("table {side}×{side}").format(side=old),
            _("resized {side}×{side}").format(side=new),
            _("resized minus waves"),
        ),
        horizontal_spacing=0.08,
    )
    for column, (values, side) in enumerate(((before, old), (after, new), (difference, new)), start=1):
        fig.add_heatmap(
            z=as_array(values),
            x=np.arange(side),
            y=np.arange(side),
            coloraxis="coloraxis",
            hovertemplate=_("row %{y}, column %{x}<br>value %{z:.3g}") + "<extra></extra>",
            row=1,
            col=column,
        )
        square_cells(fig, side, side, row=1, col=column)
    fig.update_xaxes(title_text=_("patch column"), row=1, col=2)  # once, under the middle panel: the three share it
    fig.update_yaxes(title_text=_("patch row"), row=1, col=1)
    for column in (2, 3):  # square grids: the column numbers under a panel give its rows too, and the panels keep
        fig.update_yaxes(showticklabels=False, ticks="", row=1, col=column)  # the width row numbers would take
    title = (
        _("Smooth random table, channel {channel}: {old}² → {new}² ({mode}, antialias)")
        if p["antialias"]
        else _("Smooth random table, channel {channel}: {old}² → {new}² ({mode}, no antialias)")
    )
    fig.update_layout(
        title=title.format(channel=channel, old=old, new=new, mode=p["resize_mode"]),
        coloraxis={
            "colorscale": DIVERGING_SCALE,
            "cmin": -reach,
            "cmax": reach,
            "colorbar": {"title": {"text": _("value")}},
        },
        height=PANELS_HEIGHT,
    )
    inside = difference[2:-2, 2:-2].abs().max() if new > 4 else difference.abs().max()
    notes = (
        _(
            "a seeded smooth table (seed {seed}: {channels} channels of 3 waves of up to 1.5 cycles per image each, "
            "std {std}), not a trained one; the [CLS] row is kept unchanged ({cls:.4f} before and after)"
        ).format(seed=p["seed"], channels=RESIZE_CHANNELS, std=TABLE_STD, cls=float(small[0, channel])),
        _(
            "largest difference from the waves sampled at {new}×{new}: {largest:.2g} ({inside:.2g} two patches in "
            "from the edge); the table spans ±{reach:.2g}"
        ).format(
            new=new,
            largest=float(difference.abs().max()),
            inside=float(inside),
            reach=float(before.abs().max()),
        ),
    )
    data = {
        "before": as_array(before),
        "after": as_array(after),
        "difference": as_array(difference),
        "cls": np.array([float(small[0, channel]), float(resized[0, channel])], dtype=np.float32),
    }
    return FigureResult(fig, data, notes)
