"""Sinusoidal PE as a relative code: PE·PEᵀ, PE(p)·PE(p+k) against k, the linear map M_k, and what adding the
encoding to a token embedding does (against concatenating it)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from figures.common import as_array, band, heatmap, lines
from figures.common_params import MAX_SEQ_LEN
from figures.params import ParamSpec, register_param
from figures.registry import FigureResult, register
from figures.sinusoidal import describe, shown_positions
from figures.theme import COLORWAY, DIVERGING_SCALE
from posenc_core import attention, metrics, sampling, sinusoidal

register_param(ParamSpec("offset", "int", 8, "Offset k (tokens)", 0, MAX_SEQ_LEN, help="M_k moves PE(p) to PE(p+k)."))
register_param(
    ParamSpec(
        "token_scale",
        "float",
        1.0,
        "Token embedding norm (× ‖PE‖)",
        0.01,
        100.0,
        log=True,
        help="‖e‖ as a multiple of ‖PE(p)‖ = √(d_model/2).",
    )
)

SIMILARITY_POSITIONS = 256  # rows and columns of PE·PEᵀ
MEASURE_BUDGET = 2**28  # (rows measured)² x d_model: keeps offset_similarity well under a second
MAX_MEASURED_ROWS = 1024
LINEAR_MAP_MAX_D = 1024  # linear_map builds the dense d x d matrix M_k (1024²: 8 MB in float64)
LINEAR_MAP_PAIRS = 8  # M_k is drawn on the channels of its first 8 pairs
TOKEN_SEED = 0


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
    fig.update_layout(legend={"orientation": "h", "y": -0.25, "x": 0})
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


@register(
    "sinusoidal-linear-map",
    title="Sinusoidal PE: PE(p+k) = M_k PE(p)",
    page="sinusoidal",
    params=("seq_len", "d_model", "base", "layout", "offset", "view", "start"),
)
def linear_map_check(p: Mapping[str, Any]) -> FigureResult:
    k, d_check = p["offset"], min(p["d_model"], LINEAR_MAP_MAX_D)
    kw = {"base": p["base"], "layout": p["layout"], "device": p["device"], "dtype": torch.float64}
    positions, note = shown_positions(p, p["seq_len"], sampling.MAX_CELLS_PER_AXIS)
    m_k = sinusoidal.linear_map(k, d_check, **kw)  # (d, d)
    moved = sinusoidal.encoding(None, d_check, positions=positions, **kw) @ m_k.T  # rows: M_k PE(p)
    target = sinusoidal.encoding(None, d_check, positions=positions + k, **kw)
    error = (moved - target).abs().amax(dim=1)  # (P,)
    pair = sinusoidal.channel_pair_index(d_check, p["layout"], device="cpu")
    corner = torch.nonzero(pair < LINEAR_MAP_PAIRS).flatten()
    names = [f"{int(j)}" for j in corner]
    fig = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.42, 0.58],
        horizontal_spacing=0.12,
        subplot_titles=(
            f"M_k on the channels of pairs 0..{LINEAR_MAP_PAIRS - 1} (red +1, blue −1)",
            "max over channels of |M_k PE(p) − PE(p+k)|",
        ),
    )
    fig.add_heatmap(
        z=as_array(m_k[corner][:, corner]),
        x=names,
        y=names,
        colorscale=DIVERGING_SCALE,
        zmid=0,
        zmin=-1,
        zmax=1,
        showscale=False,
        hovertemplate="row channel %{y}<br>column channel %{x}<br>M_k %{z:.6g}<extra></extra>",
        row=1,
        col=1,
    )
    fig.update_yaxes(autorange="reversed", type="category", title_text="channel (row)", row=1, col=1)
    fig.update_xaxes(type="category", title_text="channel (column)", row=1, col=1)
    fig.add_scatter(
        x=as_array(positions),
        y=np.asarray(error.cpu(), dtype=np.float32),
        mode="lines+markers" if positions.numel() <= 64 else "lines",
        name="max error",
        showlegend=False,
        hovertemplate="position p %{x:,}<br>max error %{y:.3g}<extra></extra>",
        row=1,
        col=2,
    )
    fig.update_xaxes(title_text="position p (tokens)", row=1, col=2)
    fig.update_yaxes(title_text="max |error| over channels", exponentformat="e", row=1, col=2)
    shown = describe(p).replace(f"d_model={p['d_model']}", f"d_model={d_check} (of {p['d_model']})")
    fig.update_layout(title=f"PE(p+k) = M_k PE(p), k={k:,}, {shown if d_check < p['d_model'] else describe(p)}")
    fig.update_layout(height=460)
    notes = [
        note,
        f"largest error over these positions and all {d_check:,} channels: {float(error.max()):.3g} (float64)",
    ]
    if d_check < p["d_model"]:
        notes.append(
            f"M_k is a dense d x d matrix; for d_model={p['d_model']:,} it would take "
            f"{p['d_model'] ** 2 * 8 / 2**20:,.0f} MB, so the check uses d_model={d_check:,} (same base and layout): "
            "the property holds pair by pair, whatever d_model"
        )
    if d_check % 2 and p["layout"] != "t2t":
        notes.append("odd d_model: the last sin channel has no cos partner, so M_k cannot move it exactly")
    data = {
        "positions": as_array(positions),
        "max_error": as_array(error),
        "m_k_corner": as_array(m_k[corner][:, corner]),
    }
    return FigureResult(fig, data, tuple(notes))


@register(
    "sinusoidal-add-vs-concat",
    title="Adding PE to a token embedding vs concatenating it",
    page="sinusoidal",
    params=("seq_len", "d_model", "base", "layout", "token_scale", "view", "start"),
)
def add_versus_concatenate(p: Mapping[str, Any]) -> FigureResult:
    d_model, scale = p["d_model"], p["token_scale"]
    positions, note = shown_positions(p, p["seq_len"], sampling.MAX_CELLS_PER_AXIS)
    pe = sinusoidal.encoding(None, d_model, base=p["base"], layout=p["layout"], positions=positions, device=p["device"])
    pe = pe.double()
    direction = attention.token_embeddings(["token"], d_model, seed=TOKEN_SEED, device=pe.device)[0].double()
    token = direction / direction.norm() * scale * math.sqrt(d_model / 2)  # ‖e‖ = scale · √(d/2)
    pe_norm = pe.norm(dim=1)
    added = token + pe  # (P, d)
    cos_added = (added @ token) / (added.norm(dim=1) * token.norm())
    norm_concat = torch.sqrt(token.norm() ** 2 + pe_norm**2)  # ‖[e; PE(p)]‖
    cos_concat = token.norm() / norm_concat  # cos([e; 0], [e; PE(p)])
    fig = make_subplots(
        rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=("cosine with the token embedding e", "norm")
    )
    curves = (  # (key, legend, quantity, values, subplot column, colour)
        ("cos_added", "added: e + PE(p)", "cosine with e", cos_added, 1, COLORWAY[0]),
        ("cos_concatenated", "concatenated: [e; PE(p)]", "cosine with [e; 0]", cos_concat, 1, COLORWAY[1]),
        ("norm_added", "added: e + PE(p)", "‖e + PE(p)‖", added.norm(dim=1), 2, COLORWAY[0]),
        ("norm_concatenated", "concatenated: [e; PE(p)]", "‖[e; PE(p)]‖", norm_concat, 2, COLORWAY[1]),
        ("norm_token", "the token alone: e", "‖e‖", token.norm().expand(positions.numel()), 2, "#777777"),
    )
    for key, legend, quantity, values, col, colour in curves:
        fig.add_scatter(
            x=as_array(positions),
            y=as_array(values),
            mode="lines",
            name=legend,
            legendgroup=legend,
            showlegend=key != "norm_added" and key != "norm_concatenated",
            line={"color": colour, "dash": "dot" if key == "norm_token" else "solid"},
            hovertemplate=f"{quantity}<br>position %{{x:,}}<br>%{{y:.6g}}<extra></extra>",
            row=1,
            col=col,
        )
    fig.update_xaxes(title_text="position p (tokens)")
    fig.update_yaxes(title_text="cosine", row=1, col=1)
    fig.update_yaxes(title_text="norm", rangemode="tozero", row=1, col=2)
    fig.update_layout(
        title=f"A random token embedding e with ‖e‖ = {scale:g}·‖PE‖, {describe(p)}",
        height=460,
        legend={"orientation": "h", "y": -0.25, "x": 0},
    )
    data = {key: as_array(values) for key, _, _, values, *_ in curves}
    notes = (
        note,
        f"added: cosine with e between {float(cos_added.min()):.3f} and {float(cos_added.max()):.3f}; "
        f"concatenated: always {float(cos_concat.mean()):.3f} "
        f"(e keeps its own {d_model:,} channels, the width doubles)",
    )
    return FigureResult(fig, {"positions": as_array(positions), **data}, notes)
