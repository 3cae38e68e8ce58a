"""How alike one patch's 2-D sin-cos vector is to every other patch's, drawn on the grid."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.common import as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import SEQUENTIAL_SCALE
from posenc.figures.vision.grid import square_cells
from posenc.i18n import N_, _
from posenc_core.device import resolve_device, work_dtype
from posenc_core.encodings import vision


@register(
    "vision-sincos-similarity",
    title=N_("2-D sin-cos: one patch against all"),
    page="vision",
    params=("grid_h", "grid_w", "embed_dim", "patch_row", "patch_col"),
)
def patch_similarity(p: Mapping[str, Any]) -> FigureResult:
    rows, columns, dim = p["grid_h"], p["grid_w"], int(p["embed_dim"])
    row, col = p["patch_row"], p["patch_col"]
    if not (0 <= row < rows and 0 <= col < columns):
        raise ValueError(
            _("patch_row and patch_col must be inside the {rows}×{columns} grid (got ({row}, {col}))").format(
                rows=rows, columns=columns, row=row, col=col
            )
        )
    device = resolve_device(p["device"])
    table = vision.sincos_2d(rows, columns, dim, device=device, dtype=work_dtype(device))  # (H·W, dim)
    chosen = table[row * columns + col]
    cosine = (table @ chosen) / (table.norm(dim=1) * chosen.norm())  # every row has norm sqrt(dim/2)
    grid = cosine.reshape(rows, columns)
    fig = go.Figure(
        go.Heatmap(
            z=as_array(grid),
            x=np.arange(columns),
            y=np.arange(rows),
            colorscale=SEQUENTIAL_SCALE,
            zmax=1.0,
            colorbar={"title": {"text": _("cosine")}},
            hovertemplate=_("patch row %{y}, column %{x}<br>cosine %{z:.4f}") + "<extra></extra>",
        )
    )
    fig.add_shape(
        type="rect", x0=col - 0.5, x1=col + 0.5, y0=row - 0.5, y1=row + 0.5, line={"color": "white", "width": 2}
    )
    square_cells(fig, rows, columns)
    fig.update_layout(
        title=_("Cosine to patch ({row}, {col}), {rows}×{columns}, dim={dim}").format(
            row=row, col=col, rows=rows, columns=columns, dim=dim
        ),
        xaxis_title=_("patch column c"),
        yaxis_title=_("patch row r"),
        height=420,
    )
    return FigureResult(fig, {"similarity": as_array(grid)}, (_("the chosen patch is outlined"),))
