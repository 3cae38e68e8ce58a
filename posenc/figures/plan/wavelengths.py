"""The plan at a glance: every pair's wavelength before and after the chosen method, against the original context L
and the target T, on the regimes the method puts the pairs in (kept, ramped, interpolated)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.common import LEGEND_BELOW, mark
from posenc.drawing.registry import FigureResult, register
from posenc.figures.context.style import VARIANT_COLOURS
from posenc.figures.plan.model import FIGURE_PARAMS, plan_for
from posenc.figures.plan.params import METHOD_LABELS, PAGE
from posenc.i18n import N_, _
from posenc_core.plan import REGIMES, Plan

METHOD_COLOURS = {**VARIANT_COLOURS, "base": "#e377c2"}  # the context page's colours; pink for a larger base
REGIME_HUES = {
    "kept": "44,160,44",  # green: the fast pairs keep their frequency
    "ramped": "255,127,14",  # orange: blended
    "interpolated": "31,119,180",  # blue: divided by the full factor
}
BAND, SWATCH = 0.14, 0.45  # opacity of a regime's band behind the curves, and of its legend swatch
REGIME_LABELS = {
    "kept": N_("kept pairs (frequency unchanged)"),
    "ramped": N_("ramped pairs (divided by less than s)"),
    "interpolated": N_("interpolated pairs (divided by s)"),
}
REGIME_NAMES = {"kept": N_("kept"), "ramped": N_("ramped"), "interpolated": N_("interpolated")}
FAINT = 0.35  # opacity of the methods not chosen


def method_label(method: str) -> str:
    """``method``'s name in the reader's language (the method names themselves stay as they are)."""
    return _(METHOD_LABELS[method])


def _shade(fig: go.Figure, plan: Plan) -> None:
    """The chosen method's regimes as background bands, each regime once in the legend."""
    for regime, first, last in plan.regime_runs():
        fig.add_vrect(
            x0=first - 0.5, x1=last + 0.5, fillcolor=f"rgba({REGIME_HUES[regime]},{BAND})", line_width=0, layer="below"
        )
    for regime in REGIMES:  # the legend's swatches, in the order fast -> slow
        if any(pair.regimes[plan.method] == regime for pair in plan.pairs):
            fig.add_scatter(
                x=[None],
                y=[None],
                mode="markers",
                marker={"symbol": "square", "size": 14, "color": f"rgba({REGIME_HUES[regime]},{SWATCH})"},
                name=_(REGIME_LABELS[regime]),
                hoverinfo="skip",
            )


@register(
    "plan-wavelengths",
    title=N_("Wavelength per pair before and after the planned extension"),
    page=PAGE,
    params=FIGURE_PARAMS,
)
def plan_wavelengths(p: Mapping[str, Any]) -> FigureResult:
    plan = plan_for(p)
    pairs = np.arange(len(plan.pairs))
    original = np.array([pair.wavelength for pair in plan.pairs])
    fig, data = go.Figure(), {"pair": pairs.astype(np.float32), "original": original}
    _shade(fig, plan)
    hover = "<br>" + _("pair i=%{x}") + "<br>" + _("wavelength: %{y:,.4g} tokens") + "<extra></extra>"
    others = [method for method in plan.methods if method != plan.method]
    for method in (*others, plan.method):  # the chosen method drawn last, on top
        wavelengths = np.array([pair.wavelengths[method] for pair in plan.pairs])
        data[method] = wavelengths
        chosen = method == plan.method
        fig.add_scatter(
            x=pairs,
            y=wavelengths,
            mode="lines",
            line={"color": METHOD_COLOURS[method], "width": 3 if chosen else 1.5},
            opacity=1.0 if chosen else FAINT,
            name=("★ " if chosen else "") + method_label(method),
            hovertemplate=method_label(method) + hover,
        )
    fig.add_scatter(
        x=pairs,
        y=original,
        mode="lines",
        line={"color": METHOD_COLOURS["default"], "dash": "dash", "width": 2},
        name=_("original"),
        hovertemplate=_("original") + hover,
    )
    data["regime"] = np.array([REGIMES.index(pair.regimes[plan.method]) for pair in plan.pairs], dtype=np.float32)
    mark(fig, plan.original, f"L = {plan.original:,}", axis="y", log=True)
    mark(fig, plan.target, f"T = {plan.target:,}", axis="y", log=True, dash="dot")
    fig.update_layout(
        title=_("{method}: wavelength per pair, L = {original:,} → T = {target:,} (s = {factor:g})").format(
            method=method_label(plan.method), original=plan.original, target=plan.target, factor=plan.factor
        ),
        xaxis_title=_("pair index i (fast → slow)"),
        yaxis_title=_("wavelength (tokens, log)"),
        height=480,
        legend=LEGEND_BELOW,
    )
    fig.update_yaxes(type="log", dtick=1, minor={"ticks": "outside", "showgrid": True})
    fig.update_xaxes(range=[-0.5, len(pairs) - 0.5])
    beyond = next((finding for finding in plan.findings if finding.code == "slow_pairs_beyond"), None)
    notes = (
        _(
            "A pair whose wavelength is above L never completed a turn in training. The plan stretches the slow "
            "pairs so that their angles at T stay inside what the model saw up to L; the fast pairs, which tell "
            "neighbours apart, are kept where the method can keep them."
        )
        if beyond is None
        else _(
            "A pair whose wavelength is above L never completed a turn in training. With these settings {count} of "
            "the slow pairs still turn further by T than they did in training (pair {pair}: {angle:.2f} rad against "
            "{seen:.2f}): see the warnings."
        ).format(**beyond.values),
    )
    return FigureResult(fig, data, notes)
