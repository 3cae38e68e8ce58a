"""RoPE: one frequency pair turning. The point (cos mθ_i, sin mθ_i) on the unit circle over the pair's first turn,
where the order of the positions can be read, and the same two coordinates against the position m over its first few
turns (cos/sin from the core, in float32 as HF computes them)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from posenc.drawing.common import LEGEND_BELOW, as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY, REFERENCE_INK, SEQUENTIAL_SCALE
from posenc.figures.rope.frequencies import TWO_PI, describe, rotary_inv_freq
from posenc.i18n import N_, _
from posenc_core import rope, sampling

ROTATION_POSITIONS = sampling.MAX_CELLS_PER_AXIS  # positions in a window (the page's other figures draw as many)


CIRCLE_TURNS = 1  # the circle draws the pair's first turn from the first position in view (no point hides another)


TURNS = 3  # the waves draw its first 3 turns


TURN_POINTS = sampling.MAX_CURVE_POINTS // 2  # at most this many positions per curve (every one when they fit)


MARKED_UP_TO = 128  # curves of at most this many positions mark each position


LABEL_GAP = math.radians(30)  # the positions labelled on the circle are at least 30° apart


LABEL_RADIUS = 1.08  # labels sit just outside the circle, pushed outward by their text position


def view_range(p: Mapping[str, Any]) -> tuple[int, int]:
    """The first and last position in view: a window of ROTATION_POSITIONS from ``start``, or 0 .. seq_len - 1."""
    length = p["seq_len"]
    if p["view"] != "window":
        return 0, length - 1
    if p["start"] >= length:
        raise ValueError(
            _("start must be < seq_len={length:,} in the window view (got {start:,})").format(
                length=length, start=p["start"]
            )
        )
    return p["start"], min(p["start"] + ROTATION_POSITIONS, length) - 1


def turn_positions(
    p: Mapping[str, Any], wavelength: float, turns: int, *, closed: bool = True
) -> tuple[torch.Tensor, str]:
    """The positions drawn: from the first position in view, every position over the pair's first ``turns`` turns
    (with the one that completes them when ``closed``; without it, no point lands on the first one), or over the whole
    view when it is shorter; evenly spaced exact positions when more than TURN_POINTS (a slow pair over a long
    context). (positions, note)."""
    first, last_in_view = view_range(p)
    last = min(last_in_view, first + math.ceil(turns * wavelength) - (0 if closed else 1))
    count = last - first + 1
    if last >= last_in_view:
        reach = _("the whole view")
    elif turns > 1:
        reach = _("the first {turns} turns (λ_i = {wavelength:,.4g} tokens)").format(turns=turns, wavelength=wavelength)
    else:
        reach = _("the first turn (λ_i = {wavelength:,.4g} tokens)").format(wavelength=wavelength)
    if count <= TURN_POINTS:
        note = _("every position from {first:,} to {last:,}: {reach}").format(first=first, last=last, reach=reach)
        return torch.arange(first, last + 1), note
    positions = first + sampling.sampled_positions(count, TURN_POINTS)
    return positions, _(
        "positions {first:,} to {last:,}, {reach}: {shown:,} evenly spaced of {count:,} (exact values; at most "
        "{gap:.2g} rad apart)"
    ).format(
        first=first,
        last=last,
        reach=reach,
        shown=positions.numel(),
        count=count,
        gap=TWO_PI / wavelength * float(positions.diff().max()),
    )


def labelled(positions: torch.Tensor, theta: float) -> np.ndarray:
    """Indices of the positions labelled on the circle: the first, then one every LABEL_GAP of angle within the
    first turn (every position of a fast pair), or the first and the last when the whole arc is shorter."""
    angle = (positions - positions[0]).double() * theta  # turned since the first position
    chosen, next_angle = [], 0.0
    for index, value in enumerate(angle.tolist()):
        if value > TWO_PI - LABEL_GAP:
            break
        if value >= next_angle:
            chosen.append(index)
            next_angle = value + LABEL_GAP
    if len(chosen) == 1 and positions.numel() > 1:
        chosen.append(positions.numel() - 1)
    return np.asarray(chosen)


@dataclass(frozen=True)
class PairTurn:
    """One pair over the positions drawn: its angle per token, wavelength, the positions and cos, sin there."""

    pair: int
    theta: float
    wavelength: float
    positions: torch.Tensor
    note: str
    cos: np.ndarray
    sin: np.ndarray


def turn_of(p: Mapping[str, Any], turns: int, *, closed: bool = True) -> PairTurn:
    inv_freq, pair = rotary_inv_freq(p), p["pair"]
    if pair >= inv_freq.numel():
        raise ValueError(
            _("pair must be < d/2 = {pairs}, the number of rotary pairs for {describe} (got {pair})").format(
                pairs=inv_freq.numel(), describe=describe(p, length=False), pair=pair
            )
        )
    theta, wavelength = float(inv_freq[pair]), float(rope.wavelengths(inv_freq)[pair])
    positions, note = turn_positions(p, wavelength, turns, closed=closed)
    cos, sin = rope.cos_sin(positions, inv_freq[pair : pair + 1], device=p["device"])  # (P, 2): both columns θ_i
    return PairTurn(pair, theta, wavelength, positions, note, as_array(cos[:, 0]), as_array(sin[:, 0]))


@register(
    "rope-pair-rotation",
    title=N_("RoPE: one pair's rotation across positions"),
    page="rope",
    params=("seq_len", "head_dim", "base", "partial_rotary_factor", "pair", "view", "start"),
)
def pair_rotation(p: Mapping[str, Any]) -> FigureResult:
    circle, waves = turn_of(p, CIRCLE_TURNS, closed=False), turn_of(p, TURNS)
    fig = make_subplots(  # one above the other: a phone has no room for the circle beside the waves
        rows=2,
        cols=1,
        row_heights=[0.58, 0.42],
        vertical_spacing=0.2,
        subplot_titles=(
            _("on the unit circle: the first turn"),
            _("against the position: the first {turns} turns").format(turns=TURNS),
        ),
    )
    _draw_circle(fig, circle)
    x, marked = as_array(waves.positions), waves.positions.numel() <= MARKED_UP_TO
    for name, values, color in (("cos mθ_i", waves.cos, COLORWAY[0]), ("sin mθ_i", waves.sin, COLORWAY[1])):
        fig.add_scatter(
            x=x,
            y=values,
            mode="lines+markers" if marked else "lines",
            name=name,
            line={"color": color},
            marker={"color": color, "size": 4},
            hovertemplate=_("position m %{{x:,}}<br>{name} %{{y:.5f}}").format(name=name) + "<extra></extra>",
            row=2,
            col=1,
        )
    for count in range(1, TURNS + 1):  # every full turn, λ_i apart
        if x[0] + count * waves.wavelength <= x[-1]:
            fig.add_vline(x=float(x[0] + count * waves.wavelength), line={"color": "#999", "dash": "dot"}, row=2, col=1)
    fig.update_xaxes(title_text=_("position m (tokens)"), row=2, col=1)
    fig.update_yaxes(range=[-1.1, 1.1], row=2, col=1)
    fig.update_layout(  # the app wraps it to the chart's width (drawing.phone_fit)
        title=_("Pair i={pair} turning: θ_i={theta:.4g} rad/token, λ_i={wavelength:,.4g} tokens, {describe}").format(
            pair=circle.pair, theta=circle.theta, wavelength=circle.wavelength, describe=describe(p, length=False)
        ),
        height=820,
        legend=LEGEND_BELOW,
    )
    first, last = view_range(p)
    notes = (
        _("circle: {circle}; waves: {waves}; the dotted lines mark every full turn").format(
            circle=circle.note, waves=waves.note
        ),
        _(
            "Over the positions in view, {first:,} to {last:,}, pair {pair} turns {turns:,.4g} times ({degrees:.4g}° "
            "per token, anticlockwise)."
        ).format(
            first=first,
            last=last,
            pair=circle.pair,
            turns=(last - first) * circle.theta / TWO_PI,
            degrees=math.degrees(circle.theta),
        ),
    )
    data = {"positions": x, "cos": waves.cos, "sin": waves.sin}
    return FigureResult(fig, data, notes)


def _draw_circle(fig: go.Figure, turn: PairTurn) -> None:
    """The unit circle, the pair's points coloured by position, and positions labelled in order (row 1)."""
    x, marked = as_array(turn.positions), turn.positions.numel() <= MARKED_UP_TO
    circle = np.linspace(0.0, TWO_PI, 241)
    fig.add_scatter(
        x=np.cos(circle),
        y=np.sin(circle),
        mode="lines",
        line={"color": "#bbb"},
        hoverinfo="skip",
        showlegend=False,
        row=1,
        col=1,
    )
    fig.add_scatter(
        x=turn.cos,
        y=turn.sin,
        mode="lines+markers",
        line={"color": "rgba(120,120,120,0.35)", "width": 1},
        marker={  # the first position larger, ringed
            "color": x,
            "colorscale": SEQUENTIAL_SCALE,
            "size": [12] + [7 if marked else 4] * (len(x) - 1),
            "line": {"color": REFERENCE_INK, "width": [1.5] + [0] * (len(x) - 1)},
        },
        name=_("position m"),
        hovertemplate=_("position m %{marker.color:,}<br>cos mθ_i %{x:.5f}<br>sin mθ_i %{y:.5f}") + "<extra></extra>",
        showlegend=False,
        row=1,
        col=1,
    )
    shown = labelled(turn.positions, turn.theta)
    fig.add_scatter(
        x=LABEL_RADIUS * turn.cos[shown],
        y=LABEL_RADIUS * turn.sin[shown],
        mode="text",
        text=[f"m={int(m):,}" if n == 0 else f"{int(m):,}" for n, m in enumerate(x[shown])],
        textposition=[_outward(c, s) for c, s in zip(turn.cos[shown], turn.sin[shown], strict=True)],
        name=_("positions labelled"),
        cliponaxis=False,  # "m=0" beside the rightmost point reaches past the axis' range
        hoverinfo="skip",
        showlegend=False,
        row=1,
        col=1,
    )
    reach = LABEL_RADIUS + 0.5  # room for a label beside the circle
    fig.update_xaxes(title_text="cos mθ_i", range=[-reach, reach], constrain="domain", row=1, col=1)
    fig.update_yaxes(
        title_text="sin mθ_i", range=[-reach, reach], scaleanchor="x", scaleratio=1, constrain="domain", row=1, col=1
    )


def _outward(cos: float, sin: float) -> str:
    """A label's text position pointing away from the circle's centre."""
    vertical = "top" if sin > 0.5 else "bottom" if sin < -0.5 else "middle"
    horizontal = "right" if cos > 0.5 else "left" if cos < -0.5 else "center"
    return f"{vertical} {horizontal}"
