"""One image or video's tokens on their grid, with the ids each token gets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from posenc.drawing.common import as_array, sampled_note
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import SEQUENTIAL_SCALE
from posenc.figures.mrope.segments import position_ids, segment_spans
from posenc.i18n import N_, _
from posenc_core import sampling

GRID_FRAMES = 4  # temporal patches (two frames each) of a video drawn side by side in the grid figure


GRID_LABELS = 144  # cells up to which the grid prints each token's ids


INTEGER_TICKS = 10  # at most about this many ticks on an integer axis


def integer_ticks(low: int, high: int, most: int = INTEGER_TICKS) -> dict[str, Any]:
    """Ticks on whole numbers only (rows, columns, token indices): every one when at most ``most`` fit, else
    every 2nd, 5th, 10th, 20th, ... (a step of 1, 2 or 5 x 10^k), on multiples of that step."""
    span = max(high - low, 1)
    steps = (mantissa * 10**power for power in range(12) for mantissa in (1, 2, 5))
    step = next(step for step in steps if span / step <= most)
    return {"tick0": 0, "dtick": step, "tickformat": "d"}


@register(
    "mrope-grid",
    title=N_("M-RoPE: the (T, H, W) ids of one image or video on its token grid"),
    page="mrope",
    params=("segments", "spatial_merge_size", "vision_index"),
)
def vision_grid(p: Mapping[str, Any]) -> FigureResult:
    segments, ids = position_ids(p)
    merge, vision = p["spatial_merge_size"], [span for span in segment_spans(segments) if span[0].kind != "text"]
    if not vision:
        fig = go.Figure()
        fig.add_annotation(text=_("segments hold no image or video"), showarrow=False, xref="paper", yref="paper")
        fig.update_layout(title=_("M-RoPE token grid: no image or video in segments"), height=260)
        return FigureResult(fig, {}, (_("add an item such as image:1x4x6 to see its grid"),))
    index = min(p["vision_index"], len(vision))  # the last one when segments hold fewer
    s, first, end = vision[index - 1]
    gt, gh, gw = s.t, s.h // merge, s.w // merge
    block = ids[:, first:end].reshape(3, gt, gh, gw)  # t-major order, as Qwen2-VL flattens the grid
    frames = min(gt, GRID_FRAMES)
    rows = sampling.strided_positions(gh, sampling.MAX_CELLS_PER_AXIS // 2)
    cols = sampling.strided_positions(gw, sampling.MAX_CELLS_PER_AXIS // 2)
    fig = make_subplots(
        rows=1, cols=frames, subplot_titles=[_("temporal patch t = {index}").format(index=f) for f in range(frames)]
    )
    token = torch.arange(first, end).reshape(gt, gh, gw)
    for f in range(frames):
        t_id, h_id, w_id = (block[a, f][rows][:, cols] for a in range(3))
        label = np.char.add(np.char.add(h_id.numpy().astype(str), ","), w_id.numpy().astype(str))
        fig.add_heatmap(
            z=as_array(token[f][rows][:, cols]),
            x=as_array(cols),
            y=as_array(rows),
            customdata=np.stack([t_id.numpy(), h_id.numpy(), w_id.numpy()], axis=-1),
            text=label if label.size <= GRID_LABELS else None,
            texttemplate="%{text}" if label.size <= GRID_LABELS else None,
            colorscale=SEQUENTIAL_SCALE,
            coloraxis="coloraxis",
            hovertemplate=_(
                "token %{z:,}<br>row %{y}, column %{x}<br>T, H, W ids = %{customdata[0]}, %{customdata[1]}, "
                "%{customdata[2]}"
            )
            + "<extra></extra>",
            row=1,
            col=f + 1,
        )
        fig.update_yaxes(
            autorange="reversed",
            title_text=_("token row (h / m)") if f == 0 else None,
            **integer_ticks(0, gh - 1),
            row=1,
            col=f + 1,
        )
        fig.update_xaxes(title_text=_("token column (w / m)"), **integer_ticks(0, gw - 1), row=1, col=f + 1)
    fig.update_layout(
        title=(
            _("image {index} of {count}: {t}×{h}×{w} patches → {gt}×{gh}×{gw} tokens (merge {merge})")
            if s.kind == "image"
            else _("video {index} of {count}: {t}×{h}×{w} patches → {gt}×{gh}×{gw} tokens (merge {merge})")
        ).format(index=index, count=len(vision), t=s.t, h=s.h, w=s.w, gt=gt, gh=gh, gw=gw, merge=merge)
        + (_("; cells print H,W ids") if rows.numel() * cols.numel() <= GRID_LABELS else ""),
        coloraxis={
            "colorscale": SEQUENTIAL_SCALE,
            "colorbar": {"title": {"text": _("token")}, **integer_ticks(first, end - 1)},
        },
        height=380,
    )
    offset = int(ids[0, first])
    notes = [
        _(
            "ids = grid coordinates + {offset:,} (one more than the largest id before it); T id = temporal patch + "
            "{offset:,}"
        ).format(offset=offset)
    ]
    if index < p["vision_index"]:
        notes.insert(
            0,
            _("vision_index={index}, but segments hold {count}: showing the last one").format(
                index=p["vision_index"], count=len(vision)
            ),
        )
    if frames < gt:
        notes.append(_("temporal patches 0–{last} of {count} drawn").format(last=frames - 1, count=gt))
    if rows.numel() < gh or cols.numel() < gw:
        notes.append(sampled_note(rows.numel() * cols.numel(), gh * gw, "grid cells"))
    data = {"t": as_array(block[0]).ravel(), "h": as_array(block[1]).ravel(), "w": as_array(block[2]).ravel()}
    return FigureResult(fig, data, tuple(notes))
