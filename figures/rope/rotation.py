"""RoPE: one frequency pair turning. The point (cos mθ_i, sin mθ_i) on the unit circle, and the same two
coordinates against the position m (cos/sin from the core, in float32 as HF computes them)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from plotly.subplots import make_subplots

from figures.common import as_array
from figures.registry import FigureResult, register
from figures.rope.frequencies import TWO_PI, aliasing_note, describe, rotary_inv_freq
from figures.shown import shown_positions
from figures.theme import COLORWAY, SEQUENTIAL_SCALE
from posenc_core import rope, sampling

ROTATION_POSITIONS = sampling.MAX_CELLS_PER_AXIS  # points on the circle and on each curve


TURNS_IN_VIEW = 4  # the cos/sin panel opens on the first 4 turns (all positions are in the figure: zoom out)


@register(
    "rope-pair-rotation",
    title="RoPE: one pair's rotation across positions",
    page="rope",
    params=("seq_len", "head_dim", "base", "partial_rotary_factor", "pair", "view", "start"),
)
def pair_rotation(p: Mapping[str, Any]) -> FigureResult:
    inv_freq, pair = rotary_inv_freq(p), p["pair"]
    if pair >= inv_freq.numel():
        raise ValueError(
            f"pair must be < d/2 = {inv_freq.numel()}, the number of rotary pairs for {describe(p, length=False)} "
            f"(got {pair})"
        )
    positions, position_note = shown_positions(p, p["seq_len"], ROTATION_POSITIONS)
    cos, sin = rope.cos_sin(positions, inv_freq[pair : pair + 1], device=p["device"])  # (P, 2): both columns θ_i
    cos, sin, x = as_array(cos[:, 0]), as_array(sin[:, 0]), as_array(positions)
    theta, wavelength = float(inv_freq[pair]), float(rope.wavelengths(inv_freq)[pair])
    sampled = sampling.is_sampled(positions)
    fig = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.42, 0.58],
        horizontal_spacing=0.16,
        subplot_titles=["on the unit circle", "against the position"],
    )
    first, last = int(positions[0]), int(positions[-1])
    stride = sampling.sampling_stride(positions)
    aliased = sampled and sampling.aliases(stride, wavelength)
    zoomed = last - first > TURNS_IN_VIEW * wavelength and not aliased
    circle = np.linspace(0.0, TWO_PI, 241)
    fig.add_scatter(
        x=np.cos(circle), y=np.sin(circle), mode="lines", line={"color": "#bbb"}, hoverinfo="skip", showlegend=False
    )
    fig.add_scatter(
        x=cos,
        y=sin,
        mode="markers" if sampled else "lines+markers",
        line={"color": "rgba(120,120,120,0.35)"},
        marker={
            "color": x,
            "colorscale": SEQUENTIAL_SCALE,
            "size": 6,
            "colorbar": {"title": {"text": "position m"}, "x": 0.36, "len": 0.9},
        },
        hovertemplate="position m %{marker.color:,}<br>cos mθ_i %{x:.5f}<br>sin mθ_i %{y:.5f}<extra></extra>",
        showlegend=False,
    )
    fig.add_annotation(x=cos[0], y=sin[0], text=f"m = {int(positions[0]):,}", showarrow=True, ax=30, ay=-30)
    for name, values, color in (("cos mθ_i", cos, COLORWAY[0]), ("sin mθ_i", sin, COLORWAY[1])):
        fig.add_scatter(
            x=x,
            y=values,
            mode="markers" if aliased else "lines",
            name=name,
            line={"color": color},
            marker={"color": color, "size": 3},
            row=1,
            col=2,
            hovertemplate=f"position m %{{x:,}}<br>{name} %{{y:.5f}}<extra></extra>",
        )
    fig.update_xaxes(title_text="cos(m·θ_i)", range=[-1.2, 1.2], row=1, col=1)
    fig.update_yaxes(title_text="sin(m·θ_i)", range=[-1.2, 1.2], scaleanchor="x", scaleratio=1, row=1, col=1)
    fig.update_xaxes(title_text="position m (tokens)", row=1, col=2)
    if zoomed:
        fig.update_xaxes(range=[first, first + TURNS_IN_VIEW * wavelength], row=1, col=2)
        fig.layout.annotations[1].text = f"against the position: first {TURNS_IN_VIEW} turns (zoom out for all)"
    fig.update_yaxes(range=[-1.1, 1.1], row=1, col=2)
    fig.update_layout(
        title=f"Pair i={pair}: θ_i={theta:.4g} rad/token, λ_i={wavelength:,.4g} tokens, {describe(p, length=False)}",
        height=460,
        legend={"x": 1.02, "y": 1.0, "xanchor": "left"},
    )
    turns = (last - first) * theta / TWO_PI
    notes = [
        position_note,
        f"From position {first:,} to {last:,} pair {pair} turns {turns:,.4g} times "
        f"({math.degrees(theta):.4g}° per token).",
    ]
    alias = aliasing_note(positions, torch.tensor([wavelength]), first_pair=pair)
    if alias:
        notes.append(alias)
    return FigureResult(fig, {"positions": x, "cos": cos, "sin": sin}, tuple(notes))
