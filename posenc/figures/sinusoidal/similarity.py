"""Sinusoidal PE as a relative code: the similarity PE(p)·PE(q), and PE(p)·PE(p+k) against k with its spread."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.colors
import plotly.graph_objects as go
import torch

from posenc.drawing.common import LEGEND_BELOW, as_array, band, heatmap, lines
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY, DIVERGING_SCALE, SEQUENTIAL_SCALE
from posenc.figures.sinusoidal.params import describe, shown
from posenc.i18n import N_, _
from posenc_core.encodings import metrics, sinusoidal

SIMILARITY_POSITIONS = 256  # rows and columns of PE·PEᵀ


MEASURE_BUDGET = 2**28  # (rows measured)² x d_model: keeps offset_similarity well under a second


MAX_MEASURED_ROWS = 1024


SCALE_STOPS = 11  # colour stops of a diverging scale cut to the values drawn


def fitted_scale(values) -> dict[str, Any]:
    """Heatmap colour arguments whose range is the values drawn: a sequential scale from min to max when no value
    is negative; when values of both signs are drawn, the diverging scale centred on 0 (white), cut to min..max,
    so a value keeps the colour it has on the symmetric scale ±max|value| and neither end is left unused."""
    values = as_array(values)
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    if low >= 0 or high <= 0 or low == high:
        return {"colorscale": SEQUENTIAL_SCALE, "zmin": low, "zmax": high}
    reach = max(-low, high)
    where = np.unique(np.concatenate([np.linspace(0.0, 1.0, SCALE_STOPS), [-low / (high - low)]]))
    symmetric = 0.5 + (low + where * (high - low)) / (2 * reach)  # the same value's place on the ±reach scale
    colours = plotly.colors.sample_colorscale(plotly.colors.get_colorscale(DIVERGING_SCALE), symmetric.tolist())
    return {"colorscale": [[float(w), c] for w, c in zip(where, colours, strict=True)], "zmin": low, "zmax": high}


def spread_band(fig: go.Figure, x, mean, std, *, name: str, color: str) -> None:
    """Shade mean ± std under the curves; ``mode="none"`` keeps the band's outline off at every figure style."""
    band(fig, x, mean - std, mean + std, name=name, color=color)
    fig.data[0].mode = "none"


def measured_rows(d_model: int, available: int) -> int:
    """How many consecutive rows the offset spread is measured on: rows² x d within MEASURE_BUDGET."""
    return max(2, min(available, MAX_MEASURED_ROWS, math.isqrt(MEASURE_BUDGET // d_model)))


@register(
    "sinusoidal-similarity",
    title=N_("Sinusoidal PE: similarity PE(p)·PE(q)"),
    page="sinusoidal",
    params=("seq_len", "d_model", "base", "layout", "view", "start", "window"),
)
def similarity_matrix(p: Mapping[str, Any]) -> FigureResult:
    positions, note = shown(p, SIMILARITY_POSITIONS)
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
        x_title=_("position q (tokens)"),
        y_title=_("position p (tokens)"),
        value_name=_("dot"),
        reversed_y=True,
        **fitted_scale(sim),
    )
    fig.update_layout(height=560)
    diagonal = _("the diagonal is ‖PE(p)‖² = {value:.6g} (d_model/2 for even d_model)")
    notes = (note, diagonal.format(value=float(sim.diagonal().max())))
    return FigureResult(fig, {"similarity": as_array(sim), "positions": as_array(positions)}, notes)


@register(
    "sinusoidal-relative",
    title=N_("Sinusoidal PE: PE(p)·PE(p+k) against the offset k"),
    page="sinusoidal",
    params=("seq_len", "d_model", "base", "layout", "view", "start"),
)
def relative_similarity(p: Mapping[str, Any]) -> FigureResult:
    d_model, kw = p["d_model"], {"base": p["base"], "layout": p["layout"], "device": p["device"]}
    first = p["start"] if p["view"] == "window" else 0
    if first >= p["seq_len"]:
        message = _("start must be < seq_len={seq_len:,} in the window view (got {start:,})")
        raise ValueError(message.format(seq_len=p["seq_len"], start=first))
    rows = measured_rows(d_model, p["seq_len"] - first)
    table = sinusoidal.encoding(None, d_model, positions=torch.arange(first, first + rows), **kw)
    offsets, mean, std = metrics.offset_similarity(table, torch.arange(max(1, rows // 2)))
    closed = sinusoidal.relative_similarity(offsets, d_model, position=float(first), **kw)
    fig = lines(
        offsets,
        {_("closed form Σ cos(k·ω_i)"): closed, _("measured mean over p"): mean},
        title=_("PE(p)·PE(p+k) against k, {described}").format(described=describe(p)),
        x_title=_("offset k (tokens)"),
        y_title="PE(p)·PE(p+k)",
    )
    fig.data[0].line.color, fig.data[1].line.color, fig.data[1].line.dash = COLORWAY[1], COLORWAY[0], "dash"
    spread_band(fig, offsets, mean, std, name=_("mean ± std over p"), color="rgba(31,119,180,0.25)")
    fig.update_layout(legend=LEGEND_BELOW)
    last = first + rows - 1
    spread = (
        _("largest std over p: {std:.3g} (the unpaired last sin channel of an odd d_model depends on p)")
        if d_model % 2 and p["layout"] != "t2t"
        else _("largest std over p: {std:.3g} (float32 rounding: the dot product depends on k only)")
    )
    notes = (
        _(
            "measured on the {rows:,} consecutive positions {first:,}..{last:,}: for each k, every p with p+k in "
            "that range"
        ).format(rows=rows, first=first, last=last),
        spread.format(std=float(std.max())),
    )
    data = {"offset": as_array(offsets), "closed_form": as_array(closed), "mean": as_array(mean), "std": as_array(std)}
    return FigureResult(fig, data, notes)
