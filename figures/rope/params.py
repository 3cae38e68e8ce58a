"""The RoPE family's own parameters (the shared ones, head_dim, base, ..., are in figures.common_params)."""

from __future__ import annotations

from figures.common_params import MAX_HEAD_DIM
from figures.params import ParamSpec, register_param

register_param(
    ParamSpec(
        "pair",
        "int",
        8,
        "Frequency pair i",
        0,
        MAX_HEAD_DIM // 2 - 1,
        help="Pair i turns by θ_i = base^(-2i/d) radians per token; 0 is the fastest.",
    )
)


register_param(
    ParamSpec("qk_seed", "int", 0, "Seed of the random q, k", 0, 2**31 - 1, help="The same seed gives the same q, k.")
)
