"""The linear map M_k that moves PE(p) to PE(p+k): a 2x2 rotation per frequency pair (one figure), checked on the
table (another: a page sets them side by side, stacked on a phone)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch

from posenc.drawing.common import as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import DIVERGING_SCALE
from posenc.figures.sinusoidal.params import describe, shown
from posenc.i18n import N_, _
from posenc_core import sampling
from posenc_core.encodings import sinusoidal

LINEAR_MAP_MAX_D = 1024  # linear_map builds the dense d x d matrix M_k (1024²: 8 MB in float64)


LINEAR_MAP_PAIRS = 8  # M_k is drawn on the channels of its first 8 pairs


def _checked(p: Mapping[str, Any], *, length: bool = True) -> tuple[int, dict[str, Any], str]:
    """(d the check uses, the core's keywords, the title's parameters): M_k is dense, so d is at most
    LINEAR_MAP_MAX_D (the property holds pair by pair, whatever d)."""
    d_check = min(p["d_model"], LINEAR_MAP_MAX_D)
    kw = {"base": p["base"], "layout": p["layout"], "device": p["device"], "dtype": torch.float64}
    described = describe(p, length=length)
    if d_check < p["d_model"]:
        shortened = _("d_model={used} (of {total})").format(used=d_check, total=p["d_model"])
        described = described.replace(f"d_model={p['d_model']}", shortened)
    return d_check, kw, described


@register(
    "sinusoidal-linear-map",
    title=N_("Sinusoidal PE: the matrix M_k"),
    page="sinusoidal",
    params=("d_model", "base", "layout", "offset"),
)
def linear_map_matrix(p: Mapping[str, Any]) -> FigureResult:
    k = p["offset"]
    d_check, kw, described = _checked(p, length=False)
    m_k = sinusoidal.linear_map(k, d_check, **kw)  # (d, d)
    pair = sinusoidal.channel_pair_index(d_check, p["layout"], device="cpu")
    corner = torch.nonzero(pair < LINEAR_MAP_PAIRS).flatten()
    names = [f"{int(j)}" for j in corner]
    shown_corner = as_array(m_k[corner][:, corner])
    fig = go.Figure(
        go.Heatmap(
            z=shown_corner,
            x=names,
            y=names,
            colorscale=DIVERGING_SCALE,
            zmid=0,
            zmin=-1,
            zmax=1,
            colorbar={"title": {"text": "M_k"}, "thickness": 12},
            hovertemplate=_("row channel %{y}<br>column channel %{x}<br>M_k %{z:.6g}") + "<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", type="category", title_text=_("channel (row)"), scaleanchor="x")
    fig.update_xaxes(type="category", title_text=_("channel (column)"), constrain="domain")
    title = _("M_k on the channels of pairs 0..{last}, k={k:,}").format(last=LINEAR_MAP_PAIRS - 1, k=k)
    fig.update_layout(title=f"{title}<br>{described}", height=480)
    notes = [_("one 2×2 rotation by k·ω_i per pair (red +1, blue −1, white 0); zero between pairs")]
    if d_check < p["d_model"]:
        notes.append(
            _(
                "M_k is a dense d x d matrix; for d_model={d_model:,} it would take {megabytes:,.0f} MB, so it is "
                "drawn and checked with d_model={used:,} (same base and layout): the property holds pair by pair, "
                "whatever d_model"
            ).format(d_model=p["d_model"], megabytes=p["d_model"] ** 2 * 8 / 2**20, used=d_check)
        )
    return FigureResult(fig, {"m_k_corner": shown_corner}, tuple(notes))


@register(
    "sinusoidal-linear-map-error",
    title=N_("Sinusoidal PE: PE(p+k) = M_k PE(p), checked"),
    page="sinusoidal",
    params=("seq_len", "d_model", "base", "layout", "offset", "view", "start", "window"),
)
def linear_map_check(p: Mapping[str, Any]) -> FigureResult:
    k = p["offset"]
    d_check, kw, described = _checked(p)
    positions, note = shown(p, sampling.MAX_CELLS_PER_AXIS)
    m_k = sinusoidal.linear_map(k, d_check, **kw)  # (d, d)
    moved = sinusoidal.encoding(None, d_check, positions=positions, **kw) @ m_k.T  # rows: M_k PE(p)
    target = sinusoidal.encoding(None, d_check, positions=positions + k, **kw)
    error = (moved - target).abs().amax(dim=1)  # (P,)
    fig = go.Figure(
        go.Scatter(
            x=as_array(positions),
            y=np.asarray(error.cpu(), dtype=np.float32),
            mode="lines+markers" if positions.numel() <= 64 else "lines",
            name=_("max error"),
            hovertemplate=_("position p %{x:,}<br>max error %{y:.3g}") + "<extra></extra>",
        )
    )
    fig.update_xaxes(title_text=_("position p (tokens)"))
    fig.update_yaxes(title_text=_("max |error| over channels"), exponentformat="e")
    fig.update_layout(title=f"|M_k PE(p) − PE(p+k)|, k={k:,}<br>{described}", height=480)
    notes = [
        note,
        _("largest error over these positions and all {channels:,} channels: {error:.3g} (float64)").format(
            channels=d_check, error=float(error.max())
        ),
    ]
    if d_check % 2 and p["layout"] != "t2t":
        notes.append(_("odd d_model: the last sin channel has no cos partner, so M_k cannot move it exactly"))
    return FigureResult(fig, {"positions": as_array(positions), "max_error": as_array(error)}, tuple(notes))
