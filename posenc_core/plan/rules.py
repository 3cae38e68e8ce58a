"""The known rules for a RoPE base or a critical pair when a context of L tokens is extended to T tokens.

d is the rotary dimension (the rotated channels of one head), b the base, s = T / L the factor.

- NTK-aware (bloc97 2023): b' = b·s^(d/(d−2)), so the slowest pair is divided by exactly s.
- Dynamic NTK at T (emozilla 2023; HF ``_compute_dynamic_ntk_parameters``): b' = b·(s·T/L − (s − 1))^(d/(d−2)).
- The share rule: b' = b^(ln(T/2π) / ln(L/2π)). Pair i turns fewer than once in L when b^(2i/d) > L/2π, i.e. for
  2i/d > ln(L/2π)/ln b; raising b to that power keeps the same share of pairs longer than the context at T
  (Llama-3-8B's 500000 from 8k to 16k: 1,776,948).
- Liu et al. 2023 ("Scaling Laws of RoPE-based Extrapolation", arXiv 2310.05209): the critical dimension
  d_extra = 2⌈(d/2)·log_b(L/2π)⌉ counts the channels whose pairs turn at least once in L; the pairs past it
  never see a full period in training, and the context a base β reaches is T_extra = 2π·β^(d_extra/d). The base
  that reaches T is therefore (T/2π)^(d/d_extra).
- Men et al. 2024 ("Base of RoPE Bounds Context Length", arXiv 2405.14591): the smallest base with
  B(m) = Σ_i cos(m·θ_i) >= 0 for every m < T (``rope.bounds.min_base_for_context``); for any frequencies,
  :func:`lowest_bound` finds the lowest B over the context. B(m) >= 0 is not monotone in the base (Qwen2.5's own
  1e6 dips below zero within 32k, above the 32k bound), so a base the planner proposes is one
  :func:`checked_base` evaluated at every m < T, never one read off a bound.
"""

from __future__ import annotations

import functools
import math

import torch

from posenc_core._checks import check_float, check_int, check_vector
from posenc_core.rope.bounds import MAX_BOUND_CONTEXT, min_base_for_context
from posenc_core.rope.scaling import default_inv_freq

NO_SMALLEST_BASE = "none found (none up to 1e12, or a target past 4M tokens)"
"""What a plan says for Men et al.'s smallest base when :func:`men_base` finds none (the app translates it)."""
MAX_SEARCHED_WORK = 2**28
"""Most pairs × target a base search evaluates (64 pairs over 4M tokens): past it no base is searched."""
CHECKED_BASE_TRIES = 12  # bases checked from the first candidate up, each 1.5 × the last (about × 86 in all)
NO_CHECKED_BASE = "none found (no base checked keeps B(m) >= 0 up to the target)"
"""What a plan says for the base it checked when :func:`checked_base` finds none (the app translates it)."""
_ROWS = 256  # m = q + r: B is evaluated as a (q blocks x 256) grid
_BLOCK_ROWS = 4096  # q values per block (4096 x 256 positions)


def _check(rotary_dim: int, base: float) -> tuple[int, float]:
    rotary_dim = check_int("rotary_dim", rotary_dim, minimum=4)
    if rotary_dim % 2:
        raise ValueError(f"rotary_dim must be even (got {rotary_dim})")
    return rotary_dim, check_float("base", base, greater_than=1.0)


def _lengths(original: int, target: int) -> tuple[int, int]:
    original = check_int("original", original, minimum=8)
    target = check_int("target", target, minimum=original)
    return original, target


def ntk_base(rotary_dim: int, base: float, factor: float) -> float:
    """b·s^(d/(d−2)): static NTK-aware scaling. Ref: bloc97, r/LocalLLaMA 2023; HF's early ``ntk`` type."""
    rotary_dim, base = _check(rotary_dim, base)
    factor = check_float("factor", factor, greater_than=0.0)
    return base * factor ** (rotary_dim / (rotary_dim - 2))


def dynamic_base(rotary_dim: int, base: float, factor: float, original: int, seq_len: int) -> float:
    """b·(s·n/L − (s − 1))^(d/(d−2)) at sequence length n > L (b itself for n <= L).
    Ref: emozilla, r/LocalLLaMA 2023; HF ``_compute_dynamic_ntk_parameters``."""
    rotary_dim, base = _check(rotary_dim, base)
    factor = check_float("factor", factor, greater_than=0.0)
    original = check_int("original", original, minimum=1)
    seq_len = max(check_int("seq_len", seq_len, minimum=0), original)
    return base * (factor * seq_len / original - (factor - 1)) ** (rotary_dim / (rotary_dim - 2))


def share_base(base: float, original: int, target: int) -> float:
    """b^(ln(T/2π) / ln(L/2π)): the base that keeps the share of pairs longer than the context fixed."""
    base = check_float("base", base, greater_than=1.0)
    original, target = _lengths(original, target)
    return base ** (math.log(target / (2 * math.pi)) / math.log(original / (2 * math.pi)))


def critical_dim(rotary_dim: int, base: float, original: int) -> int:
    """Liu et al.'s d_extra = 2⌈(d/2)·log_b(L/2π)⌉, at most d: the channels whose pairs turn at least once in L.
    Llama 2 (d 128, b 1e4, L 4096): 92. Ref: Liu et al. 2023, arXiv 2310.05209, eq. (7)."""
    rotary_dim, base = _check(rotary_dim, base)
    original = check_int("original", original, minimum=8)
    pairs = math.ceil(rotary_dim / 2 * math.log(original / (2 * math.pi)) / math.log(base))
    return 2 * min(max(pairs, 0), rotary_dim // 2)


def extrapolation_bound(rotary_dim: int, base: float, critical: int) -> float:
    """T_extra = 2π·β^(d_extra/d): the context a base β reaches, for a critical dimension d_extra.
    Ref: Liu et al. 2023, arXiv 2310.05209, eq. (8)."""
    rotary_dim, base = _check(rotary_dim, base)
    critical = check_int("critical", critical, minimum=0, maximum=rotary_dim)
    return 2 * math.pi * base ** (critical / rotary_dim)


def liu_base(rotary_dim: int, critical: int, target: int) -> float | None:
    """(T/2π)^(d/d_extra): the base whose critical pair's wavelength is T; None when d_extra is 0 (every pair
    is longer than the context: no base rule follows)."""
    rotary_dim = check_int("rotary_dim", rotary_dim, minimum=4)
    critical = check_int("critical", critical, minimum=0, maximum=rotary_dim)
    target = check_int("target", target, minimum=8)
    return None if critical == 0 else (target / (2 * math.pi)) ** (rotary_dim / critical)


@functools.lru_cache(maxsize=64)
def men_base(target: int, rotary_dim: int) -> float | None:
    """Men et al.'s smallest base for ``target`` tokens (``rope.bounds.min_base_for_context``), or None where it is
    not searched (a target past ``MAX_BOUND_CONTEXT``) or no base up to 1e12 keeps B(m) >= 0 (a rotary dim of a few
    pairs over millions of tokens). Cached: a plan asks for it once per method that needs it."""
    if target > MAX_BOUND_CONTEXT or rotary_dim // 2 * target > MAX_SEARCHED_WORK:
        return None
    try:
        return min_base_for_context(target, rotary_dim)
    except ValueError:
        return None


@functools.lru_cache(maxsize=64)
def checked_base(rotary_dim: int, start: float, target: int) -> float | None:
    """The first base from ``start`` up (``start``, then 1.5 × the last, rounded up to three significant digits,
    ``CHECKED_BASE_TRIES`` of them, none past 1e12) whose B(m) >= 0 at every m < ``target`` (:func:`lowest_bound`);
    None when none of them passes or the search would cost more than ``MAX_SEARCHED_WORK`` pairs × positions.
    The candidates are checked one by one because B(m) >= 0 is not monotone in the base."""
    rotary_dim, start = _check(rotary_dim, start)
    target = check_int("target", target, minimum=1)
    if rotary_dim // 2 * target > MAX_SEARCHED_WORK:
        return None
    base = round_up(start)
    for _ in range(CHECKED_BASE_TRIES):
        if base > 1e12:
            return None
        if lowest_bound(default_inv_freq(rotary_dim, base, dtype=torch.float64), target)[1] >= 0:
            return base
        base = round_up(base * 1.5)
    return None


def round_up(value: float, digits: int = 3) -> float:
    """``value`` rounded up to ``digits`` significant digits (1776948.3 -> 1780000.0)."""
    scale = 10 ** (math.floor(math.log10(value)) - digits + 1)
    return float(math.ceil(value / scale - 1e-9) * scale)


def lowest_bound(inv_freq, context_len: int) -> tuple[int, float]:
    """(m, B(m)) at the lowest B(m) = Σ_i cos(m·θ_i) over every integer m < context_len, for any frequencies θ.

    Float64, m = q + r with r < 256: B(q + r) = cos(qθ)·cos(rθ)ᵀ − sin(qθ)·sin(rθ)ᵀ, evaluated in blocks.
    A negative minimum means attention cannot favour similar tokens at that distance (Men et al. 2024, Thm. 1).
    """
    theta = check_vector("inv_freq", inv_freq, device="cpu", dtype=torch.float64, minimum=0)
    length = check_int("context_len", context_len, minimum=1, maximum=2**25)
    rows = min(length, _ROWS)
    r = torch.arange(rows, dtype=torch.float64)
    cos_r, sin_r = torch.outer(r, theta).cos(), torch.outer(r, theta).sin()
    best_m, best = 0, math.inf
    q_all = torch.arange(0, length, rows, dtype=torch.float64)
    for start in range(0, q_all.numel(), _BLOCK_ROWS):
        q = q_all[start : start + _BLOCK_ROWS]
        angle = torch.outer(q, theta)
        block = angle.cos() @ cos_r.T - angle.sin() @ sin_r.T  # (q, r)
        m = q[:, None] + r[None, :]
        block[m >= length] = math.inf
        index = int(block.argmin())
        value = float(block.view(-1)[index])
        if value < best:
            best, best_m = value, int(m.view(-1)[index])
    return best_m, best
