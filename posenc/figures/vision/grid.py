"""The patch grid a ViT reads: the token index of every patch (row by row) and the [CLS] token before them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.common import as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import SEQUENTIAL_SCALE
from posenc.figures.mrope.grid import integer_ticks
from posenc.i18n import N_, _

LABELLED_CELLS = 196  # grids up to 14 x 14 print each patch's token index in its cell
CLS_COLOUR = "#d62728"
GRID_HEIGHT = 520  # px: a 14 x 14 grid's cells hold their three-digit token numbers on a desktop


def square_cells(fig: go.Figure, rows: int, columns: int, **where: Any) -> None:
    """Grid axes: whole-number ticks, row 0 at the top, square cells."""
    fig.update_xaxes(**integer_ticks(0, columns - 1), showgrid=False, constrain="domain", **where)
    fig.update_yaxes(
        **integer_ticks(0, rows - 1),
        autorange="reversed",
        showgrid=False,
        scaleanchor=_x_of(where),
        constrain="domain",
        **where,
    )


def _x_of(where: Mapping[str, Any]) -> str:
    """The x axis a subplot's y axis is anchored to ("x", "x2", ...)."""
    column = where.get("col", 1)
    return "x" if column == 1 else f"x{column}"


@register(
    "vision-patch-grid",
    title=N_("ViT's patch grid: token order and [CLS]"),
    page="vision",
    params=("grid_h", "grid_w", "cls_token"),
)
def patch_grid(p: Mapping[str, Any]) -> FigureResult:
    rows, columns, cls = p["grid_h"], p["grid_w"], p["cls_token"]
    first = 1 if cls else 0
    token = np.arange(rows * columns).reshape(rows, columns) + first  # patch (r, c) is token first + r·W + c
    labelled = rows * columns <= LABELLED_CELLS
    fig = go.Figure(
        go.Heatmap(
            z=as_array(token),
            x=np.arange(columns),
            y=np.arange(rows),
            text=token.astype(str) if labelled else None,
            texttemplate="%{text}" if labelled else None,
            colorscale=SEQUENTIAL_SCALE,
            colorbar={"title": {"text": _("token")}},
            hovertemplate=_("patch row %{y}, column %{x}<br>token %{z}") + "<extra></extra>",
        )
    )
    square_cells(fig, rows, columns)
    if cls:  # token 0 in its own cell left of the grid, named under it (the name is wider than a cell)
        fig.add_shape(type="rect", x0=-2.5, x1=-1.5, y0=-0.5, y1=0.5, fillcolor=CLS_COLOUR, line={"width": 0})
        fig.add_annotation(x=-2, y=0, text="0", showarrow=False, font={"color": "white"})
        fig.add_annotation(x=-2, y=0.5, yanchor="top", text="[CLS]", showarrow=False, font={"color": CLS_COLOUR})
        fig.update_xaxes(range=[-2.6, columns - 0.5])
    fig.update_layout(
        title=(
            _("{rows}×{columns} patches, read row by row after [CLS]")
            if cls
            else _("{rows}×{columns} patches, read row by row")
        ).format(rows=rows, columns=columns),
        xaxis_title=_("patch column c"),
        yaxis_title=_("patch row r"),
        height=GRID_HEIGHT,
    )
    notes = [
        (
            _("{count:,} tokens: [CLS] = 0, patch (r, c) = {first} + r·{columns} + c")
            if cls
            else _("{count:,} tokens: patch (r, c) = {first} + r·{columns} + c")
        ).format(count=rows * columns + first, first=first, columns=columns)
    ]
    return FigureResult(fig, {"token": as_array(token)}, tuple(notes))
