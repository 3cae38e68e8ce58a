"""RoFormer's long-term decay: the bound on the RoPE score against the distance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from posenc.drawing.common import as_array, lines
from posenc.drawing.registry import FigureResult, register
from posenc.figures.rope.frequencies import describe, rotary_dim
from posenc.i18n import N_, _
from posenc_core import sampling
from posenc_core.rope import bounds as rope_bounds

DECAY_POINTS = sampling.MAX_CURVE_POINTS


DENSE_DISTANCES = 2048  # a long decay curve holds every distance below this, then evenly spaced ones


LOG_DISTANCE_FROM = 16384  # longer contexts get a log distance axis (the decay happens in the first hundreds)


def decay_distances(length: int, dim: int, base: float, device) -> tuple[torch.Tensor, torch.Tensor, str]:
    """The bound at every distance 0 .. L-1 when they fit in DECAY_POINTS; else at every distance below
    DENSE_DISTANCES (where it falls) and at evenly spaced distances up to L-1. (distances, bound, note)."""
    if length <= DECAY_POINTS:
        distances, bound = rope_bounds.decay_bound(length - 1, dim, base, device=device)
        return distances, bound, _("all {length:,} distances 0 .. {last:,}").format(length=length, last=length - 1)
    near, near_bound = rope_bounds.decay_bound(DENSE_DISTANCES - 1, dim, base, device=device)
    far, far_bound = rope_bounds.decay_bound(
        length - 1, dim, base, num_points=DECAY_POINTS - DENSE_DISTANCES, device=device
    )
    keep = far > near[-1]
    note = _(
        "sampled: every distance 0 .. {dense:,}, then {count:,} evenly spaced distances up to {last:,} (exact values "
        "at those distances)"
    ).format(dense=DENSE_DISTANCES - 1, count=int(keep.sum()), last=length - 1)
    return torch.cat((near, far[keep])), torch.cat((near_bound, far_bound[keep])), note


@register(
    "rope-decay",
    title=N_("RoPE long-term decay bound against relative distance"),
    page="rope",
    params=("seq_len", "head_dim", "base", "partial_rotary_factor"),
)
def decay_curve(p: Mapping[str, Any]) -> FigureResult:
    length, dim = p["seq_len"], rotary_dim(p)
    distances, bound, distance_note = decay_distances(length, dim, p["base"], p["device"])
    log_x = length > LOG_DISTANCE_FROM
    fig = lines(
        as_array(distances),
        {"(1/(d/2)) Σ_j |S_j|": bound},
        title=_("RoFormer long-term decay bound, {describe}").format(describe=describe(p)),
        x_title=_("relative distance m − n (tokens, log scale)") if log_x else _("relative distance m − n (tokens)"),
        y_title=_("bound (1/(d/2)) Σ_j |S_j|"),
        log_x=log_x,
    )
    fig.update_layout(height=400, showlegend=False)
    notes = (
        _(
            "S_j = Σ_{{i<j}} exp(i·(m−n)·θ_i). RoFormer §3.4.3: |score| ≤ (max_i |h_{{i+1}} − h_i|)·Σ_j |S_j|, h_i "
            "the product of pair i of q and k (d = {dim} rotary channels); the sum shrinks as m − n grows."
        ).format(dim=dim),
        distance_note,
    )
    return FigureResult(fig, {"distance": as_array(distances), "bound": as_array(bound)}, notes)
