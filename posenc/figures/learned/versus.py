"""A learned table against sinusoidal and no encoding, and the positions past its last row, which it has no row for."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from posenc.drawing.common import as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY
from posenc.figures.learned.params import TABLE_PARAMS
from posenc.figures.learned.sources import load, shape_text
from posenc.figures.learned.table import SCHEME_NAMES
from posenc.i18n import N_, _
from posenc_core import sampling
from posenc_core.encodings import metrics, sinusoidal

COMPARED = ("learned", "sinusoidal", "none")
"""The schemes of the comparison, in the order of its bars and table rows."""


FAR = 50  # distance ||T[50] - T[0]||


def comparison_rows(result: FigureResult) -> list[dict[str, Any]]:
    """The comparison figure's numbers as table rows (one per scheme) for ``st.dataframe``."""
    data = result.data
    return [
        {
            _("scheme"): _(SCHEME_NAMES[name]),
            _("mean ‖T[p+1] − T[p]‖"): float(data["adjacent_mean"][i]),
            _("std ‖T[p+1] − T[p]‖"): float(data["adjacent_std"][i]),
            f"‖T[{int(data['far'][0])}] − T[0]‖": float(data["distance"][i]),
            _("mean row norm ‖T[p]‖"): float(data["row_norm"][i]),
        }
        for i, name in enumerate(COMPARED)
    ]


@register(
    "learned-compare",
    title=N_("Learned vs sinusoidal vs no position encoding: distances between rows"),
    page="learned",
    params=TABLE_PARAMS,
)
def compare_schemes(p: Mapping[str, Any]) -> FigureResult:
    table, described = load(p)
    length, width = table.shape
    if length < 2:
        raise ValueError(
            _("the table must have at least 2 rows to compare neighbours (got {length})").format(length=length)
        )
    far = min(FAR, length - 1)
    tables = {
        "learned": table,
        "sinusoidal": sinusoidal.encoding(length, width, device=table.device),
        "none": torch.zeros(length, 1, device=table.device),  # every row the same zero vector (width is moot)
    }
    stats = metrics.compare_schemes(tables, anchor=0, other=far)
    row_norm = [float(torch.linalg.vector_norm(t, dim=1).mean()) for t in tables.values()]
    column = {key: np.array([stats[name][key] for name in COMPARED], dtype=np.float32) for key in stats["learned"]}
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.12,
        subplot_titles=(
            _("neighbours (± std)<br>‖T[p+1] − T[p]‖"),
            _("far apart<br>‖T[{far}] − T[0]‖").format(far=far),
        ),
    )
    colours = COLORWAY[: len(COMPARED)]
    names = [_(SCHEME_NAMES[name]) for name in COMPARED]
    fig.add_bar(
        x=names,
        y=column["adjacent_mean"],
        error_y={"type": "data", "array": column["adjacent_std"]},
        marker_color=colours,
        showlegend=False,
        hovertemplate=_("%{x}<br>mean %{y:.4g}") + "<extra></extra>",
        row=1,
        col=1,
    )
    fig.add_bar(
        x=names,
        y=column["distance"],
        marker_color=colours,
        showlegend=False,
        hovertemplate=f"%{{x}}<br>‖T[{far}] − T[0]‖ %{{y:.4g}}<extra></extra>",
        row=1,
        col=2,
    )
    fig.update_yaxes(title_text=_("Euclidean distance"), row=1, col=1)
    fig.update_layout(
        title=_("Distances between rows:<br>{described}, {shape}").format(described=described, shape=shape_text(table)),
        height=480,
        margin={"t": 150},
    )
    notes = (
        _(
            "none: every position gets the same (zero) vector, so every distance is 0: attention cannot tell "
            "positions apart"
        ),
        _(
            "the scales differ: sinusoidal rows have norm √(d/2) = {sinusoidal:.3g}, the learned rows {learned:.3g} "
            "on average; compare each bar with its row norm (table below)"
        ).format(sinusoidal=row_norm[1], learned=row_norm[0]),
    )
    data = {**column, "row_norm": np.array(row_norm, dtype=np.float32), "far": np.array([far], dtype=np.float32)}
    return FigureResult(fig, data, notes)


@register(
    "learned-beyond",
    title=N_("Past the table's end: positions without a row"),
    page="learned",
    params=(*TABLE_PARAMS, "seq_len"),
)
def beyond_the_table(p: Mapping[str, Any]) -> FigureResult:
    table, described = load(p)
    rows, seq_len = table.shape[0], p["seq_len"]
    positions = sampling.sampled_positions(rows, sampling.MAX_CURVE_POINTS)
    norms = torch.linalg.vector_norm(table[positions.to(table.device)].double(), dim=1)
    fig = go.Figure(
        go.Scatter(
            x=as_array(positions),
            y=as_array(norms),
            mode="lines",
            name="‖table[p]‖",
            hovertemplate=_("position %{x:,}<br>‖table[p]‖ %{y:.4g}") + "<extra></extra>",
        )
    )
    end = max(seq_len, rows)
    if seq_len > rows:
        fig.add_vrect(
            x0=rows - 0.5,
            x1=seq_len - 0.5,
            fillcolor="rgba(214,39,40,0.15)",
            line_width=0,
            annotation_text=_("no row for positions {rows:,}..{last:,}").format(rows=rows, last=seq_len - 1),
            annotation_position="top right",  # inside the plot, however narrow
        )
    else:
        fig.add_vline(x=seq_len - 0.5, line_dash="dash", annotation_text=f"seq_len = {seq_len:,}")
    fig.update_layout(
        title=_("Row norms of {described},<br>{shape}; seq_len={seq_len:,}").format(
            described=described, shape=shape_text(table), seq_len=seq_len
        ),
        margin={"t": 90},
        xaxis_title=_("position p (tokens)"),
        yaxis_title="‖table[p]‖",
        xaxis_range=[-0.5, end - 0.5],
        yaxis_rangemode="tozero",
    )
    if seq_len > rows:
        missing = seq_len - rows
        notes = (
            _(
                "{missing:,} of the {seq_len:,} requested positions ({share:.1%}) have no row: an nn.Embedding lookup "
                "there fails with 'index out of range'. Nothing computes the missing rows: a longer context needs a "
                "longer table, interpolated from the trained rows (as ViT does for larger images, usually with some "
                "fine-tuning) or trained."
            ).format(missing=missing, seq_len=seq_len, share=missing / seq_len),
        )
    else:
        notes = (
            _("all {seq_len:,} positions have a row; position {rows:,} and later would not").format(
                seq_len=seq_len, rows=rows
            ),
        )
    data = {"positions": as_array(positions), "row_norm": as_array(norms)}
    data["table_shape"] = np.asarray(table.shape, dtype=np.float32)  # (rows, channels) of the whole table
    return FigureResult(fig, data, notes)
