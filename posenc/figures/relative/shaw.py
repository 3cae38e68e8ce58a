"""Shaw et al.'s clipped relative index matrix, and the matrix figure the relative views share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch

from posenc.drawing.common import as_array, heatmap
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.shown import shown_positions
from posenc.drawing.theme import DIVERGING_SCALE
from posenc.i18n import N_, _
from posenc_core.encodings import relative

MATRIX_CELLS = 512  # rows and columns of each matrix (small integers: two 512 x 512 fit in the page's 3 MB)


def _small_ints(values: torch.Tensor) -> np.ndarray:
    """Integer matrices go to Plotly as int16 (int32 when needed): half the bytes of float32."""
    array = values.detach().cpu().numpy()
    return array.astype(np.int16 if int(array.max(initial=0)) < 2**15 else np.int32)


def matrix_figure(values, positions, *, title: str, value_name: str, **scale) -> go.Figure:
    axis = as_array(positions).astype(np.int64)
    fig = heatmap(
        np.zeros((len(axis), len(axis))),
        axis,
        axis,
        title=title,
        x_title=_("key position j (tokens)"),
        y_title=_("query position i (tokens)"),
        value_name=value_name,
        reversed_y=True,
        **scale,
    )
    fig.update_traces(z=_small_ints(values))
    fig.update_layout(height=560, margin={"t": 90})  # titles of two lines: each fits a phone
    return fig


def hidden_note(p: Mapping[str, Any], positions: torch.Tensor, reach: int, what: str) -> str | None:
    """In an overview with one cell every s > ``reach`` positions: a caption saying that ``what`` is hidden."""
    if p["view"] == "window" or positions.numel() < 2:
        return None
    stride = int(positions[1] - positions[0])
    if stride <= reach:
        return None
    return _(
        "sampling hides the near offsets: one cell every {stride:,} positions, so {what} falls inside the diagonal "
        "cells; the window view draws every position"
    ).format(stride=stride, what=what)


@register(
    "relative-shaw",
    title=N_("Shaw relative index matrix"),
    page="relative",
    params=("seq_len", "clip_distance", "view", "start"),
)
def shaw_figure(p: Mapping[str, Any]) -> FigureResult:
    k = p["clip_distance"]
    positions, position_note = shown_positions(p, p["seq_len"], MATRIX_CELLS)
    index = relative.shaw_index(
        p["seq_len"], p["seq_len"], k, query_positions=positions, key_positions=positions, device=p["device"]
    )  # (Q, K) in 0..2k
    fig = matrix_figure(
        index,
        positions,
        title=_("Shaw relative index clip(j − i, −k, k) + k<br>k={k:,}, L={length:,}").format(k=k, length=p["seq_len"]),
        value_name=_("index"),
        colorscale=DIVERGING_SCALE,
        zmin=0,
        zmax=2 * k,
        zmid=k,
    )
    notes = (
        position_note,
        _(
            "index {k:,} = same position; 0 = the key is {k:,} or more tokens before the query, {top:,} = {k:,} or "
            "more after (an embedding table of {rows:,} rows)"
        ).format(k=k, top=2 * k, rows=2 * k + 1),
    )
    hidden = hidden_note(
        p, positions, k, _("every offset inside ±k = ±{k:,} (the band of distinct indices)").format(k=k)
    )
    notes += (hidden,) if hidden else ()
    return FigureResult(fig, {"index": as_array(index), "positions": as_array(positions)}, notes)
