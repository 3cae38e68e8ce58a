"""RoPE: the rotation angle of every pair at every position and the wavelength of each pair.

The frequencies respect the preset's ``head_dim``, ``base`` and ``partial_rotary_factor`` (only the first
``int(head_dim * partial_rotary_factor)`` channels rotate). One pair's turn is in :mod:`figures.rope.rotation`,
the channel map (layouts, partial rotary) in :mod:`figures.rope.layout`, the relative property and the
long-term decay in :mod:`figures.rope.relative` and :mod:`figures.rope.decay`.
Angles are computed by the core in float32, as HF computes them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch

from posenc.drawing.common import LEGEND_BELOW, as_array, heatmap
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.shown import shown_positions
from posenc.drawing.theme import COLORWAY, CYCLIC_SCALE, REFERENCE_INK
from posenc.figures.rope.frequencies import TWO_PI, aliasing_note, describe, rotary_inv_freq
from posenc.i18n import N_, _
from posenc_core import rope, sampling

ANGLE_POSITIONS = sampling.MAX_CELLS_PER_AXIS  # columns of the angle heatmap (rows: at most 256 pairs)


ANGLE_TICKS = {
    "tickvals": [0, math.pi / 2, math.pi, 3 * math.pi / 2, TWO_PI],
    "ticktext": ["0", "π/2", "π", "3π/2", "2π"],
}


@register(
    "rope-angles",
    title=N_("RoPE rotation angles (position x pair)"),
    page="rope",
    params=("seq_len", "head_dim", "base", "partial_rotary_factor", "view", "start"),
)
def angle_heatmap(p: Mapping[str, Any]) -> FigureResult:
    inv_freq = rotary_inv_freq(p)
    positions, position_note = shown_positions(p, p["seq_len"], ANGLE_POSITIONS)
    theta = rope.angles(positions, inv_freq)  # (P, d/2)
    wrapped = torch.remainder(theta, TWO_PI).T  # (d/2, P)
    pairs = np.arange(inv_freq.numel())
    fig = heatmap(
        wrapped,
        positions.numpy(),
        pairs,
        title=_("RoPE angle m·θ_i mod 2π, {describe}").format(describe=describe(p)),
        x_title=_("position m (tokens)"),
        y_title=_("pair index i"),
        value_name=_("angle mod 2π (rad)"),
        colorscale=CYCLIC_SCALE,
        zmin=0.0,
        zmax=TWO_PI,
    )
    fig.update_traces(
        colorbar={**ANGLE_TICKS, "title": {"text": _("angle")}, "thickness": 14}
    )  # narrow: room on a phone
    fig.update_layout(height=480)
    alias = aliasing_note(positions, rope.wavelengths(inv_freq))
    notes = (position_note, *([alias] if alias else ()))
    data = {"angle_mod_2pi": as_array(wrapped), "positions": as_array(positions), "pairs": pairs.astype(np.float32)}
    return FigureResult(fig, data, notes)


@register(
    "rope-wavelengths",
    title=N_("RoPE wavelength per pair against the context length"),
    page="rope",
    params=("seq_len", "head_dim", "base", "partial_rotary_factor"),
)
def wavelength_curve(p: Mapping[str, Any]) -> FigureResult:
    length = p["seq_len"]
    wavelengths = as_array(rope.wavelengths(rotary_inv_freq(p)))
    pairs = np.arange(wavelengths.size)
    slow = wavelengths > length
    fig = go.Figure()
    for name, chosen, color in (
        (_("at least one turn within L"), ~slow, COLORWAY[0]),
        (_("less than one turn within L"), slow, COLORWAY[1]),
    ):
        if chosen.any():
            fig.add_scatter(
                x=pairs[chosen],
                y=wavelengths[chosen],
                customdata=length / wavelengths[chosen],
                mode="lines+markers",
                name=name,
                marker={"color": color, "size": 5},
                line={"color": color},
                hovertemplate=_("pair i %{x}<br>wavelength %{y:,.6g} tokens<br>turns within L: %{customdata:.4g}")
                + "<extra></extra>",
            )
    fig.add_hline(y=length, line={"dash": "dash", "color": REFERENCE_INK})
    fig.add_annotation(  # annotations on a log axis take log10(y)
        x=0,
        xref="x domain",
        xanchor="left",
        y=math.log10(length),
        yanchor="bottom",
        showarrow=False,
        text=_("context L = {length:,}").format(length=length),
    )
    fig.update_yaxes(type="log", title_text=_("wavelength λ_i = 2π/θ_i (tokens)"))
    fig.update_xaxes(title_text=_("pair index i"))
    fig.update_layout(
        title=_("RoPE wavelength per pair, {describe}").format(describe=describe(p)),
        height=440,
        hovermode="closest",
        legend=LEGEND_BELOW,
    )
    if slow.any():
        first = int(pairs[slow][0])
        note = _(
            "{slow} of {pairs} pairs (i ≥ {first}) have λ_i > L = {length:,}: over the whole context they turn less "
            "than once, so their angle never wraps around."
        ).format(slow=int(slow.sum()), pairs=pairs.size, first=first, length=length)
    else:
        note = _("Every pair turns at least once within L = {length:,} (the slowest: {turns:.3g} turns).").format(
            length=length, turns=length / wavelengths[-1]
        )
    return FigureResult(fig, {"pairs": pairs.astype(np.float32), "wavelength": wavelengths}, (note,))
