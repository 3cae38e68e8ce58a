"""What ALiBi does to attention: the weight a query gives to keys k tokens back, and each head's span."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.colors import sample_colorscale

from posenc.drawing.common import as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY, SEQUENTIAL_SCALE
from posenc.figures.alibi.params import describe, head_slopes
from posenc.i18n import N_, _
from posenc_core.encodings import alibi

DISTANCE_POINTS = 160  # log-spaced distances per attention curve (128 heads x 160 points ~ 0.3 MB)


MIN_WEIGHT = 1e-6  # bottom of the attention-weight axis


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
    title=N_("ALiBi attention to past tokens"),
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
            name=_("head {head}").format(head=h),
            line={"color": colors[h], "width": 1.5},
            showlegend=legend,
            hovertemplate=_("head {head}, m = {slope:.4g}<br>d + 1 = %{{x:,.0f}}<br>weight: %{{y:.4g}}").format(
                head=h, slope=float(slopes[h])
            )
            + "<extra></extra>",
        )
        for h in range(n_heads)
    ]
    fig = go.Figure(traces)
    fig.update_layout(
        title=_("Attention to the key d tokens back (equal content)<br>query at L−1, {describe}, L={length:,}").format(
            describe=describe(p), length=length
        ),
        xaxis={"type": "log", "title": _("distance d + 1 (tokens; 1 = the query itself)"), "exponentformat": "power"},
        yaxis={
            "type": "log",
            "range": [math.log10(MIN_WEIGHT), 0],
            "title": _("attention weight"),
            "exponentformat": "power",
            "dtick": 1,
        },
        height=460,
        margin={"t": 95},
    )
    dense = min(DISTANCE_POINTS // 4, length)
    drawn = (
        _("all {length:,} distances drawn").format(length=length)
        if distances.numel() == length
        else _("{count} distances drawn: every one below {dense}, log-spaced beyond").format(
            count=distances.numel(), dense=dense
        )
    )
    notes = (
        _("weight(d) = e^(−m·d)·(1 − e^(−m)) / (1 − e^(−m·L)), the softmax of −m·d over the L keys; {drawn}").format(
            drawn=drawn
        ),
    )
    if not legend:
        notes += (_("colour: slope, dark = steepest head, yellow = shallowest"),)
    data = {"distance": as_array(distances), "weight": weights, "slope": as_array(slopes)}
    return FigureResult(fig, data, notes)


@register(
    "alibi-span",
    title=N_("ALiBi effective span per head"),
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
            hovertemplate=_("head %{x}, m = %{customdata:.4g}<br>effective span: %{y:,.0f} tokens") + "<extra></extra>",
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
        title=_(
            "Effective span: tokens holding {mass:.1%} of the attention<br>query at L−1, {describe}, L={length:,}"
        ).format(mass=p["mass"], describe=describe(p), length=length),
        xaxis_title=_("head h"),
        yaxis={
            "type": "log",
            "title": _("effective span (tokens)"),
            "exponentformat": "power",
            "dtick": 1,
            "range": [-0.1, math.log10(max(length, 2)) + 0.25],
        },
        height=460,
        margin={"t": 95},
    )
    notes = (
        _(
            "effective span: the fewest most recent keys holding {mass:.1%} of a head's attention when all content "
            "scores are equal; about ln(1/(1 − mass))/m tokens, whatever the context length"
        ).format(mass=p["mass"]),
    )
    return FigureResult(fig, {"slope": as_array(slopes), "effective_span": span}, notes)
