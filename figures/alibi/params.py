"""The ALiBi family's parameters (heads to draw, MPT's alibi_bias_max, mass), the slopes they give, titles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from figures.common_params import MAX_HEADS
from figures.params import ParamSpec, index_below, register_param
from posenc_core import alibi

register_param(
    ParamSpec(
        "heads",
        "ints",
        (0, 7),
        "Heads to draw",
        0,
        MAX_HEADS - 1,
        max_items=4,
        help="Head indices h (0-based, at most 4); heads >= n_heads are left out.",
        limits=index_below("n_heads", "the model has {n} heads"),
    )
)


register_param(
    ParamSpec(
        "mode",
        "choice",
        "causal",
        "Bias",
        choices=("causal", "symmetric"),
        choice_labels={"causal": "causal −m·(i−j)", "symmetric": "symmetric −m·|i−j|"},
    )
)


register_param(
    ParamSpec(
        "alibi_bias_max",
        "float",
        8.0,
        "alibi_bias_max (MPT)",
        1.0,
        64.0,
        help="Slopes are 2^(−max·(h+1)/n); 8 gives the reference (and BLOOM) slopes.",
    )
)


register_param(
    ParamSpec(
        "mass",
        "float",
        0.9,
        "Attention mass for the span",
        0.5,
        0.999,
        help="The effective span of a head is the number of nearest tokens that receive this share of attention.",
    )
)


def head_slopes(p: Mapping[str, Any]) -> torch.Tensor:
    """The slope of every head (H,): MPT's formula, which equals the reference at alibi_bias_max = 8."""
    return alibi.mpt_slopes(p["n_heads"], p["alibi_bias_max"], device="cpu", dtype=torch.float64)


def describe(p: Mapping[str, Any]) -> str:
    bias_max = "" if p["alibi_bias_max"] == 8.0 else f", alibi_bias_max={p['alibi_bias_max']:g}"
    return f"n_heads={p['n_heads']}{bias_max}"


def format_number(value: float) -> str:
    """-1,004,000 for large values, -0.5 for small ones."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def chosen_heads(p: Mapping[str, Any]) -> tuple[list[int], str | None]:
    """The requested heads that exist; a note on those left out. ValueError when none is left."""
    heads = [h for h in p["heads"] if h < p["n_heads"]]
    left_out = [h for h in p["heads"] if h >= p["n_heads"]]
    if not heads:
        raise ValueError(f"heads must hold a head index below n_heads={p['n_heads']} (got {list(p['heads'])})")
    note = f"heads {', '.join(map(str, left_out))} left out: n_heads={p['n_heads']}" if left_out else None
    return heads, note
