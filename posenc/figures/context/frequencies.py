"""Context extension: what each RoPE scaling variant does to the inverse frequency and the wavelength of every
pair, all variants on one set of axes (the page's rope_type drawn solid, the others fainter)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.common import LEGEND_BELOW, as_array, mark
from posenc.drawing.registry import FigureResult, register
from posenc.figures.context.params import PAGE, SCALING_PARAMS
from posenc.figures.context.style import DIMMED, VARIANT_COLOURS
from posenc.figures.context.variants import all_frequencies, describe, extended_context, variant_label
from posenc.i18n import N_, _
from posenc_core import rope


def variant_name(variant: str, p: Mapping[str, Any], attention_factor: float = 1.0) -> str:
    """Legend entry: the label, seq_len for the length-dependent variants, ★ for the page's rope_type."""
    name = variant_label(variant)
    if variant in ("dynamic", "longrope"):
        name += f" @ seq_len={p['seq_len']:,}"
    if attention_factor != 1.0:
        name += f", cos/sin ×{attention_factor:.4g}"
    return ("★ " if variant == p["rope_type"] else "") + name


def _curve(fig: go.Figure, variant: str, p, pairs, values, hover: str, attention_factor: float = 1.0) -> None:
    chosen = variant == p["rope_type"] or variant == "default"
    fig.add_scatter(
        x=pairs,
        y=as_array(values),
        mode="lines+markers" if len(pairs) <= 64 else "lines",
        marker={"size": 4},
        line={"color": VARIANT_COLOURS[variant], "dash": "dash" if variant == "default" else "solid"},
        opacity=1.0 if chosen else DIMMED,
        name=variant_name(variant, p, attention_factor),
        hovertemplate=variant_label(variant) + "<br>" + _("pair i=%{x}") + f"<br>{hover}: %{{y:.6g}}<extra></extra>",
    )


def _notes(p: Mapping[str, Any], longrope: str) -> tuple[str, ...]:
    highlight = (
        _(
            "★ marks rope_type={rope_type}; the other variants are drawn fainter (click a legend entry to hide it)."
        ).format(rope_type=p["rope_type"])
        if p["rope_type"] != "default"
        else _("rope_type=default: no variant is highlighted.")
    )
    if p["seq_len"] <= p["original_max_position_embeddings"]:
        dynamic = _(
            "Dynamic NTK lies on the original here: seq_len {seq_len:,} fits in L = {length:,}, and dynamic NTK only "
            "acts once the sequence outgrows L (raise seq_len to see it)."
        ).format(seq_len=p["seq_len"], length=p["original_max_position_embeddings"])
        return (highlight, dynamic, longrope)
    return (highlight, longrope)


@register(
    "context-inv-freq",
    title=N_("Scaled / original inverse frequency per pair, every scaling variant"),
    page=PAGE,
    params=SCALING_PARAMS,
)
def inverse_frequency_ratio(p: Mapping[str, Any]) -> FigureResult:
    original, variants, longrope = all_frequencies(p)
    pairs = np.arange(original.numel())
    fig, data = go.Figure(), {"pair": pairs.astype(np.float32), "original": as_array(original)}
    for variant, (inv, attention_factor) in variants.items():
        ratio = inv.double() / original.double()
        _curve(fig, variant, p, pairs, ratio, _("scaled / original"), attention_factor)
        data[variant] = as_array(ratio)
    mark(fig, 1.0, _("1 = unchanged"), axis="y", log=True, anchor="right")
    mark(fig, 1.0 / p["factor"], f"1/s = {1 / p['factor']:.4g}", axis="y", log=True, dash="dot")
    fig.update_layout(
        title=_("Scaled / original inverse frequency per pair, {described}").format(described=describe(p)),
        xaxis_title=_("pair index i (fast → slow)"),
        yaxis_title=_("inv_freq scaled / original (log)"),
        height=460,
        legend=LEGEND_BELOW,
    )
    fig.update_yaxes(type="log")
    return FigureResult(fig, data, _notes(p, longrope))


@register(
    "context-wavelengths",
    title=N_("Wavelength per pair with the original and extended context, every scaling variant"),
    page=PAGE,
    params=SCALING_PARAMS,
)
def wavelength_per_pair(p: Mapping[str, Any]) -> FigureResult:
    original, variants, longrope = all_frequencies(p)
    pairs = np.arange(original.numel())
    fig, data = go.Figure(), {"pair": pairs.astype(np.float32)}
    for variant, (inv, attention_factor) in {"default": (original, 1.0), **variants}.items():
        wavelength = rope.wavelengths(inv)
        _curve(fig, variant, p, pairs, wavelength, _("wavelength (tokens)"), attention_factor)
        data[variant] = as_array(wavelength)
    length, extended = p["original_max_position_embeddings"], extended_context(p)
    for value, text, dash in ((length, "L", "dash"), (extended, "s·L", "dot")):
        # on the right, where every curve is far above L (the slow pairs): the label covers no curve
        mark(fig, value, f"{text} = {value:,}", axis="y", log=True, dash=dash, anchor="right")
    fig.update_layout(
        title=_("Wavelength 2π/inv_freq per pair, {described}, s·L={extended:,}").format(
            described=describe(p), extended=extended
        ),
        xaxis_title=_("pair index i (fast → slow)"),
        yaxis_title=_("wavelength (tokens, log)"),
        height=460,
        legend=LEGEND_BELOW,
    )
    fig.update_yaxes(type="log", dtick=1, minor={"ticks": "outside", "showgrid": True})  # decades labelled
    notes = (
        _(
            "A pair whose wavelength is above L never completed a turn in training: past L its angle is new to the "
            "model unless the scaling stretches it (wavelength × s keeps the angles inside the trained range up to "
            "s·L)."
        ),
        *_notes(p, longrope),
    )
    return FigureResult(fig, data, notes)
