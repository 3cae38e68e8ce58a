"""The binary-counter picture of the sinusoidal encoding: write the position p in binary and bit k flips every
2^k steps (a square wave of period 2^(k+1)), each bit half as fast as the one before; the sinusoidal channels
are smooth waves whose wavelengths grow geometrically too, by base^(2/d) from one pair to the next (by 2 only
every ln 2 / ((2/d)·ln base) pairs).

    bit_k(p) = floor(p / 2^k) mod 2,        period 2^(k+1)
    PE[p, sin channel of pair i] = sin(p·ω_i),  λ_i = 2π / ω_i

:func:`doubling_pairs` picks, for k = 0, 1, 2, ..., the pair whose wavelength is nearest 2π·2^k: columns that
slow down by 2 from one to the next, like the bits.
Ref: Vaswani et al. 2017, arXiv 1706.03762 §3.5; Kazemnejad 2019, "Transformer Architecture: The Positional
Encoding" (the binary-counter analogy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from posenc_core._checks import check_int, check_vector
from posenc_core.device import resolve_device
from posenc_core.encodings import sinusoidal


def bits(positions: Any, n_bits: int, *, device=None) -> torch.Tensor:
    """bit_k(p) = floor(p / 2^k) mod 2 for k = 0 (least significant) .. n_bits-1. Shape (P, n_bits), int64."""
    device = resolve_device(device)
    n_bits = check_int("n_bits", n_bits, minimum=1, maximum=62)
    p = check_vector("positions", positions, device=device, integer=True, minimum=0)
    return torch.bitwise_and(p[:, None] >> torch.arange(n_bits, device=device), 1)


def bits_needed(length: int) -> int:
    """Bits that write every position 0 .. length-1: max(1, (length-1).bit_length())."""
    length = check_int("length", length, minimum=1)
    return max(1, (length - 1).bit_length())


@dataclass(frozen=True)
class DoublingPairs:
    pairs: torch.Tensor  # (K,) int64, increasing: the pair i_k whose λ is nearest 2π·2^k
    sin_channels: torch.Tensor  # (K,) int64: the sin channel of each pair in the layout
    wavelengths: torch.Tensor  # (K,) float64: λ of each pair, in tokens


def doubling_pairs(d_model: int, *, base: float = 10000.0, layout: str = "interleaved", count: int) -> DoublingPairs:
    """For k = 0 .. count-1, the pair i_k minimising |ln λ_i − ln(2π·2^k)| (the first on a tie), kept while it is
    a new pair: a table with few pairs, or a large base, gives fewer than ``count``. The t2t padding pair of an
    odd d_model (frequency 0) is never chosen."""
    count = check_int("count", count, minimum=1, maximum=62)
    omega = sinusoidal.inv_freq(d_model, base=base, layout=layout, dtype=torch.float64, device="cpu")
    pair_count = d_model // 2 if layout == "t2t" else omega.numel()  # t2t's odd padding pair has ω = 0
    log_wavelength = torch.log(2 * math.pi / omega[:pair_count])
    targets = torch.log(torch.tensor([2 * math.pi * 2.0**k for k in range(count)], dtype=torch.float64))
    nearest = (log_wavelength[None, :] - targets[:, None]).abs().argmin(dim=1)
    pairs = torch.unique_consecutive(nearest)
    sin_of_pair = _sin_channel_of_pair(d_model, layout)
    return DoublingPairs(pairs, sin_of_pair[pairs], (2 * math.pi / omega[pairs]))


def _sin_channel_of_pair(d_model: int, layout: str) -> torch.Tensor:
    """The sin channel of every pair: 2i (interleaved), i (half, t2t). Shape (pairs,)."""
    pair = sinusoidal.channel_pair_index(d_model, layout, device="cpu")
    channel = torch.arange(d_model)
    is_sin = channel % 2 == 0 if layout == "interleaved" else channel < (d_model + 1) // 2
    if layout == "t2t":
        is_sin = channel < d_model // 2
    sin_channels = torch.full((int(pair.max()) + 1,), -1, dtype=torch.int64)
    sin_channels[pair[is_sin]] = channel[is_sin]
    return sin_channels
