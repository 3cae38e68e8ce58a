"""A learned patch table resized to a larger grid (timm's ``resample_abs_pos_embed``), one channel on its grids,
next to its difference from the same smooth waves sampled on the new grid."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from plotly.subplots import make_subplots

from figures.common import as_array
from figures.registry import FigureResult, register
from figures.theme import DIVERGING_SCALE
from figures.vision.grid import square_cells
from figures.vision.params import RESIZE_CHANNELS
from posenc_core import vision

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
    title="A learned patch table resized to a new grid",
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
        subplot_titles=(f"table {old}×{old}", f"resized {new}×{new}", "minus waves at new grid"),
        horizontal_spacing=0.06,
    )
    for column, (values, side) in enumerate(((before, old), (after, new), (difference, new)), start=1):
        fig.add_heatmap(
            z=as_array(values),
            x=np.arange(side),
            y=np.arange(side),
            coloraxis="coloraxis",
            hovertemplate="row %{y}, column %{x}<br>value %{z:.3g}<extra></extra>",
            row=1,
            col=column,
        )
        square_cells(fig, side, side, row=1, col=column)
        fig.update_xaxes(title_text="patch column", row=1, col=column)
    fig.update_yaxes(title_text="patch row", row=1, col=1)
    aa = "antialias" if p["antialias"] else "no antialias"
    fig.update_layout(
        title=f"Smooth random table, channel {channel}: {old}² → {new}² ({p['resize_mode']}, {aa})",
        coloraxis={
            "colorscale": DIVERGING_SCALE,
            "cmin": -reach,
            "cmax": reach,
            "colorbar": {"title": {"text": "value"}},
        },
        height=400,
    )
    inside = difference[2:-2, 2:-2].abs().max() if new > 4 else difference.abs().max()
    notes = (
        f"a seeded smooth table (seed {p['seed']}: {RESIZE_CHANNELS} channels of 3 waves of up to 1.5 cycles per image "
        f"each, std {TABLE_STD}), not a trained one; the [CLS] row is kept unchanged "
        f"({float(small[0, channel]):.4f} before and after)",
        f"largest difference from the waves sampled at {new}×{new}: {float(difference.abs().max()):.2g} "
        f"({float(inside):.2g} two patches in from the edge); the table spans ±{float(before.abs().max()):.2g}",
    )
    data = {
        "before": as_array(before),
        "after": as_array(after),
        "difference": as_array(difference),
        "cls": np.array([float(small[0, channel]), float(resized[0, channel])], dtype=np.float32),
    }
    return FigureResult(fig, data, notes)
