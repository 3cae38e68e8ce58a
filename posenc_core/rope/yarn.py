"""YaRN building blocks: the correction range, the per-pair ramp and the attention factor.

The ramp is 0 for pairs that are kept (short wavelengths, many rotations inside the original context) and 1
for pairs that are interpolated (divided by the factor). The app plots these helpers directly.

Ref: Peng et al. 2023, "YaRN", arXiv 2309.00071; HF transformers
``modeling_rope_utils._compute_yarn_parameters``; ``jquesnelle/yarn`` ``LlamaYaRNScaledRotaryEmbedding``.
"""

from __future__ import annotations

import math

import torch

from posenc_core._checks import check_float, check_float_dtype, check_int
from posenc_core.device import resolve_device


def get_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN attention factor √(1/t) (t the temperature): 1 if scale <= 1 else 0.1 * mscale * ln(scale) + 1.

    Ref: Peng et al. 2023, arXiv 2309.00071 (sqrt(1/t)); DeepSeek-V2 ``yarn_get_mscale``.
    """
    scale = check_float("scale", scale, greater_than=0.0)
    mscale = check_float("mscale", mscale, minimum=0.0)
    return 1.0 if scale <= 1.0 else 0.1 * mscale * math.log(scale) + 1.0


def yarn_attention_factor(factor: float, mscale: float | None = None, mscale_all_dim: float | None = None) -> float:
    """cos/sin multiplier: get_mscale(f, mscale) / get_mscale(f, mscale_all_dim) if both are set (non-zero),
    else get_mscale(f). Ref: HF ``_compute_yarn_parameters`` (DeepSeek-V2/V3 configs set both)."""
    if mscale and mscale_all_dim:
        return float(get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim))
    return get_mscale(factor)


def attention_logit_multiplier(attention_factor: float) -> float:
    """Logits are multiplied by attention_factor**2: HF multiplies both cos and sin (so q and k) by it.

    E.g. YaRN with factor 4: 1.1386294**2 = 1.2964770. Ref: HF ``LlamaRotaryEmbedding.forward``.
    """
    attention_factor = check_float("attention_factor", attention_factor, greater_than=0.0)
    return attention_factor**2


def yarn_softmax_scale(q_head_dim: int, factor: float, mscale_all_dim: float | None = None) -> float:
    """DeepSeek softmax scale: q_head_dim^-0.5 * get_mscale(f, mscale_all_dim)^2 (just q_head_dim^-0.5 when
    mscale_all_dim is unset or 0). Net logit scale = this * attention_factor**2.

    DeepSeek-V3 (q_head_dim 192, f 40, mscale_all_dim 1): 0.1352338.
    Ref: DeepSeek-V2 ``DeepseekV2Attention.__init__``; HF ``DeepseekV3Attention`` (``scaling *= mscale**2``).
    """
    q_head_dim = check_int("q_head_dim", q_head_dim, minimum=1)
    scale = q_head_dim**-0.5
    if mscale_all_dim:
        scale *= get_mscale(factor, mscale_all_dim) ** 2
    return scale


def yarn_correction_dim(dim: int, base: float, original_max_position_embeddings: int, rotations: float) -> float:
    """Pair index (continuous) where the original context holds ``rotations`` turns: L / λ_i = R, i.e.
    i = d * ln(L / (2π R)) / (2 ln base). Ref: HF ``find_correction_dim``."""
    dim = check_int("dim", dim, minimum=2)
    base = check_float("base", base, greater_than=1.0)
    length = check_int("original_max_position_embeddings", original_max_position_embeddings, minimum=1)
    rotations = check_float("rotations", rotations, greater_than=0.0)
    # ln L - ln R - ln 2π rather than ln(L / (2πR)): the quotient overflows to inf for a subnormal R (1e-320), while
    # the difference of logs stays finite and the range is then clamped as any other.
    return dim * (math.log(length) - math.log(rotations) - math.log(2 * math.pi)) / (2 * math.log(base))


def yarn_correction_range(
    dim: int,
    base: float,
    original_max_position_embeddings: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    *,
    truncate: bool = True,
) -> tuple[float, float]:
    """(low, high) = (correction_dim(beta_fast), correction_dim(beta_slow)), floor/ceil when ``truncate``,
    then clamped: low >= 0, high <= dim - 1 (HF clamps to dim - 1, not dim/2 - 1).

    Pairs i <= low are kept, pairs i >= high are divided by the factor, the ramp is linear in between.
    E.g. d 128, base 1e4, L 4096: raw (20.944, 45.027), truncated (20, 46). As in HF, a range wholly above
    dim - 1 (or below 0) clamps to low > high, which flips the ramp (all pairs divided, or all kept).
    Ref: HF ``find_correction_range`` (``truncate`` since ~v4.56).
    """
    beta_fast = check_float("beta_fast", beta_fast, greater_than=0.0)
    beta_slow = check_float("beta_slow", beta_slow, greater_than=0.0)
    if beta_fast <= beta_slow:
        raise ValueError(f"beta_fast must be > beta_slow (got beta_fast={beta_fast:g}, beta_slow={beta_slow:g})")
    if not isinstance(truncate, bool):
        raise ValueError(f"truncate must be True or False (got {truncate!r})")
    low = yarn_correction_dim(dim, base, original_max_position_embeddings, beta_fast)
    high = yarn_correction_dim(dim, base, original_max_position_embeddings, beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return float(max(low, 0)), float(min(high, dim - 1))


def yarn_ramp(
    dim: int,
    base: float,
    original_max_position_embeddings: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    *,
    truncate: bool = True,
    device=None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """ramp_i = clamp((i - low) / (high - low), 0, 1) for pairs i = 0..d/2-1 (0 = keep, 1 = divide by factor).
    Shape (d/2,). YaRN: inv_freq = inv_default * ((1 - ramp) + ramp / factor).

    Ref: HF ``linear_ramp_factor`` (``1 - ramp`` is HF's ``inv_freq_extrapolation_factor``).
    """
    low, high = yarn_correction_range(
        dim, base, original_max_position_embeddings, beta_fast, beta_slow, truncate=truncate
    )
    return linear_ramp(low, high, dim // 2, device=device, dtype=dtype)


def linear_ramp(low: float, high: float, n: int, *, device=None, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """clamp((i - low) / (high - low), 0, 1) for i = 0..n-1; high is nudged by 0.001 when equal to low.
    Shape (n,). Ref: HF ``linear_ramp_factor``, jquesnelle ``linear_ramp_mask``."""
    low = check_float("low", low)
    high = check_float("high", high)
    n = check_int("n", n, minimum=1)
    dtype = check_float_dtype(dtype)
    if low == high:
        high += 0.001  # prevent a division by zero, as HF does
    index = torch.arange(n, dtype=dtype, device=resolve_device(device))
    return torch.clamp((index - low) / (high - low), 0, 1)
