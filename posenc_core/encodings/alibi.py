"""ALiBi: per-head linear attention biases and what they do to attention.

Head h adds ``-m_h * (i - j)`` to the logit of query i for key j; the slopes ``m_h`` form a geometric
sequence. Positions: query index i of a ``q_len``-long block sits at key position ``i + (k_len - q_len)``
(queries are the last ``q_len`` of the ``k_len`` keys, as in decoding with a cache: HF BLOOM's
``cache_position`` causal mask, MPT's ``causal_mask[-s_q:, -s_k:]``).

Ref: Press et al. 2022, arXiv 2108.12409; ``ofirpress/attention_with_linear_biases``
``fairseq/models/transformer.py`` (``get_slopes``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from posenc_core._checks import check_choice, check_float, check_float_dtype, check_indices, check_int
from posenc_core.device import resolve_device
from posenc_core.encodings.relative import Indices, relative_positions

MAX_HEADS = 1024
BIAS_MODES = ("causal", "symmetric")

# an int is a head count (reference slopes); a float, a sequence or a 1-D tensor are the slopes themselves
HeadsOrSlopes = int | float | Sequence[float] | torch.Tensor


def slopes(n_heads: int, *, device=None, dtype=torch.float32) -> torch.Tensor:
    """Press's ``get_slopes``: m_h = 2^(-8(h+1)/n) for n a power of two; otherwise all n_p = 2^floor(log2 n)
    slopes of n_p heads, then every other slope of 2·n_p heads (2^(-4(2k+1)/n_p), k = 0..n-n_p-1).

    Exponents are exact binary fractions and 2^x is rounded once in float64, then cast: the reference to
    the last bit of ``dtype``. Shape (n_heads,). Ref: Press et al. 2022, arXiv 2108.12409 (``get_slopes``);
    HF ``modeling_bloom._get_alibi_slopes`` is the same sequence.
    """
    n_heads = check_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    dtype = check_float_dtype(dtype)
    closest_power_of_2 = 1 << (n_heads.bit_length() - 1)
    # exponents are exact binary fractions; one libm pow per slope, no accumulated ratio**i rounding
    exponents = [-8 * (h + 1) / closest_power_of_2 for h in range(closest_power_of_2)]
    exponents += [-4 * (2 * k + 1) / closest_power_of_2 for k in range(n_heads - closest_power_of_2)]
    # rounded in float64 on the CPU, then cast and moved (mps has no float64)
    return torch.tensor([2.0**e for e in exponents], dtype=torch.float64).to(dtype).to(resolve_device(device))


def mpt_slopes(n_heads: int, alibi_bias_max: float = 8.0, *, device=None, dtype=torch.float32) -> torch.Tensor:
    """MosaicML's ``gen_slopes``: with n' = 2^ceil(log2 n), m_k = 2^(-alibi_bias_max·k/n'), k = 1..n';
    if n' != n the heads are ``cat(m[1::2], m[::2])[:n]``.

    ``alibi_bias_max`` is the exponent of the smallest slope (2^-max) for a power-of-two head count; with
    the default 8 this equals :func:`slopes` for every n (the reorder puts the lower power's slopes first).
    Computed in float64, then cast (MPT itself works in float32). Shape (n_heads,).
    Ref: MosaicML llm-foundry ``llmfoundry/models/layers/attention.py`` ``gen_slopes``.
    """
    n_heads = check_int("n_heads", n_heads, minimum=1, maximum=MAX_HEADS)
    alibi_bias_max = check_float("alibi_bias_max", alibi_bias_max, greater_than=0.0)
    dtype = check_float_dtype(dtype)
    padded_heads = 1 << (n_heads - 1).bit_length()  # 2^ceil(log2 n)
    all_slopes = [2.0 ** (-k * alibi_bias_max / padded_heads) for k in range(1, padded_heads + 1)]
    if padded_heads != n_heads:
        all_slopes = (all_slopes[1::2] + all_slopes[::2])[:n_heads]
    return torch.tensor(all_slopes, dtype=torch.float64).to(dtype).to(resolve_device(device))


def bias(
    n_heads: HeadsOrSlopes,
    q_len: int,
    k_len: int | None = None,
    *,
    mode: str = "causal",
    heads: Indices = None,
    query_positions: Indices = None,
    key_positions: Indices = None,
    device=None,
    dtype=torch.float32,
) -> torch.Tensor:
    """The canonical ALiBi bias. causal: b[h,i,j] = -m_h·(p_i - j) for j <= p_i, -inf for j > p_i;
    symmetric: b[h,i,j] = -m_h·|p_i - j|, where p_i = i + (k_len - q_len).

    ``n_heads``: a head count (reference :func:`slopes`) or the slopes themselves (e.g. :func:`mpt_slopes`).
    ``heads`` / ``query_positions`` / ``key_positions`` pick head, query-index (0..q_len-1) and key-index
    (0..k_len-1) subsets: the result equals slicing the full tensor, without building it.
    Shape (H', Q', K'). Ref: Press et al. 2022, arXiv 2108.12409, Figure 3; MPT ``build_alibi_bias``
    (``full=True`` is the symmetric mode; its causal bias -m_h·(L-1-j) differs by a row constant).
    """
    mode = check_choice("mode", mode, BIAS_MODES)
    dtype = check_float_dtype(dtype)
    device = resolve_device(device)
    head_slopes = _select_slopes(n_heads, heads).to(dtype).to(device)  # (H',)
    rel = relative_positions(
        q_len, k_len, query_positions=query_positions, key_positions=key_positions, device=device
    )  # (Q', K') j - p_i
    values = head_slopes[:, None, None] * (-rel.abs()).to(dtype)  # (H', Q', K'), +0 on the diagonal
    if mode == "causal":
        values.masked_fill_(rel > 0, -math.inf)
    return values


def reference_bias(
    n_heads: HeadsOrSlopes,
    q_len: int,
    k_len: int | None = None,
    *,
    heads: Indices = None,
    query_positions: Indices = None,
    key_positions: Indices = None,
    device=None,
    dtype=torch.float32,
) -> torch.Tensor:
    """The bias as the reference (fairseq) and HF BLOOM add it: r[h,i,j] = m_h·j for j <= p_i, -inf for j > p_i.

    Each row is the causal :func:`bias` row plus the constant m_h·p_i, so the softmax is the same
    (softmax is shift-invariant); the bias does not depend on the query, so one (H, 1, K) row serves all.
    Arguments as :func:`bias`. Shape (H', Q', K').
    Ref: ``ofirpress/attention_with_linear_biases`` ``fairseq/models/transformer.py``;
    HF ``modeling_bloom.build_alibi_tensor``.
    """
    dtype = check_float_dtype(dtype)
    device = resolve_device(device)
    head_slopes = _select_slopes(n_heads, heads).to(dtype).to(device)  # (H',)
    rel = relative_positions(
        q_len, k_len, query_positions=query_positions, key_positions=key_positions, device=device
    )  # (Q', K') j - p_i
    keys = check_indices("key_positions", key_positions, q_len if k_len is None else k_len, device)  # (K',)
    values = head_slopes[:, None, None] * keys.to(dtype)  # (H', 1, K'): the same for every query
    return values.expand(-1, rel.shape[0], -1).masked_fill(rel > 0, -math.inf)


def attention_to_past(
    n_heads: HeadsOrSlopes,
    query_position: int,
    *,
    heads: Indices = None,
    distances: Indices = None,
    device=None,
    dtype=torch.float32,
) -> torch.Tensor:
    """Attention of query i to keys 0..i when all content logits are equal: a[h,j] = softmax_j(-m_h·(i-j)).

    Closed form (geometric series, r = e^-m): a = r^(i-j)·(1-r)/(1-r^(i+1)), in float64 then cast.
    Columns are keys j = 0..i (distance i-j), shape (H', i+1); with ``distances`` (each in 0..i) the
    columns are the keys at those distances back, shape (H', D). ``n_heads``: head count or slopes.
    Ref: Press et al. 2022, arXiv 2108.12409.
    """
    query_position = check_int("query_position", query_position, minimum=0)
    dtype = check_float_dtype(dtype)
    device = resolve_device(device)
    head_slopes = _select_slopes(n_heads, heads)[:, None]  # (H', 1) float64 on the CPU (mps has no float64)
    if distances is None:
        distance = torch.arange(query_position, -1, -1, dtype=torch.int64)
    else:
        distance = check_indices("distances", distances, query_position + 1, torch.device("cpu"))
    # (1 - r) / (1 - r^(i+1)), r = e^-m
    normaliser = torch.expm1(-head_slopes) / torch.expm1(-head_slopes * (query_position + 1))
    weights = torch.exp(-head_slopes * distance.to(torch.float64)) * normaliser  # (H', D)
    return weights.to(dtype).to(device)


def effective_span(
    n_heads: HeadsOrSlopes,
    mass: float = 0.9,
    *,
    query_position: int | None = None,
    heads: Indices = None,
    device=None,
) -> torch.Tensor:
    """Per head, the fewest most recent keys holding ``mass`` of the equal-content attention.

    n = ceil(-ln(1 - mass)/m) with an unbounded past (the n most recent keys hold 1 - e^(-m·n)); with
    ``query_position`` i only keys 0..i exist and n = ceil(-ln(1 - mass·(1 - e^(-m(i+1))))/m) <= i+1.
    int64, shape (H',). Ref: Press et al. 2022, arXiv 2108.12409.
    """
    mass = check_float("mass", mass, greater_than=0.0)
    if mass >= 1.0:
        raise ValueError(f"mass must be a finite number > 0 and < 1 (got {mass:g})")
    if query_position is not None:
        query_position = check_int("query_position", query_position, minimum=0)
    device = resolve_device(device)
    head_slopes = _select_slopes(n_heads, heads)  # (H',) float64 on the CPU (mps has no float64)
    # the n most recent keys hold 1 - e^(-m·n) of the unnormalised weight; all keys 0..i hold 1 - e^(-m(i+1))
    target = torch.full_like(head_slopes, mass)
    if query_position is not None:
        target = target * -torch.expm1(-head_slopes * (query_position + 1))

    def recent_mass(count: torch.Tensor) -> torch.Tensor:
        return -torch.expm1(-head_slopes * count)

    span = torch.ceil(-torch.log1p(-target) / head_slopes)
    span = torch.where(recent_mass(span - 1) >= target, span - 1, span)  # undo a rounding overshoot
    span = torch.where(recent_mass(span) < target, span + 1, span)  # and an undershoot
    if query_position is not None:
        span = span.clamp(max=query_position + 1)
    return span.to(torch.int64).to(device)


def _select_slopes(n_heads: HeadsOrSlopes, heads: Indices) -> torch.Tensor:
    """Slopes for a head count or given slopes, restricted to ``heads``. float64 on the CPU, shape (H',)."""
    if isinstance(n_heads, torch.Tensor | list | tuple | float):
        try:
            if isinstance(n_heads, torch.Tensor):
                values = n_heads.detach().cpu().to(torch.float64).reshape(-1)
            else:
                values = torch.tensor(n_heads, dtype=torch.float64).reshape(-1)
        except (TypeError, ValueError, RuntimeError):
            values = torch.empty(0)
        if values.numel() == 0 or not bool(torch.isfinite(values).all()) or bool((values <= 0).any()):
            raise ValueError(f"n_heads given as slopes must be finite numbers > 0, at least one (got {n_heads!r})")
    else:
        values = slopes(n_heads, device="cpu", dtype=torch.float64)
    if heads is None:
        return values
    return values[check_indices("heads", heads, values.numel(), torch.device("cpu"))]
