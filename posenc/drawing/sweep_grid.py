"""A sweep's frames side by side, for a paper: one subplot per frame, titled with its value, on the page of a size
preset, as PNG, SVG or PDF through the same Plotly export as a still figure.

Each frame's traces, axis types, ranges (the same for every frame: ``animate.hold_still``) and its shapes drawn on
the data (a context line) are copied into its cell; the legend and a colour bar are shown once. A figure made of
several subplots already has no single cell to go into, and is refused with a ValueError saying what to use.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from posenc.drawing import export, registry
from posenc.drawing.animate import SweepResult, value_text
from posenc.drawing.export import ExportedFile
from posenc.drawing.theme import SIZES
from posenc.i18n import _

GRID_FORMATS = ("png", "svg", "pdf")
MOST_COLUMNS = 4
CELL_HEIGHT = 260  # CSS px per row of frames


def grid_figure(sweep: SweepResult) -> go.Figure:
    """One figure holding every frame of ``sweep`` in a grid of at most :data:`MOST_COLUMNS` columns."""
    figures = [result.figure for result in sweep.frames]
    for figure in figures:
        count = len(list(figure.select_xaxes())), len(list(figure.select_yaxes()))
        if count != (1, 1):
            raise ValueError(
                f"{sweep.figure_id} draws several plots, so its frames do not fit one grid cell each; export the "
                "sweep as GIF, MP4 or HTML instead"
            )
    n = len(figures)
    columns = min(MOST_COLUMNS, math.ceil(math.sqrt(n)))
    rows = math.ceil(n / columns)
    titles = [f"{sweep.sweep.param} = {value_text(value)}" for value in sweep.values]
    grid = make_subplots(rows=rows, cols=columns, subplot_titles=titles, horizontal_spacing=0.06, vertical_spacing=0.12)
    for k, figure in enumerate(figures):
        row, column = divmod(k, columns)
        _copy_cell(grid, figure, row + 1, column + 1, first=k == 0, index=k + 1)
    grid.update_layout(
        title=_(registry.get_spec(sweep.figure_id).title),
        height=CELL_HEIGHT * rows + 140,
        showlegend=True,
        legend={"orientation": "h", "y": -0.08, "yanchor": "top"},
    )
    return grid


def frame_grid(sweep: SweepResult, fmt: str, *, style: str = "screen", size: str = "screen") -> ExportedFile:
    """The grid as ``fmt`` on the page of ``size``."""
    if fmt not in GRID_FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(GRID_FORMATS)} (got {fmt!r})")
    browser = export.image_browser()
    figure, width, height = export.laid_out(grid_figure(sweep), style, size)
    scale = SIZES[size].png_scale if fmt == "png" else 1
    content = export.to_image(figure, fmt, width, height, scale, browser)
    return ExportedFile(content, fmt, f"Plotly export (kaleido + {browser}), {len(sweep.frames)} frames in a grid")


def _rows(grid: go.Figure) -> int:
    return len(grid._grid_ref)


def _copy_cell(grid: go.Figure, figure: go.Figure, row: int, column: int, *, first: bool, index: int) -> None:
    for trace in figure.data:
        copied = type(trace)(trace)
        copied.update(showlegend=bool(first and trace.showlegend is not False))
        if hasattr(copied, "showscale"):
            copied.update(showscale=first)
        grid.add_trace(copied, row=row, col=column)
    x, y = figure.layout.xaxis, figure.layout.yaxis
    grid.update_xaxes(type=x.type, range=x.range, autorange=x.autorange, row=row, col=column)
    grid.update_yaxes(type=y.type, range=y.range, autorange=y.autorange, row=row, col=column)
    if column == 1:
        grid.update_yaxes(title_text=y.title.text, row=row, col=column)
    if row == _rows(grid):
        grid.update_xaxes(title_text=x.title.text, row=row, col=column)
    suffix = "" if index == 1 else str(index)
    for shape in figure.layout.shapes:
        refs = {}
        for letter in ("x", "y"):
            ref = getattr(shape, f"{letter}ref") or letter
            domain = ref == "paper" or ref.endswith("domain")
            refs[f"{letter}ref"] = f"{letter}{suffix}" + (" domain" if domain else "")
        grid.add_shape(shape.to_plotly_json() | refs)
