"""Context extension, the knobs behind the curves: YaRN's ramp and correction range (with Llama 3.1's ramp),
dynamic NTK's effective base against the sequence length, and the attention temperature against the factor.

Every number comes from :mod:`posenc_core.rope_yarn` and :mod:`posenc_core.rope_scaling`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch

from figures.common import LEGEND_BELOW, as_array, mark, sampled_note
from figures.common_params import MAX_FACTOR
from figures.context.params import PAGE
from figures.context.style import VARIANT_COLOURS
from figures.context.variants import describe, extended_context, original_frequencies
from figures.registry import FigureResult, register
from posenc_core import rope, rope_scaling, rope_yarn, sampling

LENGTH_POINTS = 2048  # sequence lengths drawn by the dynamic-NTK curve


FACTOR_POINTS = 256  # factors drawn by the temperature curves


DEEPSEEK_V3_MSCALE = 1.0  # mscale = mscale_all_dim in DeepSeek-V3's config, the example when the page sets none


@register(
    "context-yarn-ramp",
    title="YaRN ramp and correction range (with Llama 3.1's ramp)",
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
    hover = "pair i=%{x}<br>ramp %{y:.4f}<br>λ=%{customdata[0]:.6g} tokens<br>L/λ=%{customdata[1]:.4g} turns"
    fig = go.Figure()
    for name, values, colour in (
        ("YaRN ramp", ramp, VARIANT_COLOURS["yarn"]),
        (
            f"Llama 3.1 ramp (low/high freq factor {p['low_freq_factor']:g}/{p['high_freq_factor']:g})",
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
            line={"color": colour, "dash": "solid" if name == "YaRN ramp" else "dash"},
            customdata=np.stack([wavelength, turns], axis=1),
            hovertemplate=f"{name}<br>{hover}<extra></extra>",
        )
    fig.add_vrect(x0=low, x1=high, fillcolor="rgba(214,39,40,0.08)", line_width=0, layer="below")
    mark(fig, low, f"low = {low:g} (β_fast={p['beta_fast']:g})", anchor="right")
    mark(fig, high, f"high = {high:g} (β_slow={p['beta_slow']:g})")
    fig.update_layout(
        title=(
            f"YaRN ramp, {describe(p)}<br>correction range [{low:g}, {high:g}], cos/sin × {attention_factor:.6g}, "
            f"logits × {logit_multiplier:.6g}"
        ),
        xaxis_title="pair index i (fast → slow)",
        yaxis_title="ramp (0 = keep, 1 = divide by s)",
        height=460,
        margin={"t": 90},
        legend=LEGEND_BELOW,
    )
    fig.update_yaxes(range=[-0.05, 1.05])
    notes = (
        f"Correction range before rounding: pair {raw[0]:.4f} (L/λ = β_fast) to {raw[1]:.4f} (L/λ = β_slow); "
        f"{'floor/ceil, ' if p['truncate'] else ''}clamped to [0, d-1 = {dim - 1}].",
        f"YaRN multiplies cos and sin by the attention factor {attention_factor:.6g}, so q·k (the logits) by its "
        f"square, {logit_multiplier:.6g}. Llama 3.1 keeps attention factor 1.",
    )
    data = {"pair": pairs.astype(np.float32), "yarn_ramp": as_array(ramp), "llama3_ramp": as_array(llama3)}
    return FigureResult(fig, data, notes)


@register(
    "context-dynamic-base",
    title="Dynamic NTK: effective base against the sequence length",
    page=PAGE,
    params=("head_dim", "base", "partial_rotary_factor", "factor", "original_max_position_embeddings", "seq_len"),
)
def dynamic_base(p: Mapping[str, Any]) -> FigureResult:
    length, seq_len, extended = p["original_max_position_embeddings"], p["seq_len"], extended_context(p)
    dim = 2 * original_frequencies(p).numel()
    if dim < 4:
        raise ValueError(f"dynamic NTK needs a rotary dim >= 4 (head_dim * partial_rotary_factor = {dim})")
    end = max(seq_len, extended, 2 * length)
    lengths = sampling.sampled_positions(end, LENGTH_POINTS) + 1  # 1 .. end
    bases = [rope_scaling.dynamic_ntk_base(p["base"], dim, p["factor"], int(n), length) for n in lengths]
    fig = go.Figure()
    fig.add_scatter(
        x=as_array(lengths),
        y=as_array(bases),
        mode="lines",
        name="effective base",
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
        title=f"Dynamic NTK base' vs sequence length, {describe(p)}",
        xaxis_title="sequence length (tokens)",
        yaxis_title="effective base' (log)",
        height=400,
        legend=LEGEND_BELOW,
    )
    fig.update_yaxes(type="log")
    notes = (
        f"base' = base while the sequence fits in L = {length:,}; past it base' grows so that the slowest pair "
        f"stretches with the length. At s·L = {extended:,} base' = "
        f"{rope_scaling.dynamic_ntk_base(p['base'], dim, p['factor'], extended, length):.6g}.",
        sampled_note(len(bases), end, "sequence lengths"),
    )
    return FigureResult(fig, {"seq_len": as_array(lengths), "base": as_array(bases)}, notes)


def _longrope_attention_factor(factor: float, length: int) -> float:
    """LongRoPE's cos/sin factor for ``factor`` and L, read off the core's LongRoPE (one pair, factor lists 1)."""
    block = {"rope_type": "longrope", "factor": factor, "original_max_position_embeddings": length}
    _, attention_factor = rope_scaling.inv_freq(
        2, 10000.0, block | {"short_factor": [1.0], "long_factor": [1.0]}, device="cpu"
    )
    return attention_factor


@register(
    "context-temperature",
    title="Attention temperature against the scaling factor",
    page=PAGE,
    params=("factor", "original_max_position_embeddings", "mscale", "mscale_all_dim"),
)
def attention_temperature(p: Mapping[str, Any]) -> FigureResult:
    length = p["original_max_position_embeddings"]
    if length < 2:
        raise ValueError(f"original_max_position_embeddings must be >= 2 for LongRoPE's ln L (got {length})")
    factors = torch.logspace(0, float(np.log10(MAX_FACTOR)), FACTOR_POINTS, dtype=torch.float64).tolist()
    if p["mscale"] and p["mscale_all_dim"]:
        mscale, mscale_all_dim, source = p["mscale"], p["mscale_all_dim"], "page"
    else:
        mscale = mscale_all_dim = DEEPSEEK_V3_MSCALE
        source = "DeepSeek-V3 example"
    deepseek = [rope_yarn.yarn_attention_factor(s, mscale, mscale_all_dim) for s in factors]
    curves = {
        "YaRN cos/sin: 0.1 ln s + 1": [rope_yarn.get_mscale(s) for s in factors],
        "YaRN logits: (0.1 ln s + 1)²": [
            rope_yarn.attention_logit_multiplier(rope_yarn.get_mscale(s)) for s in factors
        ],
        f"LongRoPE cos/sin: √(1 + ln s / ln {length:,})": [_longrope_attention_factor(s, length) for s in factors],
        f"DeepSeek cos/sin: mscale ratio ({mscale:g}/{mscale_all_dim:g}, {source})": deepseek,
        f"DeepSeek logits: ratio² × mscale(s, {mscale_all_dim:g})² (softmax scale)": [
            rope_yarn.attention_logit_multiplier(a) * rope_yarn.yarn_softmax_scale(1, s, mscale_all_dim)
            for a, s in zip(deepseek, factors, strict=True)
        ],
    }
    styles = [("yarn", "solid"), ("yarn", "dash"), ("longrope", "solid"), ("linear", "solid"), ("linear", "dash")]
    fig, data = go.Figure(), {"factor": as_array(factors)}
    for (name, values), (colour, dash) in zip(curves.items(), styles, strict=True):
        fig.add_scatter(
            x=as_array(factors),
            y=as_array(values),
            mode="lines",
            name=name,
            line={"color": VARIANT_COLOURS[colour], "dash": dash},
            hovertemplate=f"{name}<br>s=%{{x:.4g}}<br>multiplier %{{y:.6g}}<extra></extra>",
        )
        data[name] = as_array(values)
    mark(fig, p["factor"], f"s = {p['factor']:g}", log=True)
    fig.update_layout(
        title=f"Attention temperature vs factor s (L={length:,} for LongRoPE, mscale={mscale:g}, "
        f"mscale_all_dim={mscale_all_dim:g})",
        xaxis_title="scaling factor s (log)",
        yaxis_title="multiplier",  # of cos/sin or of the logits: the legend says which
        height=480,
        legend=LEGEND_BELOW,
    )
    fig.update_xaxes(type="log")
    notes = (
        "HF multiplies both cos and sin by the attention factor, so q and k are each scaled and the logits by "
        "its square: 'logits' curves are the squares (dividing logits by the factor would be wrong).",
        "DeepSeek-V2/V3 set mscale = mscale_all_dim: cos/sin stay ×1 and the softmax scale carries "
        "mscale(s, mscale_all_dim)²; with both 1 that equals YaRN's logit multiplier (0.1 ln s + 1)².",
    )
    return FigureResult(fig, data, notes)
