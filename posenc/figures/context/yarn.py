"""Context extension, the knobs behind the curves: YaRN's ramp and correction range (with Llama 3.1's ramp),
dynamic NTK's effective base against the sequence length, and the attention factor against the scaling factor.

Every number comes from :mod:`posenc_core.rope.yarn` and :mod:`posenc_core.rope.scaling`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch

from posenc.drawing.common import LEGEND_BELOW, as_array, mark
from posenc.drawing.common_params import MAX_FACTOR
from posenc.drawing.registry import FigureResult, register
from posenc.figures.context.params import PAGE
from posenc.figures.context.style import VARIANT_COLOURS
from posenc.figures.context.variants import describe, extended_context, original_frequencies
from posenc.i18n import N_, _
from posenc_core import rope, sampling
from posenc_core.rope import scaling as rope_scaling
from posenc_core.rope import yarn as rope_yarn

LENGTH_POINTS = 2048  # sequence lengths drawn by the dynamic-NTK curve


FACTOR_POINTS = 256  # factors drawn by the attention-factor curves


DEEPSEEK_V3_MSCALE = 1.0  # mscale = mscale_all_dim in DeepSeek-V3's config, the example when the page sets none


@register(
    "context-yarn-ramp",
    title=N_("YaRN ramp and correction range (with Llama 3.1's ramp)"),
    page=PAGE,
    params=(
        "head_dim",
        "base",
        "partial_rotary_factor",
        "factor",
        "original_max_position_embeddings",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "truncate",
        "low_freq_factor",
        "high_freq_factor",
    ),
)
def yarn_ramp(p: Mapping[str, Any]) -> FigureResult:
    base, length, device = p["base"], p["original_max_position_embeddings"], p["device"]
    original = original_frequencies(p)
    dim = 2 * original.numel()
    betas = (p["beta_fast"], p["beta_slow"])
    ramp = rope_yarn.yarn_ramp(dim, base, length, *betas, truncate=p["truncate"], device=device)
    low, high = rope_yarn.yarn_correction_range(dim, base, length, *betas, truncate=p["truncate"])
    raw = [rope_yarn.yarn_correction_dim(dim, base, length, beta) for beta in betas]
    llama3 = rope_scaling.llama3_ramp(dim, base, length, p["low_freq_factor"], p["high_freq_factor"], device=device)
    attention_factor = rope_yarn.yarn_attention_factor(p["factor"], p["mscale"] or None, p["mscale_all_dim"] or None)
    logit_multiplier = rope_yarn.attention_logit_multiplier(attention_factor)
    pairs = np.arange(original.numel())
    wavelength = as_array(rope.wavelengths(original))
    turns = np.float32(length) / wavelength
    hover = _("pair i=%{x}<br>ramp %{y:.4f}<br>λ=%{customdata[0]:.6g} tokens<br>L/λ=%{customdata[1]:.4g} turns")
    fig = go.Figure()
    yarn_name = _("YaRN ramp")
    for name, values, colour in (
        (yarn_name, ramp, VARIANT_COLOURS["yarn"]),
        (
            _("Llama 3.1 ramp (low/high freq factor {low:g}/{high:g})").format(
                low=p["low_freq_factor"], high=p["high_freq_factor"]
            ),
            llama3,
            VARIANT_COLOURS["llama3"],
        ),
    ):
        fig.add_scatter(
            x=pairs,
            y=as_array(values),
            mode="lines+markers" if len(pairs) <= 64 else "lines",
            marker={"size": 4},
            name=name,
            line={"color": colour, "dash": "solid" if name == yarn_name else "dash"},
            customdata=np.stack([wavelength, turns], axis=1),
            hovertemplate=name + "<br>" + hover + "<extra></extra>",
        )
    fig.add_vrect(x0=low, x1=high, fillcolor="rgba(214,39,40,0.08)", line_width=0, layer="below")
    mark(fig, low, f"low = {low:g} (β_fast={p['beta_fast']:g})", anchor="right")
    mark(fig, high, f"high = {high:g} (β_slow={p['beta_slow']:g})")
    fig.update_layout(
        title=_(
            "YaRN ramp, {described}<br>correction range [{low:g}, {high:g}], cos/sin × {factor:.6g}, "
            "logits × {logits:.6g}"
        ).format(described=describe(p), low=low, high=high, factor=attention_factor, logits=logit_multiplier),
        xaxis_title=_("pair index i (fast → slow)"),
        yaxis_title=_("ramp (0 = keep, 1 = divide by s)"),
        height=460,
        margin={"t": 90},
        legend=LEGEND_BELOW,
    )
    fig.update_yaxes(range=[-0.05, 1.05])
    rounding = (
        _(
            "Correction range before rounding: pair {low:.4f} (L/λ = β_fast) to {high:.4f} (L/λ = β_slow); "
            "floor/ceil, clamped to [0, d-1 = {last}]."
        )
        if p["truncate"]
        else _(
            "Correction range before rounding: pair {low:.4f} (L/λ = β_fast) to {high:.4f} (L/λ = β_slow); "
            "clamped to [0, d-1 = {last}]."
        )
    )
    notes = (
        rounding.format(low=raw[0], high=raw[1], last=dim - 1),
        _(
            "YaRN multiplies cos and sin by the attention factor {factor:.6g}, so q·k (the logits) by its square, "
            "{logits:.6g}. Llama 3.1 keeps attention factor 1."
        ).format(factor=attention_factor, logits=logit_multiplier),
    )
    data = {"pair": pairs.astype(np.float32), "yarn_ramp": as_array(ramp), "llama3_ramp": as_array(llama3)}
    return FigureResult(fig, data, notes)


@register(
    "context-dynamic-base",
    title=N_("Dynamic NTK: effective base against the sequence length"),
    page=PAGE,
    params=("head_dim", "base", "partial_rotary_factor", "factor", "original_max_position_embeddings", "seq_len"),
)
def dynamic_base(p: Mapping[str, Any]) -> FigureResult:
    length, seq_len, extended = p["original_max_position_embeddings"], p["seq_len"], extended_context(p)
    dim = 2 * original_frequencies(p).numel()
    if dim < 4:
        raise ValueError(
            _("dynamic NTK needs a rotary dim >= 4 (head_dim * partial_rotary_factor = {dim})").format(dim=dim)
        )
    end = max(seq_len, extended, 2 * length)
    lengths = sampling.sampled_positions(end, LENGTH_POINTS) + 1  # 1 .. end
    bases = [rope_scaling.dynamic_ntk_base(p["base"], dim, p["factor"], int(n), length) for n in lengths]
    fig = go.Figure()
    fig.add_scatter(
        x=as_array(lengths),
        y=as_array(bases),
        mode="lines",
        name=_("effective base"),
        line={"color": VARIANT_COLOURS["dynamic"]},
        hovertemplate="seq_len %{x:,}<br>base' %{y:.6g}<extra></extra>",
    )
    current = rope_scaling.dynamic_ntk_base(p["base"], dim, p["factor"], seq_len, length)
    fig.add_scatter(
        x=[seq_len],
        y=[current],
        mode="markers",
        name=f"seq_len={seq_len:,}: base' = {current:.6g}",
        marker={"size": 10, "color": VARIANT_COLOURS["dynamic"]},
        hovertemplate="seq_len %{x:,}<br>base' %{y:.6g}<extra></extra>",
    )
    mark(fig, length, f"L = {length:,}", anchor="right")
    if extended != length:
        mark(fig, extended, f"s·L = {extended:,}", dash="dot")
    fig.update_layout(
        title=_("Dynamic NTK base' vs sequence length, {described}").format(described=describe(p)),
        xaxis_title=_("sequence length (tokens)"),
        yaxis_title=_("effective base' (log)"),
        height=400,
        legend=LEGEND_BELOW,
    )
    fig.update_yaxes(type="log")
    sampled = (
        _("all {total:,} sequence lengths")
        if len(bases) >= end
        else _(
            "sampled: {shown:,} of {total:,} sequence lengths, evenly spaced (exact values at those sequence lengths)"
        )
    )
    notes = (
        _(
            "base' = base while the sequence fits in L = {length:,}; past it base' grows so that the slowest pair "
            "stretches with the length. At s·L = {extended:,} base' = {scaled:.6g}."
        ).format(
            length=length,
            extended=extended,
            scaled=rope_scaling.dynamic_ntk_base(p["base"], dim, p["factor"], extended, length),
        ),
        sampled.format(shown=len(bases), total=end),
    )
    return FigureResult(fig, {"seq_len": as_array(lengths), "base": as_array(bases)}, notes)


def _longrope_attention_factor(factor: float, length: int) -> float:
    """LongRoPE's cos/sin factor for ``factor`` and L, read off the core's LongRoPE (one pair, factor lists 1)."""
    block = {"rope_type": "longrope", "factor": factor, "original_max_position_embeddings": length}
    _inv, attention_factor = rope_scaling.inv_freq(
        2, 10000.0, block | {"short_factor": [1.0], "long_factor": [1.0]}, device="cpu"
    )
    return attention_factor


@register(
    "context-temperature",
    title=N_("Attention factor against the scaling factor"),
    page=PAGE,
    params=("factor", "original_max_position_embeddings", "mscale", "mscale_all_dim"),
)
def attention_temperature(p: Mapping[str, Any]) -> FigureResult:
    length = p["original_max_position_embeddings"]
    if length < 2:
        raise ValueError(
            _("original_max_position_embeddings must be >= 2 for LongRoPE's ln L (got {length})").format(length=length)
        )
    factors = torch.logspace(0, float(np.log10(MAX_FACTOR)), FACTOR_POINTS, dtype=torch.float64).tolist()
    page_set = bool(p["mscale"] and p["mscale_all_dim"])
    if page_set:
        mscale, mscale_all_dim = p["mscale"], p["mscale_all_dim"]
    else:
        mscale = mscale_all_dim = DEEPSEEK_V3_MSCALE
    source, shown_source = ("page", _("page")) if page_set else ("DeepSeek-V3 example", _("DeepSeek-V3 example"))
    deepseek = [rope_yarn.yarn_attention_factor(s, mscale, mscale_all_dim) for s in factors]
    curves = (  # (the data's name, in English; the legend's, in the reader's language; values)
        ("YaRN cos/sin: 0.1 ln s + 1", "YaRN cos/sin: 0.1 ln s + 1", [rope_yarn.get_mscale(s) for s in factors]),
        (
            "YaRN logits: (0.1 ln s + 1)²",
            _("YaRN logits: (0.1 ln s + 1)²"),
            [rope_yarn.attention_logit_multiplier(rope_yarn.get_mscale(s)) for s in factors],
        ),
        (
            f"LongRoPE cos/sin: √(1 + ln s / ln {length:,})",
            f"LongRoPE cos/sin: √(1 + ln s / ln {length:,})",
            [_longrope_attention_factor(s, length) for s in factors],
        ),
        (
            f"DeepSeek cos/sin: mscale ratio ({mscale:g}/{mscale_all_dim:g}, {source})",
            _("DeepSeek cos/sin: mscale ratio ({mscale:g}/{mscale_all_dim:g}, {source})").format(
                mscale=mscale, mscale_all_dim=mscale_all_dim, source=shown_source
            ),
            deepseek,
        ),
        (
            f"DeepSeek logits: ratio² × mscale(s, {mscale_all_dim:g})² (softmax scale)",
            _("DeepSeek logits: ratio² × mscale(s, {mscale_all_dim:g})² (softmax scale)").format(
                mscale_all_dim=mscale_all_dim
            ),
            [
                rope_yarn.attention_logit_multiplier(a) * rope_yarn.yarn_softmax_scale(1, s, mscale_all_dim)
                for a, s in zip(deepseek, factors, strict=True)
            ],
        ),
    )
    styles = [("yarn", "solid"), ("yarn", "dash"), ("longrope", "solid"), ("linear", "solid"), ("linear", "dash")]
    fig, data = go.Figure(), {"factor": as_array(factors)}
    hover = _("s=%{x:.4g}<br>multiplier %{y:.6g}")
    for (key, name, values), (colour, dash) in zip(curves, styles, strict=True):
        fig.add_scatter(
            x=as_array(factors),
            y=as_array(values),
            mode="lines",
            name=name,
            line={"color": VARIANT_COLOURS[colour], "dash": dash},
            hovertemplate=name + "<br>" + hover + "<extra></extra>",
        )
        data[key] = as_array(values)
    mark(fig, p["factor"], f"s = {p['factor']:g}", log=True)
    fig.update_layout(
        title=_(
            "Attention factor vs scaling factor s (L={length:,} for LongRoPE, mscale={mscale:g}, "
            "mscale_all_dim={mscale_all_dim:g})"
        ).format(length=length, mscale=mscale, mscale_all_dim=mscale_all_dim),
        xaxis_title=_("scaling factor s (log)"),
        yaxis_title=_("multiplier"),  # of cos/sin or of the logits: the legend says which
        height=480,
        legend=LEGEND_BELOW,
    )
    fig.update_xaxes(type="log")
    notes = (
        _(
            "HF multiplies both cos and sin by the attention factor, so q and k are each scaled and the logits by "
            "its square: 'logits' curves are the squares (dividing logits by the factor would be wrong)."
        ),
        _(
            "DeepSeek-V2/V3 set mscale = mscale_all_dim: cos/sin stay ×1 and the softmax scale carries "
            "mscale(s, mscale_all_dim)²; with both 1 that equals YaRN's logit multiplier (0.1 ln s + 1)²."
        ),
    )
    return FigureResult(fig, data, notes)
