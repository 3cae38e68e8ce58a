"""One wave per channel: PE[p, j] against the position, and the wavelength of every channel."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch

from posenc.drawing.common import LEGEND_BELOW, as_array, mark
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.shown import shown_channels
from posenc.drawing.theme import COLORWAY
from posenc.figures.sinusoidal.params import describe, shown
from posenc.i18n import N_, _
from posenc_core import sampling
from posenc_core.encodings import sinusoidal

CURVE_POSITIONS = sampling.MAX_CURVE_POINTS // 2  # points of one wave in an overview


ENVELOPE_COLUMNS = 1024  # min/max columns of an aliasing wave


@register(
    "sinusoidal-waves",
    title=N_("Sinusoidal PE: one wave per channel"),
    page="sinusoidal",
    params=("seq_len", "d_model", "base", "layout", "dims", "view", "start", "window"),
)
def channel_waves(p: Mapping[str, Any]) -> FigureResult:
    d_model, layout, device = p["d_model"], p["layout"], p["device"]
    dims = [j for j in p["dims"] if j < d_model]
    if not dims:
        message = _("dims must hold at least one channel < d_model={d_model} (got {dims})")
        raise ValueError(message.format(d_model=d_model, dims=list(p["dims"])))
    window = p["view"] == "window"
    positions, position_note = shown(p, sampling.MAX_CELLS_PER_AXIS if window else CURVE_POSITIONS)
    stride = sampling.sampling_stride(positions)
    wavelength = sinusoidal.wavelengths(d_model, base=p["base"], layout=layout, dtype=torch.float64, device="cpu")
    pair = sinusoidal.channel_pair_index(d_model, layout, device="cpu")
    kw = {"base": p["base"], "layout": layout, "device": device}
    fig, data, notes, banded = go.Figure(), {"positions": as_array(positions)}, [position_note], []
    for n, j in enumerate(dims):
        colour, lam = COLORWAY[n % len(COLORWAY)], float(wavelength[j])
        name = _("channel {j} (pair {pair}, λ={wavelength:,.4g})").format(j=j, pair=int(pair[j]), wavelength=lam)
        if sampling.is_sampled(positions) and sampling.aliases(stride, lam):
            every = torch.arange(p["seq_len"], dtype=torch.int64)
            values = sinusoidal.encoding(None, d_model, positions=every, channels=[j], **kw)[:, 0].cpu()
            env = sampling.envelope(values, ENVELOPE_COLUMNS)
            _add_envelope(fig, env, name, colour)
            data[f"channel_{j}_low"], data[f"channel_{j}_high"] = as_array(env.low), as_array(env.high)
            banded.append(j)
        else:
            values = sinusoidal.encoding(None, d_model, positions=positions, channels=[j], **kw)[:, 0]
            fig.add_trace(
                go.Scatter(
                    x=as_array(positions),
                    y=as_array(values),
                    mode="lines",
                    name=name,
                    line={"color": colour},
                    hovertemplate=_("channel {j}").format(j=j)
                    + "<br>"
                    + _("position %{x:,}<br>PE %{y:.6g}")
                    + "<extra></extra>",
                )
            )
            data[f"channel_{j}"] = as_array(values)
    if banded:
        notes.append(
            _(
                "channels {channels}: λ is shorter than twice the sampling step ({stride:,.0f}), so samples would "
                "alias; each band is the min..max of every position in {columns:,} columns"
            ).format(channels=", ".join(map(str, banded)), stride=stride, columns=ENVELOPE_COLUMNS)
        )
    dropped = [j for j in p["dims"] if j >= d_model]
    if dropped:
        notes.append(
            _("dims {dims} are not channels of d_model={d_model}: not drawn").format(
                dims=", ".join(map(str, dropped)), d_model=d_model
            )
        )
    fig.update_layout(
        title=_("PE[p, j] for channels j = {channels}; {described}").format(
            channels=", ".join(map(str, dims)), described=describe(p)
        ),
        xaxis_title=_("position p (tokens)"),
        yaxis_title="PE[p, j]",
        yaxis_range=[-1.1, 1.1],
        hovermode="closest",
        legend=LEGEND_BELOW,
    )
    return FigureResult(fig, data, tuple(notes))


def _add_envelope(fig: go.Figure, env: sampling.Envelope, name: str, colour: str) -> None:
    """A filled min..max band; hover names the columns' position range and the true extremes."""
    centre = as_array((env.first + env.last).double() / 2)
    extent = np.stack([as_array(env.first), as_array(env.last), as_array(env.low), as_array(env.high)], axis=1)
    hover = _("positions %{customdata[0]:,}..%{customdata[1]:,}<br>min %{customdata[2]:.4g}, max %{customdata[3]:.4g}")
    fig.add_trace(
        go.Scatter(
            x=centre,
            y=as_array(env.high),
            mode="lines",
            line={"color": colour, "width": 0.5},
            name=name,
            legendgroup=name,
            customdata=extent,
            hovertemplate=f"{name}<br>{hover}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=centre,
            y=as_array(env.low),
            mode="lines",
            line={"color": colour, "width": 0.5},
            fill="tonexty",
            name=name,
            legendgroup=name,
            showlegend=False,
            customdata=extent,
            opacity=0.5,
            hovertemplate=f"{name}<br>{hover}<extra></extra>",
        )
    )


TWO_PI = 2 * math.pi


_VASWANI = N_("ω_i = base^(−2i/d) stops at i = ⌈d/2⌉ − 1, short of 1/base, so the slowest λ is less than 2π·base")
SPACING = {  # how each layout spaces its frequencies (posenc_core.encodings.sinusoidal.inv_freq); shown with _()
    "interleaved": _VASWANI,
    "half": _VASWANI,
    "t2t": N_(
        "t2t spaces the timescales from 1 to base, ω_i = base^(−i/(d/2 − 1)), so the slowest λ is exactly 2π·base"
    ),
}


def slowest_wavelength(d_model: int, base: float, layout: str) -> tuple[float, str]:
    """The longest finite wavelength of the table and its formula: 2π·base^(2(⌈d/2⌉−1)/d) (interleaved, half:
    2π·base^((d−2)/d) for even d) or 2π·base (t2t). (tokens, formula)."""
    omega = sinusoidal.inv_freq(d_model, base=base, layout=layout, dtype=torch.float64, device="cpu")
    slowest = TWO_PI / float(omega[omega > 0].min())
    if layout == "t2t":
        return slowest, "2π·base"
    last = 2 * (math.ceil(d_model / 2) - 1)
    return slowest, f"2π·base^({last}/{d_model})"


@register(
    "sinusoidal-wavelengths",
    title=N_("Sinusoidal PE: wavelength of every channel"),
    page="sinusoidal",
    params=("seq_len", "d_model", "base", "layout"),
)
def channel_wavelengths(p: Mapping[str, Any]) -> FigureResult:
    d_model, layout = p["d_model"], p["layout"]
    channels, channel_note = shown_channels(d_model, layout, sampling.MAX_CURVE_POINTS // 2)
    wavelength = sinusoidal.wavelengths(d_model, base=p["base"], layout=layout, device=p["device"], dtype=torch.float64)
    pair = sinusoidal.channel_pair_index(d_model, layout, device="cpu")[channels]
    lam = wavelength.cpu()[channels]
    finite = torch.isfinite(lam)
    fig = go.Figure(
        go.Scatter(
            x=as_array(channels[finite]),
            y=as_array(lam[finite]),
            mode="markers" if channels.numel() <= 256 else "lines",
            name="λ_j = 2π / ω_i",
            customdata=as_array(pair[finite]),
            hovertemplate=_("channel %{x}<br>pair i = %{customdata}<br>λ = %{y:,.6g} tokens") + "<extra></extra>",
        )
    )
    mark(fig, p["seq_len"], f"L = {p['seq_len']:,}", axis="y", log=True)
    mark(fig, TWO_PI, _("2π: the fastest possible"), axis="y", log=True, dash="dot", anchor="right")
    fig.update_layout(
        title=_("Wavelength of each channel (from its pair index i), {described}").format(described=describe(p)),
        xaxis_title=_("channel j"),
        yaxis_title=_("wavelength λ (tokens)"),
        yaxis_type="log",
    )
    longer = int((lam[finite] > p["seq_len"]).sum())
    slowest, formula = slowest_wavelength(d_model, p["base"], layout)
    notes = [
        _("The slowest pair has λ = {formula} = {slowest:,.0f} tokens: {spacing}.").format(
            formula=formula, slowest=slowest, spacing=_(SPACING[layout])
        ),
        _(
            "{longer:,} of {shown:,} channels shown have λ > L = {seq_len:,}: over the whole context they turn by "
            "less than one period, so they tell far positions apart but not neighbours."
        ).format(longer=longer, shown=int(finite.sum()), seq_len=p["seq_len"]),
    ]
    if not bool(finite.all()):
        notes.append(_("the t2t padding channel of an odd d_model is constant 0 (λ = ∞): not drawn"))
    if channel_note:
        notes.append(channel_note)
    data = {"channels": as_array(channels), "pair_index": as_array(pair), "wavelength": as_array(lam)}
    return FigureResult(fig, data, tuple(notes))
