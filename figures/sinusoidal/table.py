"""The sinusoidal table PE[p, j] as a heatmap (position x channel)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from figures.common import as_array, heatmap
from figures.registry import FigureResult, register
from figures.shown import shown_channels, shown_positions
from figures.sinusoidal.params import describe
from figures.theme import DIVERGING_SCALE
from posenc_core import sampling, sinusoidal

HEATMAP_POSITIONS = 384  # rows of the PE heatmap (with the similarity matrix the page stays under 3 MB)


HEATMAP_PAIRS = sampling.MAX_CELLS_PER_AXIS // 2  # both channels of at most 256 pairs: <= 512 columns


@register(
    "sinusoidal-heatmap",
    title="Sinusoidal position encoding (position x channel)",
    page="sinusoidal",
    params=("seq_len", "d_model", "base", "layout", "view", "start"),
)
def encoding_heatmap(p: Mapping[str, Any]) -> FigureResult:
    positions, position_note = shown_positions(p, p["seq_len"], HEATMAP_POSITIONS)
    channels, channel_note = shown_channels(p["d_model"], p["layout"], HEATMAP_PAIRS)
    pe = sinusoidal.encoding(
        None,
        p["d_model"],
        base=p["base"],
        layout=p["layout"],
        positions=positions,
        channels=channels,
        device=p["device"],
    )
    fig = heatmap(
        pe,
        as_array(channels).astype(np.int32),
        as_array(positions).astype(np.int64),
        title=f"Sinusoidal PE[p, j], {describe(p)}",
        x_title="channel j",
        y_title="position p (tokens)",
        value_name="PE",
        colorscale=DIVERGING_SCALE,
        zmin=-1,
        zmax=1,
        reversed_y=True,
    )
    fig.update_layout(height=520)
    notes = [position_note, *([channel_note] if channel_note else ())]
    stride = sampling.sampling_stride(positions)
    if stride > 2:
        wavelength = sinusoidal.wavelengths(p["d_model"], base=p["base"], layout=p["layout"], device="cpu")
        fast = int((wavelength < 2 * stride).sum())
        notes.append(
            f"rows are {stride:,.0f} positions apart: the {fast:,} channels with λ < {2 * stride:,.0f} tokens alias "
            "into moiré patterns here; the window view shows them at every position"
        )
    data = {"encoding": as_array(pe), "positions": as_array(positions), "channels": as_array(channels)}
    return FigureResult(fig, data, tuple(notes))
