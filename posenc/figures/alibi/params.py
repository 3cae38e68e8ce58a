"""The ALiBi family's parameters (heads to draw, MPT's alibi_bias_max, mass), the slopes they give, titles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from posenc.drawing.common_params import MAX_HEADS
from posenc.drawing.params import ParamSpec, index_below, register_param
from posenc.i18n import N_, _
from posenc_core.encodings import alibi

MAX_PANELS = 16  # bias panels one figure draws: 4 x 4 of 128 x 128 cells each at most

register_param(
    ParamSpec(
        "heads",
        "ints",
        (0, 7),
        N_("Heads to draw"),
        0,
        MAX_HEADS - 1,
        max_items=MAX_PANELS,
        help=N_(  # 16: MAX_PANELS
            "Head indices h, 0-based and below n_heads: any 16 or fewer of the model's heads, one panel each (more "
            "panels would be too small to read; the panels share one 512 x 512 budget of cells)."
        ),
        limits=index_below("n_heads", N_("the model has {n} heads")),
    )
)


register_param(
    ParamSpec(
        "shared_scale",
        "bool",
        False,
        N_("One colour scale"),
        help=N_(
            "Off: each panel spans its own bias range (light = 0, dark = its lowest bias), so every head's "
            "pattern shows. On: one scale for all, which shows how much steeper the first head is."
        ),
    )
)


register_param(
    ParamSpec(
        "mode",
        "choice",
        "causal",
        N_("Bias"),
        choices=("causal", "symmetric"),
        choice_labels={"causal": N_("causal −m·(i−j)"), "symmetric": N_("symmetric −m·|i−j|")},
    )
)


register_param(
    ParamSpec(
        "alibi_bias_max",
        "float",
        8.0,
        N_("alibi_bias_max (MPT)"),
        1.0,
        64.0,
        help=N_("Slopes are 2^(−max·(h+1)/n); 8 gives the reference (and BLOOM) slopes."),
    )
)


register_param(
    ParamSpec(
        "mass",
        "float",
        0.9,
        N_("Attention mass for the span"),
        0.5,
        0.999,
        help=N_("The effective span of a head is the number of nearest tokens that receive this share of attention."),
    )
)


def head_slopes(p: Mapping[str, Any]) -> torch.Tensor:
    """The slope of every head (H,): MPT's formula, which equals the reference at alibi_bias_max = 8."""
    return alibi.mpt_slopes(p["n_heads"], p["alibi_bias_max"], device="cpu", dtype=torch.float64)


def describe(p: Mapping[str, Any]) -> str:
    bias_max = "" if p["alibi_bias_max"] == 8.0 else f", alibi_bias_max={p['alibi_bias_max']:g}"
    return f"n_heads={p['n_heads']}{bias_max}"


def chosen_heads(p: Mapping[str, Any]) -> list[int]:
    """The heads to draw. ValueError naming n_heads for a head the model does not have."""
    heads = [int(h) for h in p["heads"]]
    beyond = [h for h in heads if not 0 <= h < p["n_heads"]]
    if beyond:
        raise ValueError(
            _("heads must be below n_heads={n} (the model has {n} heads; got {beyond})").format(
                n=p["n_heads"], beyond=", ".join(map(str, beyond))
            )
        )
    if not heads or len(heads) > MAX_PANELS:
        raise ValueError(_("heads must list 1 to {most} heads (got {count})").format(most=MAX_PANELS, count=len(heads)))
    return heads


def reference_span(slope: float, mass: float = 0.9) -> int:
    """Tokens holding ``mass`` of the attention of a head of this slope, with an unbounded past (the core's)."""
    return int(alibi.effective_span(torch.tensor([slope], dtype=torch.float64), mass, device="cpu")[0])
