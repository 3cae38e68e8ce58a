"""T5's relative position buckets: bucket against distance, the bucket table, and the bucket matrix."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import torch

from posenc.drawing.common import LEGEND_BELOW, as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.shown import shown_positions
from posenc.drawing.theme import COLORWAY, SEQUENTIAL_SCALE
from posenc.figures.relative.params import t5_args, t5_describe
from posenc.figures.relative.shaw import MATRIX_CELLS, hidden_note, matrix_figure
from posenc.i18n import N_, _
from posenc_core.encodings import relative


def _first_reaching(bucket_of, targets: torch.Tensor, low: int, high: int) -> torch.Tensor:
    """Per target, the smallest distance n in low..high with bucket_of(n) >= target (bisection, ~21 steps:
    T5's bucket never decreases as the distance grows)."""
    lo, hi = torch.full_like(targets, low), torch.full_like(targets, high)
    while bool((lo < hi).any()):
        mid = (lo + hi) // 2
        reached = bucket_of(mid) >= targets
        lo, hi = torch.where(reached, lo, mid + 1), torch.where(reached, mid, hi)
    return lo


def _side_segments(bucket_of, low: int, high: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(bucket, first distance, last distance) of every bucket one side reaches; the last one never ends."""
    ends = bucket_of(torch.tensor([low, high]))
    starts = torch.unique(_first_reaching(bucket_of, torch.arange(int(ends[0]), int(ends[1]) + 1), low, high))
    last = torch.cat([starts[1:].double() - 1, torch.tensor([math.inf], dtype=torch.float64)])
    return bucket_of(starts), starts.double(), last


def bucket_segments(p: Mapping[str, Any], bidirectional: bool | None = None) -> pd.DataFrame:
    """Each T5 bucket with the relative positions j − i it covers (±inf: unbounded), in order of j − i.

    Every value comes from the core's ``t5_bucket``; the cuts between buckets are found by bisection over the
    distance, so max_distance = 1M costs ~20 evaluations of 1024 buckets, not 2M evaluations.
    """
    args = t5_args(p, bidirectional)
    reach = args["max_distance"] + 1  # beyond max_distance nothing changes

    def past(n: torch.Tensor) -> torch.Tensor:
        return relative.t5_bucket(-n, **args)

    bucket, first, last = _side_segments(past, 0, reach)  # keys n tokens before the query
    frame = pd.DataFrame({"bucket": bucket.numpy(), "min_rel": (-last).numpy(), "max_rel": (-first).numpy()})
    if args["bidirectional"]:
        bucket, first, last = _side_segments(lambda n: relative.t5_bucket(n, **args), 1, reach)  # keys after
        future = pd.DataFrame({"bucket": bucket.numpy(), "min_rel": first.numpy(), "max_rel": last.numpy()})
        frame = pd.concat([frame, future])
    else:
        frame.loc[frame["max_rel"] == 0, "max_rel"] = math.inf  # causal: every later key shares bucket 0
    return frame.sort_values("min_rel", ignore_index=True)


def max_exact(p: Mapping[str, Any], bidirectional: bool | None = None) -> int:
    """Offsets below this distance get a bucket each (T5: half the buckets of a side)."""
    chosen = p["bidirectional"] if bidirectional is None else bidirectional
    return (p["num_buckets"] // 2 if chosen else p["num_buckets"]) // 2


def _rel_text(low: float, high: float) -> str:
    def show(value: float) -> str:
        return f"{value:+,.0f}" if value else "0"

    if math.isinf(low):
        return f"≤ {show(high)}"
    if math.isinf(high):
        return _("0 and every key after the query") if low == 0 else f"≥ {show(low)}"
    return show(low) if low == high else f"{show(low)} … {show(high)}"


@register(
    "relative-t5-bucket",
    title=N_("T5 bucket of each relative position"),
    page="relative",
    params=("num_buckets", "max_distance", "bidirectional"),
)
def t5_bucket_figure(p: Mapping[str, Any]) -> FigureResult:
    reach = p["max_distance"] + max(p["max_distance"] // 4, 4)  # show where the last bucket takes over
    bucket_segments(p)  # the chosen variant's settings must hold (a ValueError naming max_distance otherwise)
    other = not p["bidirectional"]
    other_fits = p["max_distance"] > max_exact(p, other)  # the core's rule, for the variant drawn for comparison
    fig, data = go.Figure(), {}
    for k, bidirectional in enumerate(sorted((True, False), key=lambda b: b == p["bidirectional"])):
        if bidirectional == other and not other_fits:
            continue
        name = _("bidirectional (encoder)") if bidirectional else _("causal (decoder)")
        segments = bucket_segments(p, bidirectional)
        x = np.append(segments["min_rel"].clip(-reach, reach).to_numpy(), reach)
        y = np.append(segments["bucket"].to_numpy(), segments["bucket"].iloc[-1])
        covers = [*map(_rel_text, segments["min_rel"], segments["max_rel"]), ""]
        chosen = bidirectional == p["bidirectional"]
        fig.add_scatter(
            x=x,
            y=y,
            customdata=covers,
            mode="lines",
            line_shape="hv",
            name=name,
            line={"color": COLORWAY[k], "dash": None if chosen else "dot"},
            opacity=1.0 if chosen else 0.55,
            hovertemplate=name + "<br>" + _("bucket %{y}<br>covers j − i: %{customdata}") + "<extra></extra>",
        )
        data[f"{'bidirectional' if bidirectional else 'causal'}_bucket_start"] = as_array(x[:-1])
        data[f"{'bidirectional' if bidirectional else 'causal'}_bucket"] = as_array(y[:-1])
    exact, distance = max_exact(p), p["max_distance"]
    low_exact = -(exact - 0.5)
    high_exact = exact - 0.5 if p["bidirectional"] else 0.5
    fig.add_vrect(x0=low_exact, x1=high_exact, fillcolor="#2ca02c", opacity=0.12, line_width=0)
    fig.add_annotation(
        x=0,
        y=1,
        yref="paper",
        text=_("exact: |j − i| < {exact}").format(exact=exact),
        showarrow=False,
        yanchor="bottom",
    )
    for sign in (-1, 1) if p["bidirectional"] else (-1,):
        fig.add_vrect(x0=sign * distance, x1=sign * reach, fillcolor="#888", opacity=0.12, line_width=0)
        fig.add_vline(x=sign * distance, line_dash="dot", line_color="#888")
    fig.add_annotation(
        x=-distance, y=1, yref="paper", text="max_distance", showarrow=False, xanchor="right", yanchor="bottom"
    )
    fig.update_layout(
        title=_("T5 bucket of the offset j − i<br>{described}").format(described=t5_describe(p)),
        xaxis_title=_("j − i (tokens; < 0: the key comes first)"),
        yaxis_title=_("bucket"),
        legend=LEGEND_BELOW,
        height=460,
        margin={"t": 90},
    )
    notes = (
        _(
            "green: the exact region (one offset per bucket, |j − i| < {exact}); between it and ±max_distance the "
            "buckets widen logarithmically; grey: beyond ±{distance:,} every offset shares the last bucket of its side"
        ).format(exact=exact, distance=distance),
    )
    if not other_fits:
        side = _("bidirectional (encoder)") if other else _("causal (decoder)")
        notes += (
            _("{side} not drawn: its {exact} exact buckets need max_distance >= {least} (got {distance:,})").format(
                side=side, exact=max_exact(p, other), least=max_exact(p, other) + 1, distance=distance
            ),
        )
    return FigureResult(fig, data, notes)


def t5_bucket_table(p: Mapping[str, Any]) -> pd.DataFrame:
    """One row per used bucket: the relative positions it covers, how many, and its region."""
    segments = bucket_segments(p).sort_values("bucket")
    exact = max_exact(p)
    width = segments["max_rel"] - segments["min_rel"] + 1
    distance = np.minimum(segments["min_rel"].abs(), segments["max_rel"].abs())
    region = np.select(
        [(segments["min_rel"] == 0) & (width == np.inf), width == np.inf, (width == 1) & (distance < exact)],
        [_("exact"), _("last: every farther offset"), _("exact")],
        _("log"),
    )
    return pd.DataFrame(
        {
            _("bucket"): segments["bucket"].to_numpy(),
            _("relative positions j − i"): [*map(_rel_text, segments["min_rel"], segments["max_rel"])],
            _("offsets covered"): [("∞" if math.isinf(w) else f"{w:,.0f}") for w in width],
            _("region"): region,
        }
    )


@register(
    "relative-t5-matrix",
    title=N_("T5 bucket matrix"),
    page="relative",
    params=("num_buckets", "max_distance", "bidirectional", "seq_len", "view", "start"),
)
def t5_matrix_figure(p: Mapping[str, Any]) -> FigureResult:
    positions, position_note = shown_positions(p, p["seq_len"], MATRIX_CELLS)
    buckets = relative.t5_bucket_matrix(
        p["seq_len"], query_positions=positions, key_positions=positions, device=p["device"], **t5_args(p)
    )  # (Q, K)
    fig = matrix_figure(
        buckets,
        positions,
        title=_("T5 bucket of (query i, key j)<br>{described}, L={length:,}").format(
            described=t5_describe(p), length=p["seq_len"]
        ),
        value_name=_("bucket"),
        colorscale=SEQUENTIAL_SCALE,
        zmin=0,
        zmax=p["num_buckets"] - 1,
    )
    exact = max_exact(p)
    hidden = hidden_note(
        p,
        positions,
        exact,
        _("every offset of the exact region (|j − i| < {exact}, a bucket each)").format(exact=exact),
    )
    notes = (position_note, *((hidden,) if hidden else ()))
    return FigureResult(fig, {"bucket": as_array(buckets), "positions": as_array(positions)}, notes)
