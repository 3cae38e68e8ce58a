"""Numbers a lesson's answer can quote, computed by the core: one registry of functions with the same signature,
``(params) -> float``, where ``params`` are the step's figure parameters (after its ``then`` change, when it has
one) plus the step's ``answer_args``. A lesson names one with ``answer_value = "<name>"`` and writes ``{value}``
(or ``{value:,.0f}``) in its answer text.

Each entry says which parameters it reads, so a lesson is checked when it is loaded, not when a learner opens it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from posenc_core.encodings import alibi, sinusoidal
from posenc_core.rope import scaling as rope_scaling
from posenc_core.rope import yarn as rope_yarn

Params = Mapping[str, Any]


@dataclass(frozen=True)
class Answer:
    """One answer function, the parameters it reads and what it computes (for lessons/README.md)."""

    function: Callable[[Params], float]
    needs: tuple[str, ...]
    description: str


def _rotary_dim(p: Params) -> int:
    """d = int(head_dim * partial_rotary_factor), as figures.rope.frequencies.rotary_dim (1.0 when not given)."""
    return int(p["head_dim"] * p.get("partial_rotary_factor", 1.0))


def _rope_theta(p: Params) -> torch.Tensor:
    return rope_scaling.default_inv_freq(_rotary_dim(p), p["base"], device="cpu", dtype=torch.float64)


def sinusoidal_slowest_wavelength(p: Params) -> float:
    """λ = 2π / ω of the slowest pair: max over channels of sinusoidal.wavelengths (finite ones)."""
    lengths = sinusoidal.wavelengths(p["d_model"], base=p["base"], layout=p.get("layout", "interleaved"), device="cpu")
    lengths = lengths.to(torch.float64)
    return float(lengths[torch.isfinite(lengths)].max())


def rope_theta(p: Params) -> float:
    """θ_i = base^(-2i/d) of pair i = params["pair"], in radians per token."""
    return float(_rope_theta(p)[p["pair"]])


def rope_pair_wavelength(p: Params) -> float:
    """λ_i = 2π / θ_i of pair i = params["pair"], in tokens."""
    return 2.0 * math.pi / rope_theta(p)


def rope_pairs_past_context(p: Params) -> float:
    """How many of RoPE's d/2 pairs have λ_i = 2π / θ_i above the trained length L: they never finish a turn in
    training, so past L their angles are new (L = original_max_position_embeddings)."""
    wavelengths = 2.0 * math.pi / _rope_theta(p)
    return float((wavelengths > p["original_max_position_embeddings"]).sum())


def rope_slowest_wavelength(p: Params) -> float:
    """λ of RoPE's last (slowest) pair, 2π · base^((d-2)/d), in tokens."""
    return float(2.0 * math.pi / _rope_theta(p)[-1])


def alibi_slope(p: Params) -> float:
    """m_h of head h = params["heads"][0] (MPT's formula, equal to Press's at alibi_bias_max = 8)."""
    slopes = alibi.mpt_slopes(p["n_heads"], p["alibi_bias_max"], device="cpu", dtype=torch.float64)
    return float(slopes[p["heads"][0]])


def alibi_widest_span(p: Params) -> float:
    """The longest effective span over the heads: the fewest most recent keys holding ``mass`` of the flattest
    head's equal-content attention, for a query at position seq_len - 1 (alibi.effective_span)."""
    slopes = alibi.mpt_slopes(p["n_heads"], p["alibi_bias_max"], device="cpu", dtype=torch.float64)
    spans = alibi.effective_span(slopes, p["mass"], query_position=p["seq_len"] - 1, device="cpu")
    return float(spans.max())


def ntk_base(p: Params) -> float:
    """Static NTK-aware base: base · factor^(d/(d-2)), d the rotary dim."""
    d = _rotary_dim(p)
    return float(p["base"] * p["factor"] ** (d / (d - 2)))


def dynamic_ntk_base(p: Params) -> float:
    """Dynamic NTK's base at seq_len for an original length L = original_max_position_embeddings."""
    return rope_scaling.dynamic_ntk_base(
        p["base"], _rotary_dim(p), p["factor"], p["seq_len"], p["original_max_position_embeddings"]
    )


def yarn_attention_factor(p: Params) -> float:
    """YaRN's cos/sin multiplier 0.1 · ln(factor) + 1 (or DeepSeek's ratio when mscale and mscale_all_dim)."""
    return float(rope_yarn.yarn_attention_factor(p["factor"], p.get("mscale"), p.get("mscale_all_dim")))


def yarn_logit_scale(p: Params) -> float:
    """What YaRN multiplies q·k by: the square of its cos/sin factor, (0.1 · ln(factor) + 1)²."""
    return yarn_attention_factor(p) ** 2


def learned_table_parameters(p: Params) -> float:
    """Trainable numbers in a learned position table: max_len · d_model."""
    return float(p["max_len"] * p["d_model"])


def shaw_offsets(p: Params) -> float:
    """Distinct relative embeddings Shaw et al. learn: 2 · clip_distance + 1."""
    return float(2 * p["clip_distance"] + 1)


def interpolated_positions(p: Params) -> float:
    """Position interpolation's factor L' / L: the extended length seq_len over the trained one."""
    return float(p["seq_len"] / p["original_max_position_embeddings"])


ANSWERS: dict[str, Answer] = {
    "sinusoidal_slowest_wavelength": Answer(
        sinusoidal_slowest_wavelength, ("d_model", "base"), "the slowest sinusoidal wavelength for d_model, base"
    ),
    "rope_theta": Answer(rope_theta, ("head_dim", "base", "pair"), "RoPE's θ_i (radians per token) of pair i"),
    "rope_pair_wavelength": Answer(rope_pair_wavelength, ("head_dim", "base", "pair"), "RoPE's λ_i of pair i"),
    "rope_pairs_past_context": Answer(
        rope_pairs_past_context,
        ("head_dim", "base", "original_max_position_embeddings"),
        "RoPE pairs whose wavelength exceeds the trained length L",
    ),
    "rope_slowest_wavelength": Answer(rope_slowest_wavelength, ("head_dim", "base"), "RoPE's slowest wavelength"),
    "alibi_slope": Answer(alibi_slope, ("n_heads", "alibi_bias_max", "heads"), "ALiBi slope of head heads[0]"),
    "alibi_widest_span": Answer(
        alibi_widest_span, ("n_heads", "alibi_bias_max", "seq_len", "mass"), "ALiBi's longest effective span"
    ),
    "ntk_base": Answer(ntk_base, ("head_dim", "base", "factor"), "static NTK-aware base for a factor"),
    "dynamic_ntk_base": Answer(
        dynamic_ntk_base,
        ("head_dim", "base", "factor", "seq_len", "original_max_position_embeddings"),
        "dynamic NTK base at seq_len",
    ),
    "yarn_attention_factor": Answer(yarn_attention_factor, ("factor",), "YaRN attention factor for a factor"),
    "yarn_logit_scale": Answer(yarn_logit_scale, ("factor",), "YaRN's multiplier of q·k, the factor squared"),
    "learned_table_parameters": Answer(
        learned_table_parameters, ("max_len", "d_model"), "parameters of a learned table, max_len · d_model"
    ),
    "shaw_offsets": Answer(shaw_offsets, ("clip_distance",), "Shaw's number of relative embeddings, 2k + 1"),
    "interpolated_positions": Answer(
        interpolated_positions, ("seq_len", "original_max_position_embeddings"), "extension ratio L' / L"
    ),
}


def value(name: str, params: Params) -> float:
    """The number answer ``name`` gives for ``params`` (ValueError for an unknown name or a missing parameter)."""
    if name not in ANSWERS:
        raise ValueError(f"unknown answer value {name!r}; known: {', '.join(sorted(ANSWERS))}")
    answer = ANSWERS[name]
    missing = [need for need in answer.needs if need not in params]
    if missing:
        raise ValueError(f"answer value {name!r} needs {', '.join(missing)}, which the step does not set")
    return answer.function(params)
