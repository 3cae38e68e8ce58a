"""RoFormer's long-term decay bound of each RoPE scheme in the comparison."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from plotly.subplots import make_subplots

from posenc.drawing.common import LEGEND_BELOW, as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY
from posenc.figures.compare.curves import distances
from posenc.figures.compare.items import COMPARE_CURVES, parse_schemes
from posenc.figures.compare.params import COMPARE_PARAMS
from posenc.i18n import N_, _
from posenc_core.rope import bounds as rope_bounds


@register(
    "compare-decay",
    title=N_("RoFormer long-term decay bound of the RoPE schemes"),
    page="compare",
    params=COMPARE_PARAMS,
)
def decay_curves(p: Mapping[str, Any]) -> FigureResult:
    schemes, (ks, note) = parse_schemes(p["schemes"], p), distances(p)
    fig = make_subplots(rows=1, cols=1)
    data = {"distance": as_array(ks)}
    hover = _("distance k %{x:,}<br>bound ÷ bound(0) %{y:.6g}") + "<extra></extra>"
    for i, s in enumerate(schemes):
        frequencies = COMPARE_CURVES[s.kind].inv_freq
        if frequencies is None:
            continue
        inv = frequencies(s, p)[0]
        bound = rope_bounds.decay_bound_for_frequencies(inv, torch.cat([ks.new_zeros(1), ks]), dtype=torch.float64)
        bound = bound[1:] / bound[0]
        fig.add_scatter(
            x=as_array(ks),
            y=as_array(bound),
            mode="lines",
            name=s.label,
            line={"color": COLORWAY[i % len(COLORWAY)]},
            hovertemplate=f"{s.label}<br>{hover}",
        )
        data[f"bound_{i}"] = as_array(bound)
    if len(data) == 1:
        fig.add_annotation(
            text=_("No RoPE item in the list: add rope or rope:&lt;preset&gt; to see its bound"),
            showarrow=False,
            xref="paper",
            yref="paper",
            x=0.5,
            y=0.5,
        )
    log_x = p["distance_axis"] == "log"
    fig.update_xaxes(type="log" if log_x else "linear", title_text=_("relative distance k (tokens)"))
    fig.update_yaxes(title_text=_("bound ÷ bound at k = 0"))
    fig.update_layout(
        title=_("RoFormer decay bound (1/(d/2)) Σ_j |S_j(k)|, relative to k = 0, L={length:,}").format(
            length=p["seq_len"]
        ),
        height=420,
        legend=LEGEND_BELOW,
    )
    notes = (
        note,
        _(
            "S_j(k) = Σ_{i<j} e^{i·k·θ_i} over the rotated pairs; |q·R(k)k| ≤ max_i |h_{i+1} − h_i|·Σ_j |S_j(k)| "
            "(RoFormer §3.4.3): the bound shrinks as k grows, slower where the frequencies are lower"
        ),
    )
    return FigureResult(fig, data, notes)
