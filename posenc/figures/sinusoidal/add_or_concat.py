"""Adding PE to a token embedding or concatenating it: what each does to the token's direction."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch
from plotly.subplots import make_subplots

from posenc.drawing.common import LEGEND_BELOW, as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY
from posenc.figures.sinusoidal.params import describe, shown
from posenc.i18n import N_, _
from posenc_core import sampling
from posenc_core.encodings import sinusoidal
from posenc_core.teaching import attention

TOKEN_SEED = 0


@register(
    "sinusoidal-add-vs-concat",
    title=N_("Adding PE to a token embedding vs concatenating it"),
    page="sinusoidal",
    params=("seq_len", "d_model", "base", "layout", "token_scale", "view", "start", "window"),
)
def add_versus_concatenate(p: Mapping[str, Any]) -> FigureResult:
    d_model, scale = p["d_model"], p["token_scale"]
    positions, note = shown(p, sampling.MAX_CELLS_PER_AXIS)
    pe = sinusoidal.encoding(None, d_model, base=p["base"], layout=p["layout"], positions=positions, device=p["device"])
    pe = pe.double()
    direction = attention.token_embeddings(["token"], d_model, seed=TOKEN_SEED, device=pe.device)[0].double()
    token = direction / direction.norm() * scale * math.sqrt(d_model / 2)  # ‖e‖ = scale · √(d/2)
    pe_norm = pe.norm(dim=1)
    added = token + pe  # (P, d)
    cos_added = (added @ token) / (added.norm(dim=1) * token.norm())
    norm_concat = torch.sqrt(token.norm() ** 2 + pe_norm**2)  # ‖[e; PE(p)]‖
    cos_concat = token.norm() / norm_concat  # cos([e; 0], [e; PE(p)])
    fig = make_subplots(  # one above the other: they share the position axis, and a phone has no room beside
        rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.1, subplot_titles=(_("cosine with e"), _("norm"))
    )
    added_name, concatenated_name = _("added: e + PE(p)"), _("concatenated: [e; PE(p)]")
    curves = (  # (key, legend, quantity, values, subplot row, colour)
        ("cos_added", added_name, _("cosine with e"), cos_added, 1, COLORWAY[0]),
        ("cos_concatenated", concatenated_name, _("cosine with [e; 0]"), cos_concat, 1, COLORWAY[1]),
        ("norm_added", added_name, "‖e + PE(p)‖", added.norm(dim=1), 2, COLORWAY[0]),
        ("norm_concatenated", concatenated_name, "‖[e; PE(p)]‖", norm_concat, 2, COLORWAY[1]),
        ("norm_token", _("the token alone: e"), "‖e‖", token.norm().expand(positions.numel()), 2, "#777777"),
    )
    for key, legend, quantity, values, row, colour in curves:
        fig.add_scatter(
            x=as_array(positions),
            y=as_array(values),
            mode="lines",
            name=legend,
            legendgroup=legend,
            showlegend=key != "norm_added" and key != "norm_concatenated",
            line={"color": colour, "dash": "dot" if key == "norm_token" else "solid"},
            hovertemplate=quantity + "<br>" + _("position %{x:,}") + "<br>%{y:.6g}<extra></extra>",
            row=row,
            col=1,
        )
    fig.update_xaxes(title_text=_("position p (tokens)"), row=2, col=1)
    fig.update_yaxes(title_text=_("cosine"), row=1, col=1)
    fig.update_yaxes(title_text=_("norm"), rangemode="tozero", row=2, col=1)
    fig.update_layout(
        title=_("A random token embedding e with ‖e‖ = {scale:g}·‖PE‖, {described}").format(
            scale=scale, described=describe(p)
        ),
        height=600,
        legend=LEGEND_BELOW,
    )
    data = {key: as_array(values) for key, _, _, values, *_ in curves}
    notes = (
        note,
        _(
            "added: cosine with e between {low:.3f} and {high:.3f}; concatenated: always {concatenated:.3f} (e keeps "
            "its own {d_model:,} channels, the width doubles)"
        ).format(
            low=float(cos_added.min()),
            high=float(cos_added.max()),
            concatenated=float(cos_concat.mean()),
            d_model=d_model,
        ),
    )
    return FigureResult(fig, {"positions": as_array(positions), **data}, notes)
