"""Sinusoidal PE as a relative code: the similarity PE(p)·PE(q), and PE(p)·PE(p+k) against k with its spread."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch

from figures.common import LEGEND_BELOW, as_array, band, heatmap, lines
from figures.registry import FigureResult, register
from figures.shown import shown_positions
from figures.sinusoidal.params import describe
from figures.theme import COLORWAY, DIVERGING_SCALE
from posenc_core import metrics, sinusoidal

SIMILARITY_POSITIONS = 256  # rows and columns of PE·PEᵀ


MEASURE_BUDGET = 2**28  # (rows measured)² x d_model: keeps offset_similarity well under a second


MAX_MEASURED_ROWS = 1024


def spread_band(fig: go.Figure, x, mean, std, *, name: str, color: str) -> None:
    """Shade mean ± std under the curves; ``mode="none"`` keeps the band's outline off at every figure style."""
    band(fig, x, mean - std, mean + std, name=name, color=color)
    fig.data[0].mode = "none"


def measured_rows(d_model: int, available: int) -> int:
    """How many consecutive rows the offset spread is measured on: rows² x d within MEASURE_BUDGET."""
    return max(2, min(available, MAX_MEASURED_ROWS, math.isqrt(MEASURE_BUDGET // d_model)))


@register(
    "sinusoidal-similarity",
    title="Sinusoidal PE: similarity PE(p)·PE(q)",
    page="sinusoidal",
    params=("seq_len", "d_model", "base", "layout", "view", "start"),
)
def similarity_matrix(p: Mapping[str, Any]) -> FigureResult:
    positions, note = shown_positions(p, p["seq_len"], SIMILARITY_POSITIONS)
    pe = sinusoidal.encoding(
        None, p["d_model"], base=p["base"], layout=p["layout"], positions=positions, device=p["device"]
    )
    sim = metrics.similarity_matrix(pe)
    ticks = as_array(positions).astype(np.int64)
    fig = heatmap(
        sim,
        ticks,
        ticks,
        title=f"PE(p)·PE(q), {describe(p)}",
        x_title="position q (tokens)",
        y_title="position p (tokens)",
        value_name="dot",
        colorscale=DIVERGING_SCALE,
        zmid=0,
        reversed_y=True,
    )
    fig.update_layout(height=560)
    notes = (note, f"the diagonal is ‖PE(p)‖² = {float(sim.diagonal().max()):.6g} (d_model/2 for even d_model)")
    return FigureResult(fig, {"similarity": as_array(sim), "positions": as_array(positions)}, notes)


@register(
    "sinusoidal-relative",
    title="Sinusoidal PE: PE(p)·PE(p+k) against the offset k",
    page="sinusoidal",
    params=("seq_len", "d_model", "base", "layout", "view", "start"),
)
def relative_similarity(p: Mapping[str, Any]) -> FigureResult:
    d_model, kw = p["d_model"], {"base": p["base"], "layout": p["layout"], "device": p["device"]}
    first = p["start"] if p["view"] == "window" else 0
    if first >= p["seq_len"]:
        raise ValueError(f"start must be < seq_len={p['seq_len']:,} in the window view (got {first:,})")
    rows = measured_rows(d_model, p["seq_len"] - first)
    table = sinusoidal.encoding(None, d_model, positions=torch.arange(first, first + rows), **kw)
    offsets, mean, std = metrics.offset_similarity(table, torch.arange(max(1, rows // 2)))
    closed = sinusoidal.relative_similarity(offsets, d_model, position=float(first), **kw)
    fig = lines(
        offsets,
        {"closed form Σ cos(k·ω_i)": closed, "measured mean over p": mean},
        title=f"PE(p)·PE(p+k) against k, {describe(p)}",
        x_title="offset k (tokens)",
        y_title="PE(p)·PE(p+k)",
    )
    fig.data[0].line.color, fig.data[1].line.color, fig.data[1].line.dash = COLORWAY[1], COLORWAY[0], "dash"
    spread_band(fig, offsets, mean, std, name="mean ± std over p", color="rgba(31,119,180,0.25)")
    fig.update_layout(legend=LEGEND_BELOW)
    last = first + rows - 1
    notes = (
        f"measured on the {rows:,} consecutive positions {first:,}..{last:,}: for each k, every p with p+k in "
        "that range",
        f"largest std over p: {float(std.max()):.3g} "
        + (
            "(the unpaired last sin channel of an odd d_model depends on p)"
            if d_model % 2 and p["layout"] != "t2t"
            else "(float32 rounding: the dot product depends on k only)"
        ),
    )
    data = {"offset": as_array(offsets), "closed_form": as_array(closed), "mean": as_array(mean), "std": as_array(std)}
    return FigureResult(fig, data, notes)
