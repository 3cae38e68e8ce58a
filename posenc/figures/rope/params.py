"""The RoPE family's own parameters (the shared ones, head_dim, base, ..., are in drawing.common_params)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.common_params import MAX_HEAD_DIM
from posenc.drawing.params import ParamSpec, register_param
from posenc.i18n import N_, _


def _pair_limits(values: Mapping[str, Any]) -> tuple[int, int, str] | None:
    """A pair index below rotary_dim / 2, rotary_dim = int(head_dim · partial_rotary_factor)."""
    if "head_dim" not in values:
        return None
    rotary = int(values["head_dim"] * values.get("partial_rotary_factor", 1.0))
    return (
        0,
        max(0, rotary // 2 - 1),
        _("rotary dim {rotary} has {pairs} pairs").format(rotary=rotary, pairs=rotary // 2),
    )


register_param(
    ParamSpec(
        "pair",
        "int",
        8,
        N_("Frequency pair i"),
        0,
        MAX_HEAD_DIM // 2 - 1,
        help=N_("Pair i turns by θ_i = base^(-2i/d) radians per token; 0 is the fastest."),
        limits=_pair_limits,
    )
)


register_param(
    ParamSpec(
        "qk_seed",
        "int",
        0,
        N_("Seed of the random q, k"),
        0,
        2**31 - 1,
        help=N_("The same seed gives the same q, k."),
    )
)
