"""The linear map M_k that moves PE(p) to PE(p+k): a 2x2 rotation per frequency pair, checked on the table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from plotly.subplots import make_subplots

from figures.common import as_array
from figures.registry import FigureResult, register
from figures.shown import shown_positions
from figures.sinusoidal.params import describe
from figures.theme import DIVERGING_SCALE
from posenc_core import sampling, sinusoidal

LINEAR_MAP_MAX_D = 1024  # linear_map builds the dense d x d matrix M_k (1024²: 8 MB in float64)


LINEAR_MAP_PAIRS = 8  # M_k is drawn on the channels of its first 8 pairs


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
