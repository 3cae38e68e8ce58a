"""Context extension, the base calculator: the smallest RoPE base whose bound B(m) = Σ_i cos(m·θ_i) stays >= 0
over a target context (Men et al. 2024), and B(m) for the page's base against it.

The search (:func:`posenc_core.rope.bounds.min_base_for_context`) takes a second or more at 1M positions;
``ui.show.figure`` caches the built figure per parameter set and shows a spinner meanwhile, and the core keeps the
search's result per target and rotary dim, so a Sweep of the base searches once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.common import LEGEND_BELOW, as_array, mark
from posenc.drawing.registry import FigureResult, register
from posenc.figures.context.params import PAGE
from posenc.figures.context.style import VARIANT_COLOURS
from posenc.figures.context.variants import original_frequencies
from posenc.i18n import N_, _
from posenc_core.rope import bounds as rope_bounds


def _curve(fig: go.Figure, m, values, name: str, colour: str) -> None:
    fig.add_scatter(
        x=as_array(m),
        y=as_array(values),
        mode="lines",
        name=name,
        line={"color": colour},
        hovertemplate=name + "<br>m=%{x:,}<br>B(m)=%{y:.4f}<extra></extra>",
    )


def _verdict(base: float, smallest: float, lowest: float) -> str:
    if lowest >= 0:
        text = _("your base {base:g} is {ratio:.3g}× the smallest: B(m) >= 0 over the whole context")
    else:
        text = _("your base {base:g} is {ratio:.3g}× the smallest: B(m) < 0 inside the context")
    return text.format(base=base, ratio=base / smallest)


@register(
    "context-base-bound",
    title=N_("Smallest RoPE base for a target context (the bound B(m))"),
    page=PAGE,
    params=("head_dim", "partial_rotary_factor", "base", "target_context"),
)
def base_calculator(p: Mapping[str, Any]) -> FigureResult:
    target, base, device = p["target_context"], p["base"], p["device"]
    dim = 2 * original_frequencies(p).numel()
    smallest = rope_bounds.min_base_for_context(target, dim)
    m, values = rope_bounds.base_bound_curve(target, dim, base, device=device)
    m_min, values_min = rope_bounds.base_bound_curve(target, dim, smallest, device=device)
    worst = int(values.argmin())
    fig = go.Figure()
    _curve(fig, m_min, values_min, _("smallest base {base:,.0f}").format(base=smallest), "#999999")
    _curve(fig, m, values, _("your base {base:g}").format(base=base), VARIANT_COLOURS["yarn"])
    fig.add_scatter(
        x=[int(m[worst])],
        y=[float(values[worst])],
        mode="markers",
        marker={"size": 10, "color": VARIANT_COLOURS["yarn"], "symbol": "x"},
        name=_("your lowest B = {lowest:.4g} at m = {m:,}").format(lowest=float(values[worst]), m=int(m[worst])),
        hovertemplate="m=%{x:,}<br>B(m)=%{y:.4f}<extra></extra>",
    )
    mark(fig, 0.0, "B = 0", axis="y", anchor="right")
    fig.update_layout(
        title=_("Smallest RoPE base for {target:,} tokens, rotary dim {dim}: {smallest:,.0f}").format(
            target=target, dim=dim, smallest=smallest
        )
        + "<br>"
        + _verdict(base, smallest, float(values.min())),
        xaxis_title=_("relative distance m (tokens)"),
        yaxis_title="B(m) = Σ_i cos(m·θ_i)",
        height=460,
        margin={"t": 90},
        legend=LEGEND_BELOW,
    )
    shown = (
        _("all {count:,} distances").format(count=target)
        if m.numel() >= target
        else _(
            "{shown:,} of {count:,} distances: the lowest and highest B in each of {columns:,} columns, so the "
            "minimum and the extent of the oscillation are exact"
        ).format(shown=m.numel(), count=target, columns=m.numel() // 2)
    )
    notes = (
        _(
            "B(m) > 0 means attention still prefers a key similar to the query at distance m (Men et al. 2024, "
            "arXiv 2405.14591); the smallest base keeps B(m) >= 0 for every m below the target. This is plain RoPE "
            "with this base: scaling variants are not applied."
        ),
        _(
            "Search: bases on a 3000-per-decade grid, then refined to one part in a million (feasible bases start "
            "as narrow islands at long contexts, so the exact infimum may be a little lower). Drawn: {shown}."
        ).format(shown=shown),
    )
    data = {"m": as_array(m), "B_your_base": as_array(values), "m_smallest": as_array(m_min)}
    data["B_smallest_base"] = as_array(values_min)
    data["smallest_base"] = np.array([smallest], dtype=np.float64)
    return FigureResult(fig, data, notes)
