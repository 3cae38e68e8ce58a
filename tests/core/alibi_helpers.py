"""Slow ALiBi oracles shared by the posenc_core.encodings.alibi tests, transcribed from the paper and the reference
code."""

from __future__ import annotations

import math

import torch


def press_get_slopes(n: int) -> list[float]:
    """Press's recursive ``get_slopes``, transcribed in plain Python (the oracle)."""

    def get_slopes_power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + press_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


def mpt_gen_slopes(n_heads: int, alibi_bias_max: float) -> torch.Tensor:
    """MosaicML ``gen_slopes`` transcribed (float32, as MPT computes it)."""
    padded = 2 ** math.ceil(math.log2(n_heads))
    m = torch.arange(1, padded + 1, dtype=torch.float32) * (alibi_bias_max / padded)
    slopes = 1.0 / torch.pow(2, m)
    if padded != n_heads:
        slopes = torch.concat([slopes[1::2], slopes[::2]])[:n_heads]
    return slopes


def loop_bias(slopes: list[float], q_len: int, k_len: int, mode: str) -> torch.Tensor:
    """b[h,i,j] = -m_h (p_i - j), p_i = i + k_len - q_len; -inf above the diagonal when causal."""
    offset = k_len - q_len
    out = torch.empty(len(slopes), q_len, k_len, dtype=torch.float64)
    for h, m in enumerate(slopes):
        for i in range(q_len):
            for j in range(k_len):
                if mode == "causal":
                    out[h, i, j] = -m * (i + offset - j) if j <= i + offset else -math.inf
                else:
                    out[h, i, j] = -m * abs(i + offset - j)
    return out


def brute_span(slope: float, mass: float, query_position: int | None) -> int:
    """Sum the attention from the most recent key back until it reaches ``mass``."""
    length = query_position + 1 if query_position is not None else 10**6
    total = (1 - math.exp(-slope * length)) / (1 - math.exp(-slope))
    held = 0.0
    for count in range(1, length + 1):
        held += math.exp(-slope * (count - 1)) / total
        if held >= mass:
            return count
    return length
