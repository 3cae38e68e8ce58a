"""The sinusoidal table PE[p, j] as a heatmap (position x channel)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from posenc.drawing.common import as_array, heatmap
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.shown import shown_channels
from posenc.drawing.theme import DIVERGING_SCALE
from posenc.figures.sinusoidal.params import describe, shown
from posenc.i18n import N_, _
from posenc_core import sampling
from posenc_core.encodings import sinusoidal

HEATMAP_POSITIONS = 384  # rows of the PE heatmap's overview (with the similarity matrix the page stays under 3 MB)


HEATMAP_WINDOW = sampling.MAX_CELLS_PER_AXIS  # rows of a window: every position of the longest window


HEATMAP_PAIRS = sampling.MAX_CELLS_PER_AXIS // 2  # both channels of at most 256 pairs: <= 512 columns


TICKS = 8  # about this many labels on the channel axis


def round_ticks(channels: torch.Tensor) -> list[int]:
    """Channel numbers to label: the most multiples of one round step (1, 2 or 5 x 10^k, else a power of 2) that are
    all among ``channels``, 4 to TICKS + 1 of them; else about TICKS channels evenly spread."""
    values = set(channels.tolist())
    span = max(values)
    decimal = [m * 10**k for k in range(len(str(span))) for m in (1, 2, 5)]
    binary = [2**k for k in range(span.bit_length())]
    best: list[int] = []
    for step in decimal + binary:  # a decimal step wins a tie
        ticks = list(range(0, span + 1, step))
        if len(best) < len(ticks) <= TICKS + 1 and values.issuperset(ticks):
            best = ticks
    return best if len(best) >= 4 else sorted(values)[:: max(1, len(values) // TICKS)]


@register(
    "sinusoidal-heatmap",
    title=N_("Sinusoidal position encoding (position x channel)"),
    page="sinusoidal",
    params=("seq_len", "d_model", "base", "layout", "view", "start", "window"),
)
def encoding_heatmap(p: Mapping[str, Any]) -> FigureResult:
    positions, position_note = shown(p, HEATMAP_WINDOW if p["view"] == "window" else HEATMAP_POSITIONS)
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
        title=_("Sinusoidal PE[p, j], {described}").format(described=describe(p)),
        x_title=_("channel j"),
        y_title=_("position p (tokens)"),
        value_name="PE",
        colorscale=DIVERGING_SCALE,
        zmin=-1,
        zmax=1,
        reversed_y=True,
    )
    fig.update_layout(height=520)
    if fig.layout.xaxis.type == "category":  # sampled pairs: label round channel numbers, not every n-th category
        ticks = round_ticks(channels)
        fig.update_xaxes(tickvals=ticks, ticktext=[f"{tick:,}" for tick in ticks])
    notes = [position_note, *([channel_note] if channel_note else ())]
    stride = sampling.sampling_stride(positions)
    wavelength = sinusoidal.wavelengths(p["d_model"], base=p["base"], layout=p["layout"], device="cpu")[channels]
    aliased = wavelength < 2 * stride  # Nyquist: a wave needs more than two rows per period
    if bool(aliased.any()):
        fastest = int(sinusoidal.channel_pair_index(p["d_model"], p["layout"], device="cpu")[channels][aliased].max())
        notes.append(
            _(
                "rows are {stride:,.0f} positions apart: the {count:,} channels shown with λ < {limit:,.0f} tokens "
                "(pairs 0..{fastest:,}) turn more than half a period from row to row, so their stripes alias: the "
                "pattern there is not their wave. The window view draws every position."
            ).format(stride=stride, count=int(aliased.sum()), limit=2 * stride, fastest=fastest)
        )
    data = {"encoding": as_array(pe), "positions": as_array(positions), "channels": as_array(channels)}
    return FigureResult(fig, data, tuple(notes))
