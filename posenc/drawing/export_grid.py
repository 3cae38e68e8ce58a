"""The subplot grid of a figure on an export page: its columns and rows, the gaps the labels between them need,
and, on a page too narrow for a grid, its subplots stacked one above the other (:mod:`drawing.export_layout`).

Positions are fractions of the plot area (Plotly's "paper"), so a subplot title, a note or a colour bar placed
on the paper moves with the subplots: each is mapped by the same piecewise-linear map as the domains.
"""

from __future__ import annotations

from itertools import pairwise

import plotly.graph_objects as go

from posenc.drawing.theme import SIZES, screen_size


def titles_on(fig: go.Figure, top: float, font: float) -> float:
    """The height in pixels of the tallest subplot title standing on ``top`` (a fraction of the plot height)."""
    heights = [
        1.35 * (a.font.size or font) * (1 + a.text.count("<br>"))
        for a in fig.layout.annotations
        if a.yref == "paper" and a.yanchor == "bottom" and a.text and abs(a.y - top) < 1e-6
    ]
    return max(heights, default=0.0)


def column_of(fig: go.Figure, annotation) -> tuple[float, float] | None:
    """The x domain of the subplot whose title ``annotation`` is (centred over it, standing on it), else None."""
    if annotation.xref != "paper" or annotation.yanchor != "bottom" or not annotation.text:
        return None
    for axis in fig.select_xaxes():
        start, end = axis.domain or (0.0, 1.0)
        if abs((start + end) / 2 - annotation.x) < 1e-6:
            return start, end
    return None


def cells_along(fig: go.Figure, direction: str) -> list[tuple[float, float]]:
    """The columns ("x") or rows ("y", bottom up) of the subplot grid as domains; [] unless several, apart."""
    axes = fig.select_xaxes() if direction == "x" else fig.select_yaxes()
    cells = sorted({tuple(axis.domain or (0.0, 1.0)) for axis in axes})
    if len(cells) < 2 or any(b[0] < a[1] for a, b in pairwise(cells)):
        return []
    return cells


def axes_along(fig: go.Figure, direction: str) -> dict[str, object]:
    return {axis.plotly_name: axis for axis in (fig.select_xaxes() if direction == "x" else fig.select_yaxes())}


def _axis_name(anchor: str | None) -> str | None:
    """'y3' -> 'yaxis3' (an axis' ``anchor``)."""
    return None if not anchor or anchor == "free" else f"{anchor[0]}axis{anchor[1:]}"


def gaps_needed(fig: go.Figure, direction: str, font: float) -> list[float]:
    """Pixels needed between neighbouring columns (the y labels of the right one, the x tick labels of both) or
    rows (the x labels of the upper one, the subplot titles of the lower one)."""
    cells, own = cells_along(fig, direction), axes_along(fig, direction)
    others = axes_along(fig, "y" if direction == "x" else "x").values()
    needed = []
    for before, after in pairwise(cells):
        gap = (2.2 if direction == "x" else 1.0) * font
        for axis in others:  # y axes beside a column, x axes under a row (rows go up: "after" is the upper)
            anchor = own.get(_axis_name(axis.anchor))
            if anchor is None or tuple(anchor.domain or (0.0, 1.0)) != after:
                continue
            ticks = 0 if axis.showticklabels is False else (2.8 if direction == "x" else 1.6) * font
            title = 1 + axis.title.text.count("<br>") if axis.title.text else 0
            gap = max(gap, 1.2 * font + ticks + 1.6 * font * title)
        if direction == "y":
            gap += titles_on(fig, before[1], font) + 0.6 * font
        needed.append(gap)
    return needed


def respace(fig: go.Figure, direction: str, plot_pixels: float, font: float) -> None:
    """Widen the gaps between subplots along ``direction`` ("x": columns, "y": rows) to what the labels between
    them need at ``font``, narrowing the subplots to make room; every position given as a fraction of the plot
    area (subplot titles and other notes placed on the paper) moves with them."""
    cells = cells_along(fig, direction)
    if not cells or plot_pixels <= 0:
        return
    needed = gaps_needed(fig, direction, font)
    gaps = [max(b[0] - a[1], px / plot_pixels) for a, b, px in zip(cells, cells[1:], needed, strict=False)]
    shrink = (cells[-1][1] - cells[0][0] - sum(gaps)) / sum(b - a for a, b in cells)
    if shrink <= 0.2:
        return
    old, new, position = [edge for cell in cells for edge in cell], [], cells[0][0]
    for i, (start, end) in enumerate(cells):
        new += [position, position + (end - start) * shrink]
        position = new[-1] + (gaps[i] if i < len(gaps) else 0)
    move = _piecewise(old, new)
    for axis in axes_along(fig, direction).values():
        axis.domain = tuple(min(max(move(edge), 0.0), 1.0) for edge in (axis.domain or (0.0, 1.0)))
    for annotation in fig.layout.annotations:
        if (annotation.xref if direction == "x" else annotation.yref) == "paper" and annotation[direction] is not None:
            annotation[direction] = move(annotation[direction])
    for colorbar in _colorbars(fig):
        if colorbar[direction] is not None and 0 <= colorbar[direction] <= 1:
            if direction == "y" and colorbar.yanchor == "middle" and colorbar.len is not None:
                low, high = move(colorbar.y - colorbar.len / 2), move(colorbar.y + colorbar.len / 2)
                colorbar.update(y=(low + high) / 2, len=high - low)
            else:
                colorbar[direction] = move(colorbar[direction])


def stack_columns(fig: go.Figure) -> float:
    """Put the subplots of a grid one above the other, each the full width, in reading order (a row's subplots
    left to right, then the next row); subplot titles and colour bars placed in the plot area go along, and a
    subplot sharing its row's y axis gets back its tick labels and axis title. Returns the plot aspect (height /
    width) the subplots had on the screen, summed."""
    xaxes, yaxes = axes_along(fig, "x"), axes_along(fig, "y")
    columns = cells_along(fig, "x")
    rows = cells_along(fig, "y") or sorted({tuple(axis.domain or (0.0, 1.0)) for axis in yaxes.values()})[:1]
    cells = {}  # (row from the top, column) -> [(x axis, y axis)]
    for xaxis in xaxes.values():
        yaxis = yaxes.get(_axis_name(xaxis.anchor))
        if yaxis is None:
            continue
        x_domain, y_domain = tuple(xaxis.domain or (0.0, 1.0)), tuple(yaxis.domain or (0.0, 1.0))
        if x_domain in columns and y_domain in rows:
            cells.setdefault((len(rows) - 1 - rows.index(y_domain), columns.index(x_domain)), []).append((xaxis, yaxis))
    order = sorted(cells)
    gap = 0.06
    height = (1 - gap * (len(order) - 1)) / len(order)
    screen_width, screen_height = SIZES["screen"].width - 100, screen_size(fig)[1] - 150
    aspect = 0.0
    row_titles = {
        row: [y.title.text for (r, _), pairs in cells.items() if r == row for _, y in pairs] for row, _ in order
    }
    row_titles = {row: next((title for title in titles if title), None) for row, titles in row_titles.items()}
    for k, (row, column) in enumerate(order):
        top = 1 - k * (height + gap)
        (x0, x1), (y0, y1) = columns[column], rows[len(rows) - 1 - row]
        aspect += (y1 - y0) * screen_height / ((x1 - x0) * screen_width)
        for xaxis, yaxis in cells[(row, column)]:
            xaxis.domain = (0.0, 1.0)
            yaxis.domain = (max(top - height, 0.0), min(top, 1.0))
            if yaxis.showticklabels is False:  # it shared the y axis of its row: now it shows its own
                yaxis.showticklabels = True
                yaxis.title.text = yaxis.title.text or row_titles[row]
        for annotation in fig.layout.annotations:
            if _titles_cell(annotation, (x0 + x1) / 2, y1):
                annotation.update(x=0.5, y=top)
        names = {
            (x.plotly_name.replace("axis", ""), y.plotly_name.replace("axis", "")) for x, y in cells[(row, column)]
        }
        for trace in fig.data:
            if (trace.xaxis or "x", trace.yaxis or "y") in names:
                _follow_colorbar(trace, top - height, top)
    return aspect


def _titles_cell(annotation, centre: float, top: float) -> bool:
    """Whether ``annotation`` is the title of the subplot centred at ``centre`` whose top is ``top`` (paper)."""
    placed = annotation.xref == "paper" and annotation.yref == "paper" and annotation.yanchor == "bottom"
    return placed and abs(annotation.x - centre) < 1e-6 and abs(annotation.y - top) < 1e-6


def colorbar_of(trace):
    """A trace's colour bar (a heatmap's own, or its markers'), or None."""
    if "colorbar" in trace:
        return trace.colorbar
    marker = getattr(trace, "marker", None)
    return marker.colorbar if marker is not None and "colorbar" in marker else None


def shown_colorbars(fig: go.Figure) -> list:
    """The colour bars Plotly draws: a heatmap's (unless hidden), markers' asked for, the colour axis' when used.
    (Setting an attribute of a colour bar otherwise makes Plotly draw one.)"""
    bars = [trace.colorbar for trace in fig.data if "colorbar" in trace and trace.showscale is not False]
    bars += [trace.marker.colorbar for trace in fig.data if "marker" in trace and trace.marker.showscale]
    if any(getattr(trace, "coloraxis", None) for trace in fig.data):
        bars.append(fig.layout.coloraxis.colorbar)
    return bars


def _colorbars(fig: go.Figure) -> list:
    """The colour bars placed at a position of their own (a trace's, or the colour axis')."""
    bars = [colorbar_of(trace) for trace in fig.data] + [fig.layout.coloraxis.colorbar]
    placed = [bar for bar in bars if bar is not None and (bar.x is not None or bar.y is not None)]
    return [bar for bar in placed if "container" not in (bar.xref, bar.yref)]  # those stay where they are


def _follow_colorbar(trace, bottom: float, top: float) -> None:
    """A colour bar drawn inside the plot area (beside its own subplot) moves beside the subplot's new place."""
    colorbar = colorbar_of(trace)
    if colorbar is None or "container" in (colorbar.xref, colorbar.yref) or colorbar.orientation == "h":
        return
    if colorbar.x is not None and colorbar.x < 1:
        colorbar.update(x=1.02, xanchor="left", y=(bottom + top) / 2, yanchor="middle", len=top - bottom)


def _piecewise(old: list[float], new: list[float]):
    """The map taking each of the increasing points ``old`` to ``new``, linear between them and shifted beyond."""

    def move(value: float) -> float:
        if value <= old[0]:
            return value + new[0] - old[0]
        for (a, b), (c, d) in zip(pairwise(old), pairwise(new), strict=True):
            if value <= b:
                return c + (value - a) * (d - c) / (b - a) if b > a else c
        return value + new[-1] - old[-1]

    return move
