"""RoPE inverse frequencies and their context-extension variants.

Every variant has the same signature and returns ``(inv_freq, attention_factor)``: ``inv_freq`` has shape
(d/2,) and the rotation angle of pair i at position m is m * inv_freq[i]; ``attention_factor`` multiplies
cos and sin (so the logits by its square, see ``rope.yarn.attention_logit_multiplier``).
``params`` is an HF ``rope_scaling`` / ``rope_parameters`` dict; ``inv_freq`` reads one and dispatches.

Ref: HF transformers ``src/transformers/modeling_rope_utils.py`` (``ROPE_INIT_FUNCTIONS``, v5 semantics).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import torch

from posenc_core._checks import check_choice, check_float, check_float_dtype, check_int
from posenc_core.device import resolve_device
from posenc_core.rope._params import (
    check_lengths,
    read_factor_list,
    read_factor_or_ratio,
    read_optional,
    read_original_length,
    read_required,
)
from posenc_core.rope.scaling_keys import SCALING_KEYS
from posenc_core.rope.yarn import yarn_attention_factor, yarn_ramp

RopeScalingFunction = Callable[..., tuple[torch.Tensor, float]]

# Legacy / model-specific names HF maps onto a registry key.
ROPE_TYPE_ALIASES = {
    "mrope": "default",  # Qwen2-VL: HF rewrites "mrope" to "default" (the sections split the same inv_freq)
    "su": "longrope",  # early Phi-3 configs (HF Phi3Config maps "su" to "longrope")
}


def default_inv_freq(dim: int, base: float = 10000.0, *, device=None, dtype=torch.float32) -> torch.Tensor:
    """inv_freq_i = base^(-2i/d), i = 0..d/2-1. Shape (d/2,). Ref: Su et al. 2021, arXiv 2104.09864."""
    dim, base = _check_dim_base(dim, base)
    return 1.0 / base ** _pair_exponents(dim, device, dtype)


def _check_dim_base(dim: int, base: float, minimum: int = 2) -> tuple[int, float]:
    dim = check_int("dim", dim, minimum=minimum)
    if dim % 2:
        raise ValueError(f"dim (the rotary dimension) must be even (got {dim})")
    return dim, check_float("base", base, greater_than=1.0)


def _pair_exponents(dim: int, device, dtype: torch.dtype) -> torch.Tensor:
    """2i/d for i = 0..d/2-1 (d even), computed in ``dtype`` (float32 matches HF bit for bit)."""
    dtype = check_float_dtype(dtype)
    return torch.arange(0, dim, 2, dtype=torch.int64, device=resolve_device(device)).to(dtype) / dim


def dynamic_ntk_base(base: float, dim: int, factor: float, seq_len: int | None, max_position_embeddings: int) -> float:
    """base' = base * (factor * s / L - (factor - 1))^(d / (d - 2)), s = max(seq_len, L) (None -> L).

    So base' = base while seq_len <= L. Ref: emozilla (Reddit 2023); HF ``_compute_dynamic_ntk_parameters``.
    """
    base = check_float("base", base, greater_than=1.0)
    dim = check_int("dim", dim, minimum=4)
    factor = check_float("factor", factor, greater_than=0.0)
    length = check_int("max_position_embeddings", max_position_embeddings, minimum=1)
    seq_len = length if seq_len is None else max(check_int("seq_len", seq_len, minimum=0), length)
    return base * (factor * seq_len / length - (factor - 1)) ** (dim / (dim - 2))


def llama3_ramp(
    dim: int,
    base: float,
    original_max_position_embeddings: int,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    *,
    device=None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """ramp_i = 1 - clamp((L / λ_i - low_freq_factor) / (high_freq_factor - low_freq_factor), 0, 1).

    λ_i = 2π / inv_default_i. Shape (d/2,). 0 = keep (λ < L / high_freq_factor), 1 = divide by factor
    (λ > L / low_freq_factor), linear in the rotations L/λ between; ``1 - ramp`` is HF's ``smooth_factor``. With
    low_freq_factor == high_freq_factor there is no band between (a pair at exactly λ = L / low_freq_factor, which
    HF would blend as 0/0, is kept).
    Ref: Meta ``llama-models`` ``apply_scaling``; HF ``_compute_llama3_parameters``.
    """
    length = check_int("original_max_position_embeddings", original_max_position_embeddings, minimum=1)
    low_freq_factor = check_float("low_freq_factor", low_freq_factor, greater_than=0.0)
    high_freq_factor = check_float("high_freq_factor", high_freq_factor, greater_than=0.0)
    if low_freq_factor > high_freq_factor:
        raise ValueError(
            f"low_freq_factor must be <= high_freq_factor (got {low_freq_factor:g} and {high_freq_factor:g})"
        )
    wavelen = 2 * math.pi / default_inv_freq(dim, base, device=device, dtype=dtype)
    if low_freq_factor == high_freq_factor:  # no band to blend in (Llama 4 Scout Instruct: both 1): HF only warns,
        return (length / wavelen < low_freq_factor).to(wavelen.dtype)  # then keeps or divides each pair outright
    smooth = (length / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    return 1 - torch.clamp(smooth, 0, 1)


def default_rope(dim, base, params, *, seq_len, max_position_embeddings, device=None, dtype=torch.float32):
    """inv_freq_i = base^(-2i/d), attention_factor = 1. Ref: Su et al. 2021, arXiv 2104.09864."""
    check_lengths(seq_len, max_position_embeddings)
    return default_inv_freq(dim, base, device=device, dtype=dtype), 1.0


def linear_rope(dim, base, params, *, seq_len, max_position_embeddings, device=None, dtype=torch.float32):
    """Position interpolation: inv_freq = default / factor (= positions / factor), attention_factor = 1.
    Ref: Chen et al. 2023, arXiv 2306.15595 (kaiokendev); HF ``_compute_linear_scaling_rope_parameters``."""
    check_lengths(seq_len, max_position_embeddings)
    factor = read_required(params, "factor", "linear")
    return default_inv_freq(dim, base, device=device, dtype=dtype) / factor, 1.0


def ntk_rope(dim, base, params, *, seq_len, max_position_embeddings, device=None, dtype=torch.float32):
    """Static NTK-aware: base' = base * factor^(d / (d - 2)), inv_freq = base'^(-2i/d), attention_factor = 1.
    Ref: bloc97 (Reddit 2023); HF ``modeling_rope_utils`` early revision (``"ntk"``, later removed)."""
    check_lengths(seq_len, max_position_embeddings)
    dim, base = _check_dim_base(dim, base, minimum=4)
    factor = read_required(params, "factor", "ntk")
    ntk_base = base * factor ** (dim / (dim - 2))
    if ntk_base <= 1:
        raise ValueError(f"factor {factor:g} is too small: the scaled base base * factor^(d/(d-2)) must be > 1")
    return default_inv_freq(dim, ntk_base, device=device, dtype=dtype), 1.0


def dynamic_rope(dim, base, params, *, seq_len, max_position_embeddings, device=None, dtype=torch.float32):
    """Dynamic NTK: inv_freq = dynamic_ntk_base(...)^(-2i/d), equal to default while seq_len <= L, where
    L = max_position_embeddings (not the original length); attention_factor = 1.
    Ref: emozilla (Reddit 2023); HF ``_compute_dynamic_ntk_parameters``."""
    dim, base = _check_dim_base(dim, base, minimum=4)
    seq_len, length = check_lengths(seq_len, max_position_embeddings)
    if length is None:
        raise ValueError("max_position_embeddings is required for rope_type 'dynamic' (got None)")
    factor = read_required(params, "factor", "dynamic")
    scaled_base = dynamic_ntk_base(base, dim, factor, seq_len, length)
    return default_inv_freq(dim, scaled_base, device=device, dtype=dtype), 1.0


def yarn_rope(dim, base, params, *, seq_len, max_position_embeddings, device=None, dtype=torch.float32):
    """YaRN: inv_freq = default * ((1 - ramp) + ramp / factor), ramp = ``rope.yarn.yarn_ramp`` (beta 32/1).

    attention_factor = params["attention_factor"], else ``yarn_attention_factor(factor, mscale, mscale_all_dim)``.
    L = params["original_max_position_embeddings"] (fallback max_position_embeddings); factor None ->
    max_position_embeddings / L (v5); ``truncate`` (default True) floors/ceils the correction range.
    Ref: Peng et al. 2023, arXiv 2309.00071; HF ``_compute_yarn_parameters``.
    """
    dim, base = _check_dim_base(dim, base)
    _, length = check_lengths(seq_len, max_position_embeddings)
    original = read_original_length(params, length, "yarn")
    factor = read_factor_or_ratio(params, length, original, "yarn")
    attention_factor = read_optional(params, "attention_factor")
    if attention_factor is None:
        mscale, mscale_all_dim = read_optional(params, "mscale"), read_optional(params, "mscale_all_dim")
        attention_factor = yarn_attention_factor(factor, mscale, mscale_all_dim)
    ramp = yarn_ramp(
        dim,
        base,
        original,
        read_optional(params, "beta_fast"),
        read_optional(params, "beta_slow"),
        truncate=read_optional(params, "truncate"),
        device=device,
        dtype=dtype,
    )
    pos_freqs = base ** _pair_exponents(dim, device, dtype)  # base^(2i/d) = 1 / inv_default
    keep = 1 - ramp  # HF's inv_freq_extrapolation_factor; same operation order as HF, so float32 is bit-identical
    return 1.0 / (factor * pos_freqs) * (1 - keep) + 1.0 / pos_freqs * keep, attention_factor


def longrope_rope(dim, base, params, *, seq_len, max_position_embeddings, device=None, dtype=torch.float32):
    """LongRoPE: inv_freq_i = 1 / (ext_i * base^(2i/d)), ext = long_factor if seq_len > L else short_factor.

    seq_len None -> short (the switch is dynamic, as HF's ``dynamic_rope_update``). attention_factor =
    params["attention_factor"], else sqrt(1 + ln f / ln L) (1 if f <= 1), f = factor or max_pos / L.
    Ref: Ding et al. 2024, arXiv 2402.13753; HF ``_compute_longrope_parameters``.
    """
    dim, base = _check_dim_base(dim, base)
    seq_len, length = check_lengths(seq_len, max_position_embeddings)
    original = read_original_length(params, length, "longrope")
    attention_factor = read_optional(params, "attention_factor")
    if attention_factor is None:
        factor = read_factor_or_ratio(params, length, original, "longrope")
        attention_factor = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original))
    short, long = (read_factor_list(params, key, dim, device, dtype) for key in ("short_factor", "long_factor"))
    ext = long if seq_len and seq_len > original else short
    return 1.0 / (ext * base ** _pair_exponents(dim, device, dtype)), attention_factor


def llama3_rope(dim, base, params, *, seq_len, max_position_embeddings, device=None, dtype=torch.float32):
    """Llama 3.1: inv_freq = default * ((1 - ramp) + ramp / factor), ramp = ``llama3_ramp``; attention 1.

    Keeps λ < L / high_freq_factor, divides λ > L / low_freq_factor, blends linearly in L/λ between.
    Ref: Meta ``llama-models`` ``apply_scaling``; HF ``_compute_llama3_parameters``.
    """
    dim, base = _check_dim_base(dim, base)
    _, length = check_lengths(seq_len, max_position_embeddings)
    original = read_original_length(params, length, "llama3")
    factor = read_required(params, "factor", "llama3")
    low = read_required(params, "low_freq_factor", "llama3")
    high = read_required(params, "high_freq_factor", "llama3")
    ramp = llama3_ramp(dim, base, original, low, high, device=device, dtype=dtype)
    inv = default_inv_freq(dim, base, device=device, dtype=dtype)
    return inv / factor * ramp + inv * (1 - ramp), 1.0


ROPE_SCALING_FUNCTIONS: dict[str, RopeScalingFunction] = {
    "default": default_rope,
    "linear": linear_rope,
    "ntk": ntk_rope,
    "dynamic": dynamic_rope,
    "yarn": yarn_rope,
    "longrope": longrope_rope,
    "llama3": llama3_rope,
}


def resolve_rope_type(scaling: Mapping[str, Any] | None) -> str:
    """Registry key for an HF ``rope_scaling`` / ``rope_parameters`` dict.

    ``rope_type`` (legacy ``type``); None or missing -> "default"; aliases in ``ROPE_TYPE_ALIASES``;
    unknown types raise ``ValueError`` listing the known ones.
    """
    if scaling is None:
        return "default"
    if not isinstance(scaling, Mapping):
        raise ValueError(f"scaling must be a dict such as {{'rope_type': 'linear', 'factor': 2.0}} (got {scaling!r})")
    rope_type = scaling.get("rope_type", scaling.get("type")) or "default"
    if isinstance(rope_type, str):
        rope_type = ROPE_TYPE_ALIASES.get(rope_type, rope_type)
    return check_choice("rope_type", rope_type, ROPE_SCALING_FUNCTIONS)


def inv_freq(
    head_dim: int,
    base: float = 10000.0,
    scaling: Mapping[str, Any] | None = None,
    *,
    seq_len: int | None = None,
    partial_rotary_factor: float = 1.0,
    max_position_embeddings: int | None = None,
    device=None,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, float]:
    """(inv_freq, attention_factor) for a model: d = int(head_dim * partial_rotary_factor) (must be even),
    variant chosen by ``resolve_rope_type(scaling)``. Shape (d/2,).

    ``rope_theta`` / ``partial_rotary_factor`` inside ``scaling`` (v5 ``rope_parameters``) must agree with
    the arguments. Ref: HF ``modeling_rope_utils`` (``ROPE_INIT_FUNCTIONS``).
    """
    head_dim = check_int("head_dim", head_dim, minimum=2)
    partial_rotary_factor = check_float("partial_rotary_factor", partial_rotary_factor, greater_than=0.0, maximum=1.0)
    rope_type = resolve_rope_type(scaling)
    params = dict(scaling or {})
    base = check_float("base", base, greater_than=1.0)
    for key, value in (("rope_theta", base), ("partial_rotary_factor", partial_rotary_factor)):
        if params.get(key) is not None and SCALING_KEYS[key].check(params[key], f"scaling[{key!r}]") != value:
            raise ValueError(
                f"scaling[{key!r}] = {params[key]!r} disagrees with the argument ({value:g}): pass one value"
            )
    dim = int(head_dim * partial_rotary_factor)
    if dim < 2 or dim % 2:
        raise ValueError(
            "the rotary dimension int(head_dim * partial_rotary_factor) = "
            f"int({head_dim} * {partial_rotary_factor:g}) = {dim} must be even and >= 2"
        )
    return ROPE_SCALING_FUNCTIONS[rope_type](
        dim,
        base,
        params,
        seq_len=seq_len,
        max_position_embeddings=max_position_embeddings,
        device=device,
        dtype=dtype,
    )
