"""RoPE's relative property: the score q_m·k_n of a random q, k depends on m - n only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from posenc.drawing.common import LEGEND_BELOW, as_array, heatmap, lines, sampled_note
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.shown import shown_positions
from posenc.drawing.theme import DIVERGING_SCALE
from posenc.figures.rope.frequencies import describe, rotary_inv_freq
from posenc.i18n import N_, _
from posenc_core import rope, sampling
from posenc_core.device import resolve_device

SCORE_POSITIONS = 360  # rows and columns of the score matrix (with the angle heatmap the page stays under 3 MB)


PROFILE_POINTS = 1024  # distances per profile curve (4 curves: 4096 points)


PROFILE_ANCHORS = 4  # curves (key positions) in the profile


DASHES = ("solid", "dash", "dot", "dashdot")


RELATIVE_PARAMS = ("seq_len", "head_dim", "base", "partial_rotary_factor", "rope_layout", "view", "start", "qk_seed")


def random_qk(p: Mapping[str, Any], dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """q, k ~ N(0, 1)^head_dim from ``qk_seed`` (the same vectors on every device and dtype)."""
    generator = torch.Generator().manual_seed(p["qk_seed"])
    q, k = torch.randn(2, p["head_dim"], generator=generator, dtype=torch.float64)
    device = resolve_device(p["device"])
    return q.to(device, dtype), k.to(device, dtype)


def work_dtype(p: Mapping[str, Any]) -> torch.dtype:
    return torch.float32 if resolve_device(p["device"]).type == "mps" else torch.float64


def score_positions(p: Mapping[str, Any]) -> tuple[torch.Tensor, str]:
    """The positions of :func:`drawing.shown.shown_positions`; the overview's constant stride means each
    diagonal of the matrix holds a single distance m - n, which its note says."""
    length = p["seq_len"]
    positions, note = shown_positions(p, length, SCORE_POSITIONS)
    if p["view"] == "window" or not sampling.is_sampled(positions):
        return positions, note
    stride = int(sampling.sampling_stride(positions))
    return positions, _(
        "overview, sampled: positions 0, {stride:,}, {double:,}, …, {last:,} ({count} of {length:,}), one every "
        "{stride:,} tokens so that each diagonal holds a single distance m − n"
    ).format(stride=stride, double=2 * stride, last=int(positions[-1]), count=positions.numel(), length=length)


def scores(p: Mapping[str, Any], positions, key_positions, dtype: torch.dtype) -> torch.Tensor:
    """(R(m)q)·(R(n)k) for m in ``positions``, n in ``key_positions``. Shape (P, K)."""
    q, k = random_qk(p, dtype)
    return rope.relative_scores(
        q, k, positions, rotary_inv_freq(p, dtype), key_positions=key_positions, layout=p["rope_layout"]
    )


@register("rope-scores", title=N_("RoPE score q_m·k_n for a random q, k"), page="rope", params=RELATIVE_PARAMS)
def score_matrix(p: Mapping[str, Any]) -> FigureResult:
    positions, position_note = score_positions(p)
    matrix = scores(p, positions, positions, work_dtype(p))
    fig = heatmap(
        matrix,
        positions.numpy(),
        positions.numpy(),
        title=_("Score q_m·k_n, seed {seed}, layout={layout}, {describe}").format(
            seed=p["qk_seed"], layout=p["rope_layout"], describe=describe(p)
        ),
        x_title=_("key position n (tokens)"),
        y_title=_("query position m (tokens)"),
        value_name=_("score"),
        colorscale=DIVERGING_SCALE,
        zmid=0.0,
        reversed_y=True,
    )
    fig.update_layout(height=560)
    notes = (
        position_note,
        _(
            "Score = (R(m)q)·(R(n)k) for a random q and k: the raw dot product (no 1/√d, no softmax). Every "
            "diagonal, m − n = constant, has one colour: the score depends on the distance only."
        ),
    )
    return FigureResult(fig, {"scores": as_array(matrix), "positions": as_array(positions)}, notes)


def profile_geometry(p: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
    """Key positions n_j spread over the first half of the shown range and distances Δ = 0 .. D such that every
    query n_j + Δ stays in the range: (anchors (K,), distances (<= PROFILE_POINTS,)), int64."""
    positions, _ = score_positions(p)
    first, last = int(positions[0]), int(positions[-1])
    spread = (last - first) // 2
    anchors = torch.unique(torch.linspace(first, first + spread, PROFILE_ANCHORS, dtype=torch.float64).round().long())
    reach = last - int(anchors[-1])
    return anchors, sampling.sampled_positions(reach + 1, PROFILE_POINTS)


@register(
    "rope-relative-profile",
    title=N_("RoPE score against m - n from several key positions"),
    page="rope",
    params=RELATIVE_PARAMS,
)
def relative_profile(p: Mapping[str, Any]) -> FigureResult:
    anchors, distances = profile_geometry(p)
    queries = (anchors[:, None] + distances[None, :]).flatten()  # (K * D,): query n_j + Δ for key n_j
    curves, spread = {}, {}
    for dtype in (work_dtype(p), torch.float32):
        block = scores(p, queries, anchors, dtype).view(anchors.numel(), distances.numel(), anchors.numel())
        rows = torch.stack([block[j, :, j] for j in range(anchors.numel())])  # (K, D): curve j = key n_j
        spread[dtype] = float((rows.amax(0) - rows.amin(0)).max())
        if not curves:
            curves = {_("key at n = {n:,}").format(n=int(n)): row for n, row in zip(anchors, rows, strict=True)}
    fig = lines(
        distances.numpy(),
        curves,
        title=_("Score vs m − n, {count} key positions, seed {seed}, layout={layout}, {describe}").format(
            count=len(curves), seed=p["qk_seed"], layout=p["rope_layout"], describe=describe(p)
        ),
        x_title=_("relative distance m − n (tokens)"),
        y_title=_("score (R(m)q)·(R(n)k)"),
    )
    for trace, dash in zip(fig.data, DASHES, strict=False):
        trace.line.dash = dash
    fig.update_layout(height=460, legend={**LEGEND_BELOW, "title": {"text": _("one point per diagonal from")}})
    last = int(anchors[-1] + distances[-1])
    notes = [
        _(
            "Each curve reads one point off every diagonal m − n of the full matrix; the curves coincide: largest "
            "difference {spread:.2g}. With float32 angles (as HF computes them, positions up to {last:,}) it is "
            "{spread32:.2g}."
        ).format(spread=spread[work_dtype(p)], last=last, spread32=spread[torch.float32]),
    ]
    if distances.numel() < int(distances[-1]) + 1:
        notes.append(sampled_note(distances.numel(), int(distances[-1]) + 1, "distances"))
    data = {
        "distance": as_array(distances),
        **{f"score_n{int(n)}": as_array(r) for n, r in zip(anchors, curves.values(), strict=True)},
    }
    return FigureResult(fig, data, tuple(notes))
