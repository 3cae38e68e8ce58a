"""RoPE's frequencies for a page's values: the rotary dim (partial rotary), inv_freq, titles, aliasing notes."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from posenc.i18n import _
from posenc_core import rope, sampling

TWO_PI = 2.0 * math.pi


def rotary_dim(p: Mapping[str, Any]) -> int:
    """d = int(head_dim * partial_rotary_factor): the channels that rotate (HF, GPT-NeoX ``rotary_pct``)."""
    return int(p["head_dim"] * p["partial_rotary_factor"])


def rotary_inv_freq(p: Mapping[str, Any], dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """inv_freq (d/2,) of plain RoPE for the page's head_dim, base and partial_rotary_factor."""
    inv_freq, _ = rope.inv_freq(
        p["head_dim"],
        p["base"],
        None,
        partial_rotary_factor=p["partial_rotary_factor"],
        device=p["device"],
        dtype=dtype,
    )
    return inv_freq


def pair_turn(p: Mapping[str, Any]) -> tuple[float, float, float]:
    """(θ_i in rad per token, the same in degrees, λ_i = 2π/θ_i in tokens) of pair ``p["pair"]``, on the cpu."""
    theta = float(rotary_inv_freq({**p, "device": "cpu"})[p["pair"]])  # float32, as the figure
    return theta, math.degrees(theta), TWO_PI / theta


def describe(p: Mapping[str, Any], *, length: bool = True) -> str:
    """'head_dim=96, rotary d=24 (×0.25), base=10000, L=2,048' for titles (×: partial_rotary_factor)."""
    text = f"head_dim={p['head_dim']}"
    if rotary_dim(p) < p["head_dim"]:
        text += f", rotary d={rotary_dim(p)} (×{p['partial_rotary_factor']:g})"
    text += f", base={p['base']:.10g}"
    return text + (f", L={p['seq_len']:,}" if length else "")


def aliasing_note(positions: torch.Tensor, wavelengths: torch.Tensor, first_pair: int = 0) -> str | None:
    """Which pairs (indices from ``first_pair``) turn more than half a turn between neighbouring shown positions
    (None when none do)."""
    stride = sampling.sampling_stride(positions)
    fast = [first_pair + i for i, value in enumerate(wavelengths.tolist()) if sampling.aliases(stride, value)]
    if not sampling.is_sampled(positions) or not fast:
        return None
    if len(fast) == 1:
        message = _(
            "Pair {first} turns more than half a turn between shown positions (up to {stride:,.0f} tokens apart): "
            "the values are exact but look random (aliasing); the window view shows the rotation."
        )
    else:
        message = _(
            "Pairs {first}–{last} turn more than half a turn between shown positions (up to {stride:,.0f} tokens "
            "apart): the values are exact but look random (aliasing); the window view shows the rotation."
        )
    return message.format(first=fast[0], last=fast[-1], stride=stride)
