"""ALiBi: the slope of every head, bias matrices of chosen heads, and where each head's attention goes.

At real-model scale (128 heads, 1M positions) nothing of size H x L x L is built: the bias is computed for the
chosen heads at the displayed positions only, and the attention-to-past curves at log-spaced distances.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.colors import sample_colorscale
from plotly.subplots import make_subplots

from figures.common import as_array
from figures.common_params import MAX_HEADS
from figures.params import ParamSpec, register_param
from figures.registry import FigureResult, register
from figures.sinusoidal import shown_positions
from figures.theme import COLORWAY, SEQUENTIAL_SCALE
from posenc_core import alibi, sampling

register_param(
    ParamSpec(
        "heads",
        "ints",
        (0, 7),
        "Heads to draw",
        0,
        MAX_HEADS - 1,
        max_items=4,
        help="Head indices h (0-based, at most 4); heads >= n_heads are left out.",
    )
)
register_param(
    ParamSpec(
        "mode",
        "choice",
        "causal",
        "Bias",
        choices=("causal", "symmetric"),
        choice_labels={"causal": "causal −m·(i−j)", "symmetric": "symmetric −m·|i−j|"},
    )
)
register_param(
    ParamSpec(
        "alibi_bias_max",
        "float",
        8.0,
        "alibi_bias_max (MPT)",
        1.0,
        64.0,
        help="Slopes are 2^(−max·(h+1)/n); 8 gives the reference (and BLOOM) slopes.",
    )
)
register_param(
    ParamSpec(
        "mass",
        "float",
        0.9,
        "Attention mass for the span",
        0.5,
        0.999,
        help="The effective span of a head is the number of nearest tokens that receive this share of attention.",
    )
)

BIAS_CELLS = sampling.MAX_CELLS_PER_AXIS * sampling.MAX_CELLS_PER_AXIS  # cells of all shown heads together
DISTANCE_POINTS = 160  # log-spaced distances per attention curve (128 heads x 160 points ~ 0.3 MB)
MIN_WEIGHT = 1e-6  # bottom of the attention-weight axis


def head_slopes(p: Mapping[str, Any]) -> torch.Tensor:
    """The slope of every head (H,): MPT's formula, which equals the reference at alibi_bias_max = 8."""
    return alibi.mpt_slopes(p["n_heads"], p["alibi_bias_max"], device="cpu", dtype=torch.float64)


def describe(p: Mapping[str, Any]) -> str:
    bias_max = "" if p["alibi_bias_max"] == 8.0 else f", alibi_bias_max={p['alibi_bias_max']:g}"
    return f"n_heads={p['n_heads']}{bias_max}"


def _series_groups(n_heads: int) -> tuple[int, str | None]:
    """How many heads take the power-of-two series, and a sentence on the others (None for a power of two)."""
    power = 1 << (n_heads.bit_length() - 1)  # 2^floor(log2 n)
    if power == n_heads:
        return n_heads, None
    return power, (
        f"n_heads={n_heads} is not a power of two: heads 0-{power - 1} take the {power}-head slopes, heads "
        f"{power}-{n_heads - 1} every other slope of the {2 * power}-head series (they fall between the others)"
    )


def power_of_two_ticks(values: np.ndarray, most: int = 10) -> dict[str, Any]:
    """Log-axis ticks at whole powers of two (2⁻¹, 2⁻², …), at most ``most`` of them."""
    low, high = math.floor(math.log2(values.min())), math.ceil(math.log2(values.max()))
    exponents = list(range(high, low - 1, -max(1, math.ceil((high - low + 1) / most))))
    return {"tickvals": [2.0**e for e in exponents], "ticktext": [f"2<sup>{e}</sup>" for e in exponents]}


@register("alibi-slopes", title="ALiBi slope per head", page="alibi", params=("n_heads", "alibi_bias_max"))
def slopes_figure(p: Mapping[str, Any]) -> FigureResult:
    slopes = as_array(head_slopes(p))
    heads = np.arange(p["n_heads"])
    power, note = _series_groups(p["n_heads"])
    fig = go.Figure()
    groups = [("power-of-two series", heads < power, COLORWAY[0])]
    if note:
        groups.append((f"interleaved from the {2 * power}-head series", heads >= power, COLORWAY[1]))
    for name, chosen, color in groups:
        fig.add_bar(
            x=heads[chosen],
            y=slopes[chosen],
            name=name,
            marker_color=color,
            customdata=np.log2(slopes[chosen]),
            hovertemplate="head %{x}<br>slope m = %{y:.6g}<br>log₂ m = %{customdata:.4g}<extra>" + name + "</extra>",
        )
    fig.update_layout(
        title=f"ALiBi slopes m_h, {describe(p)}",
        xaxis_title="head h",
        yaxis_title="slope m (log scale)",
        yaxis={"type": "log", **power_of_two_ticks(slopes)},
        bargap=0.15,
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 1, "xanchor": "right"},
        height=360,
    )
    notes = (note,) if note else ()
    return FigureResult(fig, {"head": heads.astype(np.float32), "slope": slopes}, notes)


def _number(value: float) -> str:
    """-1,004,000 for large values, -0.5 for small ones."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def chosen_heads(p: Mapping[str, Any]) -> tuple[list[int], str | None]:
    """The requested heads that exist; a note on those left out. ValueError when none is left."""
    heads = [h for h in p["heads"] if h < p["n_heads"]]
    left_out = [h for h in p["heads"] if h >= p["n_heads"]]
    if not heads:
        raise ValueError(f"heads must hold a head index below n_heads={p['n_heads']} (got {list(p['heads'])})")
    note = f"heads {', '.join(map(str, left_out))} left out: n_heads={p['n_heads']}" if left_out else None
    return heads, note


@register(
    "alibi-bias",
    title="ALiBi bias matrices",
    page="alibi",
    params=("n_heads", "alibi_bias_max", "heads", "mode", "seq_len", "view", "start"),
)
def bias_figure(p: Mapping[str, Any]) -> FigureResult:
    heads, heads_note = chosen_heads(p)
    side = min(sampling.MAX_CELLS_PER_AXIS, int(math.sqrt(BIAS_CELLS / len(heads))))
    positions, position_note = shown_positions(p, p["seq_len"], side)
    slopes = head_slopes(p)
    bias = alibi.bias(
        slopes,
        p["seq_len"],
        mode=p["mode"],
        heads=heads,
        query_positions=positions,
        key_positions=positions,
        device=p["device"],
    )  # (len(heads), Q, K)
    values = as_array(bias)
    shown = np.where(np.isfinite(values), values, np.nan)  # the causal mask (−inf) is left blank
    cols = min(len(heads), 2)
    rows = math.ceil(len(heads) / cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[
            f"head {h}: m={float(slopes[h]):.4g}, min {_number(np.nanmin(shown[k]))}" for k, h in enumerate(heads)
        ],
        horizontal_spacing=0.06,
        shared_yaxes=True,  # every head is drawn at the same positions
        vertical_spacing=0.12 if rows > 1 else 0.0,
    )
    axis = as_array(positions).astype(np.int64)
    for k, head in enumerate(heads):
        row, col = divmod(k, cols)
        fig.add_heatmap(
            z=shown[k],
            x=axis,
            y=axis,
            row=row + 1,
            col=col + 1,
            coloraxis="coloraxis",
            hoverongaps=False,
            hovertemplate=f"head {head}<br>query i: %{{y}}<br>key j: %{{x}}<br>bias: %{{z:.6g}}<extra></extra>",
        )
        fig.update_yaxes(
            autorange="reversed", title_text="query i (tokens)" if col == 0 else None, row=row + 1, col=col + 1
        )
        fig.update_xaxes(title_text="key j (tokens)", row=row + 1, col=col + 1)
    formula = "−m·(i−j), j ≤ i" if p["mode"] == "causal" else "−m·|i−j|"
    fig.update_layout(
        title=f"ALiBi bias {formula}, {describe(p)}, L={p['seq_len']:,}",
        coloraxis={"colorscale": SEQUENTIAL_SCALE, "cmax": 0, "colorbar": {"title": {"text": "bias"}}},
        height=440 * rows + 80,
        margin={"t": 100},
    )
    notes = (position_note,)
    if p["mode"] == "causal":
        notes += ("blank cells: keys after the query, masked (−∞) in causal attention",)
    if heads_note:
        notes += (heads_note,)
    data = {"bias": values, "positions": as_array(positions), "heads": np.asarray(heads, dtype=np.float32)}
    return FigureResult(fig, data, notes)


def log_distances(length: int, count: int) -> torch.Tensor:
    """Distinct integer distances 0 .. length-1, every one near 0 and log-spaced further out. (n,), int64."""
    if length <= count:
        return torch.arange(length, dtype=torch.int64)
    spaced = torch.logspace(0, math.log10(length), count, dtype=torch.float64).round().to(torch.int64) - 1
    return torch.unique(torch.cat([torch.arange(min(count // 4, length)), spaced.clamp(0, length - 1)]))


def slope_colors(slopes: torch.Tensor) -> list[str]:
    """A colour per head from the sequential scale by log-slope: dark = steepest, light = shallowest."""
    if slopes.numel() == 1:
        return [COLORWAY[0]]
    log_slope = slopes.log2()
    spread = float(log_slope.max() - log_slope.min()) or 1.0
    shade = ((log_slope.max() - log_slope) / spread * 0.9).tolist()
    return sample_colorscale(SEQUENTIAL_SCALE, shade)


@register(
    "alibi-attention",
    title="ALiBi attention to past tokens",
    page="alibi",
    params=("n_heads", "alibi_bias_max", "seq_len"),
)
def attention_figure(p: Mapping[str, Any]) -> FigureResult:
    n_heads, length = p["n_heads"], p["seq_len"]
    distances = log_distances(length, DISTANCE_POINTS)
    slopes = head_slopes(p)
    weights = alibi.attention_to_past(slopes, length - 1, distances=distances, device=p["device"], dtype=torch.float64)
    weights = as_array(weights.clamp(min=1e-30))  # (H, D); zeros would vanish from the log axis
    colors = slope_colors(slopes)
    x = as_array(distances) + 1  # d + 1 on the log axis: d = 0 (the query itself) at 1
    legend = n_heads <= 16
    traces = [
        go.Scatter(
            x=x,
            y=weights[h],
            mode="lines",
            name=f"head {h}",
            line={"color": colors[h], "width": 1.5},
            showlegend=legend,
            hovertemplate=f"head {h}, m = {float(slopes[h]):.4g}<br>d + 1 = %{{x:,.0f}}<br>weight: %{{y:.4g}}"
            "<extra></extra>",
        )
        for h in range(n_heads)
    ]
    fig = go.Figure(traces)
    fig.update_layout(
        title=f"Attention to the key d tokens back (equal content)<br>query at L−1, {describe(p)}, L={length:,}",
        xaxis={"type": "log", "title": "distance d + 1 (tokens; 1 = the query itself)", "exponentformat": "power"},
        yaxis={
            "type": "log",
            "range": [math.log10(MIN_WEIGHT), 0],
            "title": "attention weight",
            "exponentformat": "power",
            "dtick": 1,
        },
        height=460,
        margin={"t": 95},
    )
    dense = min(DISTANCE_POINTS // 4, length)
    drawn = (
        f"all {length:,} distances drawn"
        if distances.numel() == length
        else f"{distances.numel()} distances drawn: every one below {dense}, log-spaced beyond"
    )
    notes = (f"weight(d) = e^(−m·d)·(1 − e^(−m)) / (1 − e^(−m·L)), the softmax of −m·d over the L keys; {drawn}",)
    if not legend:
        notes += ("colour: slope, dark = steepest head, yellow = shallowest",)
    data = {"distance": as_array(distances), "weight": weights, "slope": as_array(slopes)}
    return FigureResult(fig, data, notes)


@register(
    "alibi-span",
    title="ALiBi effective span per head",
    page="alibi",
    params=("n_heads", "alibi_bias_max", "seq_len", "mass"),
)
def span_figure(p: Mapping[str, Any]) -> FigureResult:
    n_heads, length = p["n_heads"], p["seq_len"]
    slopes = head_slopes(p)
    span = as_array(alibi.effective_span(slopes, p["mass"], query_position=length - 1, device=p["device"]))  # (H,)
    fig = go.Figure(
        go.Bar(
            x=np.arange(n_heads),
            y=span,
            marker_color=slope_colors(slopes),
            customdata=as_array(slopes),
            hovertemplate="head %{x}, m = %{customdata:.4g}<br>effective span: %{y:,.0f} tokens<extra></extra>",
        )
    )
    fig.add_hline(y=length, line_dash="dot", line_color="#888")
    fig.add_annotation(  # on a log axis an annotation's y is log10 of the value
        x=1,
        xref="paper",
        y=math.log10(length),
        text=f"L = {length:,}",
        showarrow=False,
        xanchor="right",
        yanchor="bottom",
    )
    fig.update_layout(
        title=f"Effective span: tokens holding {p['mass']:.1%} of the attention<br>query at L−1, {describe(p)}, "
        f"L={length:,}",
        xaxis_title="head h",
        yaxis={
            "type": "log",
            "title": "effective span (tokens)",
            "exponentformat": "power",
            "dtick": 1,
            "range": [-0.1, math.log10(max(length, 2)) + 0.25],
        },
        height=460,
        margin={"t": 95},
    )
    notes = (
        f"effective span: the fewest most recent keys holding {p['mass']:.1%} of a head's attention when all "
        "content scores are equal; about ln(1/(1 − mass))/m tokens, whatever the context length",
    )
    return FigureResult(fig, {"slope": as_array(slopes), "effective_span": span}, notes)
