"""Sinusoidal position encodings: the table (position x channel), and the helpers every sinusoidal and learned
figure uses to turn ``view``/``start`` into display positions and to pick channels.

The per-channel waves and wavelengths are in :mod:`figures.sinusoidal_waves`; the similarity views (PE·PEᵀ,
PE(p)·PE(p+k), the linear map M_k, adding vs concatenating) in :mod:`figures.sinusoidal_similarity`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from figures.common import as_array, heatmap, sampled_note
from figures.params import ParamSpec, register_param
from figures.registry import FigureResult, register
from figures.theme import DIVERGING_SCALE
from posenc_core import sampling, sinusoidal

register_param(
    ParamSpec(
        "layout",
        "choice",
        "interleaved",
        "Channel layout",
        choices=sinusoidal.LAYOUTS,
        help="Where the sin and cos channel of each frequency pair sit, and how the frequencies are spaced.",
        choice_labels={
            "interleaved": "interleaved: sin, cos, sin, cos… (Vaswani)",
            "half": "half: all sin, then all cos (Marian)",
            "t2t": "t2t: timescales 1..base (tensor2tensor, fairseq)",
        },
    )
)
HEATMAP_POSITIONS = 384  # rows of the PE heatmap (with the similarity matrix the page stays under 3 MB)
HEATMAP_PAIRS = sampling.MAX_CELLS_PER_AXIS // 2  # both channels of at most 256 pairs: <= 512 columns


def describe(p: Mapping[str, Any], *, length: bool = True) -> str:
    """'layout=interleaved, d_model=128, base=10000, L=1024' for titles."""
    text = f"layout={p['layout']}, d_model={p['d_model']}, base={p['base']:g}"
    return text + (f", L={p['seq_len']:,}" if length else "")


def shown_positions(p: Mapping[str, Any], length: int, max_points: int) -> tuple[torch.Tensor, str]:
    """The positions a figure shows and a note saying which: every position of the window from ``start``, or
    every s-th position over the whole range 0 .. length-1 (one stride, so heatmaps draw as one image; the
    overview ignores ``start``)."""
    if p["view"] == "window":
        if p["start"] >= length:
            raise ValueError(f"start must be < the length {length:,} in the window view (got {p['start']:,})")
        positions = sampling.window_positions(p["start"], max_points, length)
        return positions, f"window: every position from {int(positions[0]):,} to {int(positions[-1]):,}"
    positions = sampling.strided_positions(length, max_points)
    stride = int(sampling.sampling_stride(positions))
    return positions, "overview, " + sampled_note(positions.numel(), length, stride=stride)


def shown_channels(d_model: int, layout: str, max_pairs: int) -> tuple[torch.Tensor, str | None]:
    """Both channels of evenly spaced frequency pairs (all channels when they fit), in channel order."""
    pair = sinusoidal.channel_pair_index(d_model, layout, device="cpu")
    n_pairs = int(pair.max()) + 1
    if n_pairs <= max_pairs:
        return torch.arange(d_model), None
    chosen = sampling.strided_positions(n_pairs, max_pairs)
    channels = torch.nonzero(torch.isin(pair, chosen)).flatten()
    note = (
        f"channels: {channels.numel()} of {d_model:,} shown (the sin and cos channel of {chosen.numel()} evenly "
        f"spaced frequency pairs of {n_pairs:,})"
    )
    return channels, note


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
