"""RoPE channel layouts and partial rotary: which channels of a head rotate together, and which pass through.

half (rotate_half: GPT-NeoX, HF Llama) pairs channel j with j + d/2; interleaved (GPT-J, DeepSeek) pairs 2i
with 2i+1. With partial rotary only the first d = int(head_dim * partial_rotary_factor) channels rotate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.common import as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import SEQUENTIAL_SCALE
from posenc.figures.rope.frequencies import describe, rotary_dim, rotary_inv_freq
from posenc.i18n import N_, _
from posenc_core import rope

PASS_COLOR = "#c8c8c8"


def partner_channels(pair_of: np.ndarray) -> np.ndarray:
    """For each rotary channel, the other channel of its pair (the one with the same pair index)."""
    by_pair = np.argsort(pair_of, kind="stable").reshape(-1, 2)  # (d/2, 2): the two channels of pair i
    partner = np.empty_like(pair_of)
    partner[by_pair[:, 0]], partner[by_pair[:, 1]] = by_pair[:, 1], by_pair[:, 0]
    return partner


@register(
    "rope-channels",
    title=N_("RoPE channel map: layout and partial rotary"),
    page="rope",
    params=("head_dim", "base", "partial_rotary_factor", "rope_layout"),
)
def channel_map(p: Mapping[str, Any]) -> FigureResult:
    head_dim, dim, layout = p["head_dim"], rotary_dim(p), p["rope_layout"]
    inv_freq = rotary_inv_freq(p)
    pair_of = rope.channel_pair_index(dim, layout, device="cpu").numpy()
    wavelengths = as_array(rope.wavelengths(inv_freq))
    channels = np.arange(head_dim)
    pair_row = np.full(head_dim, np.nan, dtype=np.float32)
    pair_row[:dim] = pair_of
    partner = np.full(head_dim, np.nan, dtype=np.float32)
    partner[:dim] = partner_channels(pair_of)
    wavelength = np.full(head_dim, np.nan, dtype=np.float32)
    wavelength[:dim] = wavelengths[pair_of]
    fig = go.Figure()
    fig.add_heatmap(
        z=pair_row[None, :],
        x=channels,
        y=[_("pair i")],
        customdata=np.stack([partner, wavelength], axis=-1)[None, :, :],
        colorscale=SEQUENTIAL_SCALE,
        zmin=0,
        zmax=max(dim // 2 - 1, 1),
        colorbar={"title": {"text": _("pair i")}},
        hovertemplate=_(
            "channel %{x}<br>pair i %{z}<br>turns with channel %{customdata[0]}<br>wavelength %{customdata[1]:,.6g} "
            "tokens"
        )
        + "<extra></extra>",
        xgap=1,
    )
    if dim < head_dim:
        passing = np.where(np.arange(head_dim) >= dim, 0.0, np.nan).astype(np.float32)
        fig.add_heatmap(
            z=passing[None, :],
            x=channels,
            y=[_("pair i")],
            colorscale=[[0, PASS_COLOR], [1, PASS_COLOR]],
            showscale=False,
            hovertemplate=_("channel %{x}<br>passes through unrotated") + "<extra></extra>",
            xgap=1,
        )
        fig.add_annotation(
            x=(dim + head_dim - 1) / 2,
            y=0,
            text=_("pass-through: channels {first}–{last}").format(first=dim, last=head_dim - 1),
            showarrow=False,
        )
    fig.update_xaxes(title_text=_("channel j of the head"), range=[-0.5, head_dim - 0.5])
    fig.update_yaxes(showticklabels=False)
    fig.update_layout(
        title=_("Channel → pair map, layout={layout}, {describe}").format(
            layout=layout, describe=describe(p, length=False)
        ),
        height=230,
    )
    if layout == "half":
        how = _(
            "{dim} of {head_dim} channels rotate in {pairs} pairs. Layout half (rotate_half, GPT-NeoX / HF Llama): "
            "channel j rotates with channel j + {pairs} (pair j mod {pairs}), so the pair colours repeat twice."
        )
    else:
        how = _(
            "{dim} of {head_dim} channels rotate in {pairs} pairs. Layout interleaved (GPT-J, DeepSeek): channels 2i "
            "and 2i+1 rotate together, so neighbours share a colour."
        )
    notes = [how.format(dim=dim, head_dim=head_dim, pairs=dim // 2)]
    if dim < head_dim:
        notes.append(
            _("Channels {first}–{last} pass through unrotated: they carry no position at all.").format(
                first=dim, last=head_dim - 1
            )
        )
    data = {"channel": channels.astype(np.float32), "pair": pair_row, "partner": partner, "wavelength": wavelength}
    return FigureResult(fig, data, tuple(notes))
