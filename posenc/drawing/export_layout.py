"""Lay a styled figure out on the page of an image size preset (:data:`drawing.theme.SIZES`) before it is exported.

The builders lay a figure out for the app: 1200 px wide, 13 px text, margins and gaps in pixels or in fractions
of the plot area. On a slide or a paper column the text is larger relative to the page, so the same fractions
leave labels on top of each other. Here the export copy gets a wrapped title and a top margin that holds it, a
legend under the plot with the room it needs, gaps between subplots wide enough for the labels between them, and
on a one-column page subplots side by side stacked one above the other.
"""

from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.export_grid import (
    axes_along,
    cells_along,
    column_of,
    gaps_needed,
    respace,
    shown_colorbars,
    stack_columns,
    titles_on,
)
from posenc.drawing.text_wrap import unwrapped_title, wrap
from posenc.drawing.theme import BASE_FONT_SIZE, SIZES, TEMPLATE_MARGIN, screen_size

MOST_PAPER_HEIGHT = 864  # 9 in: a paper figure taller than this gets a smaller plot area
DIGIT_WIDTH = 0.64  # a digit's width in em (DejaVu Sans), the most a legend entry's character takes
LEGEND_SYMBOL = 45  # a legend entry's line or marker sample and the gaps around it, in pixels


def fit_to_page(fig: go.Figure, size: str) -> tuple[int, int]:
    """Lay ``fig`` (already styled for ``size``) out on the size preset's page; its (width, height) in CSS px.

    Screen and slide pages have a fixed height (the figure's own on the screen). A paper page is as tall as its
    margins plus a plot area of the figure's own aspect, taller for paper within the preset's range."""
    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)} (got {size!r})")
    preset, font, margin = SIZES[size], fig.layout.font.size or BASE_FONT_SIZE, fig.layout.margin
    width, own_aspect = preset.width, _plot_aspect(fig)
    if preset.stack_columns and len(cells_along(fig, "x")) > 1:
        own_aspect = stack_columns(fig)
    plot_width = fit_to_width(fig, width)
    above = _legend_height(fig, plot_width, font) if _legend_above(fig) else 0.0
    margin.t = _title_height(fig, width, font) + max(titles_on(fig, 1.0, font), above) + 0.6 * font
    if preset.aspect is None:
        height = preset.height or screen_size(fig)[1]
    else:
        rows = max(len(cells_along(fig, "y")), 1)
        least, most = preset.aspect
        cells = plot_width * min(max(own_aspect * preset.aspect_boost, least * rows), most * rows)
        gaps = sum(gaps_needed(fig, "y", font))
        height = round(min(margin.t + margin.b + cells + gaps, max(MOST_PAPER_HEIGHT, margin.t + margin.b + gaps)))
    if margin.t + margin.b > 0.7 * height:  # keep room for the plot (Plotly refuses to draw without)
        margin.t, margin.b = (side * 0.7 * height / (margin.t + margin.b) for side in (margin.t, margin.b))
    respace(fig, "y", height - margin.t - margin.b, font)
    wrap_axis_titles(fig, "y", height - margin.t - margin.b, font)
    decades_only(fig, {"x": plot_width, "y": height - margin.t - margin.b}, font)
    title = fig.layout.title
    if title.text:  # Plotly sets the first line's baseline at y for several lines whatever yanchor says; "bottom"
        first_baseline = 0.6 * font + 0.8 * (title.font.size or font + 2)  # does it for one line too
        title.update(yref="container", y=1 - first_baseline / height, yanchor="bottom")
    return width, height


def fit_to_width(fig: go.Figure, width: float, *, place_colorbars: bool = True) -> float:
    """The across part of a page's layout, for a figure ``width`` px wide: colour bars a fixed thickness (and,
    with ``place_colorbars``, clear of x tick labels), subplot titles wrapped to their columns, a legend under the
    plot put at the bottom with the room it needs, gaps between columns wide enough for their labels, x-axis
    titles wrapped to their axes. Margins grow to hold what was wrapped; the plot area's width is returned."""
    font, margin = fig.layout.font.size or BASE_FONT_SIZE, fig.layout.margin
    thickness = min(30 * font / BASE_FONT_SIZE, 0.045 * width)  # Plotly's 30 px is a third of an inch on paper
    for colorbar in shown_colorbars(fig):
        if colorbar.thickness is None:
            colorbar.thickness = thickness
    colorbar = thickness + 5.5 * font if shown_colorbars(fig) else 0
    plot_width = width - (margin.l or TEMPLATE_MARGIN["l"]) - (margin.r or TEMPLATE_MARGIN["r"]) - colorbar
    for colorbar in shown_colorbars(fig) if place_colorbars else ():  # clear of x tick labels slanting right
        if colorbar.x is None and colorbar.orientation != "h":
            colorbar.update(x=1 + 2 * font / plot_width, xanchor="left")
    for annotation in fig.layout.annotations:
        column = column_of(fig, annotation)
        if column is not None:
            room = (column[1] - column[0]) * plot_width + 2 * font
            annotation.text = wrap(annotation.text, room, annotation.font.size or font)
    if _legend_below(fig, width):
        margin.b = 4.6 * font + _put_legend_below(fig, width, font)  # the builder's margin held its own legend
    respace(fig, "x", plot_width, font)
    margin.b = (margin.b or TEMPLATE_MARGIN["b"]) + (wrap_axis_titles(fig, "x", plot_width, font) - 1) * 1.45 * font
    return plot_width


def crowded(fig: go.Figure, height: int) -> bool:
    """Whether a subplot of ``fig``, laid out on a page ``height`` px tall, is too low for its y tick labels."""
    font, margin = fig.layout.font.size or BASE_FONT_SIZE, fig.layout.margin
    rows = cells_along(fig, "y") or [(0.0, 1.0)]
    return min(end - start for start, end in rows) * (height - margin.t - margin.b) < 5 * font


def wrap_axis_titles(fig: go.Figure, direction: str, plot_pixels: float, font: float) -> int:
    """Wrap each axis title to the length of its axis (axis titles are 1.2 em); the most lines a title has."""
    lines = 1
    for axis in axes_along(fig, direction).values():
        if axis.title.text:
            start, end = axis.domain or (0.0, 1.0)
            axis.title.text = wrap(axis.title.text, (end - start) * plot_pixels, axis.title.font.size or 1.2 * font)
            lines = max(lines, 1 + axis.title.text.count("<br>"))
    return lines


def decades_only(fig: go.Figure, plot_pixels: dict[str, float], font: float) -> None:
    """A log axis too short for labels at 2 and 5 in every decade (Plotly's choice from its length, not from the
    text size) is labelled at the decades only."""
    for direction, pixels in plot_pixels.items():
        for name, axis in axes_along(fig, direction).items():
            if axis.type != "log" or axis.dtick is not None or axis.tickvals is not None:
                continue
            values = [
                np.asarray(trace[direction], dtype=float)
                for trace in fig.data
                if trace[direction] is not None and (trace[f"{direction}axis"] or direction) == name.replace("axis", "")
            ]
            positive = np.concatenate([v[v > 0] for v in values]) if values else np.array([])
            if positive.size < 2:
                continue
            start, end = axis.domain or (0.0, 1.0)
            decades = max(np.log10(positive.max() / positive.min()), 1.0)
            if (end - start) * pixels / decades < (6 if direction == "x" else 4.5) * font:
                axis.dtick = 1


def _plot_aspect(fig: go.Figure) -> float:
    """Height / width of the figure's plot area on the screen (margins taken at the template's)."""
    return (screen_size(fig)[1] - 150) / (SIZES["screen"].width - 100)


def _title_height(fig: go.Figure, width: int, font: float) -> float:
    """Wrap the title to ``width``; the pixels it takes at the top of the page."""
    title = fig.layout.title
    if not title.text:
        return 0.0
    title_font = title.font.size or font + 2
    title.text = wrap(unwrapped_title(fig), width - 2 * font, title_font)  # the title as built, not the app's
    return 0.6 * font + (1.3 * (1 + title.text.count("<br>")) - 0.3) * title_font + 0.6 * font


def _legend_shown(fig: go.Figure) -> bool:
    """Whether Plotly draws a legend: asked for, or by default when two traces or more are named in it."""
    if fig.layout.showlegend is not None:
        return fig.layout.showlegend
    return sum(1 for trace in fig.data if trace.showlegend is not False and trace.name) >= 2


def _legend_above(fig: go.Figure) -> bool:
    legend = fig.layout.legend
    return _legend_shown(fig) and legend.y is not None and legend.y >= 1 and legend.yanchor == "bottom"


def _legend_below(fig: go.Figure, width: int) -> bool:
    """Whether the legend goes under the plot: it is there already, or beside it on a page too narrow for that."""
    legend = fig.layout.legend
    if not _legend_shown(fig):
        return False
    beside = legend.orientation != "h" and (legend.x is None or legend.x >= 1)
    at_the_bottom = legend.yref == "container" and legend.y == 0 and legend.yanchor == "bottom"  # LEGEND_BELOW
    return (legend.y is not None and legend.y < 0) or at_the_bottom or (beside and width < 800)


def _put_legend_below(fig: go.Figure, width: int, font: float) -> float:
    """Put the legend at the bottom of the page in a grid of equal columns (as many as the widest entry allows),
    entries wider than the page wrapped; its height in pixels."""
    room = width - 2 * font
    for trace in fig.data:
        if trace.name and _entry_width(trace.name, font) > room:
            trace.name = wrap(trace.name, room - LEGEND_SYMBOL, font)
    legend = fig.layout.legend
    legend.update(orientation="h", xref="container", x=font / width, xanchor="left")
    legend.update(yref="container", y=0, yanchor="bottom")
    names = _legend_names(fig)
    widest = max((_entry_width(name, font) for name in names), default=room)
    if len(names) > 1 and sum(_entry_width(name, font) for name in names) > room:
        legend.update(entrywidthmode="pixels", entrywidth=widest - LEGEND_SYMBOL)
    if legend.title.text:  # over the entries, not taking their width
        legend.title.side = "top"
    return _legend_height(fig, room, font)


def _legend_names(fig: go.Figure) -> list[str]:
    return list(dict.fromkeys(t.name for t in fig.data if t.showlegend is not False and t.name))


def _entry_width(name: str, font: float) -> float:
    """A legend entry's width: its symbol and its longest line (at a digit's width: entries are full of them)."""
    return LEGEND_SYMBOL + DIGIT_WIDTH * font * max(len(line) for line in re.split(r"<br\s*/?>", name))


def _legend_height(fig: go.Figure, room: float, font: float) -> float:
    """The height in pixels of the horizontal legend: rows of as many entries as fit in ``room`` pixels."""
    names = _legend_names(fig)
    if not names:
        return 0.0
    if fig.layout.legend.entrywidth:
        columns = max(int(room // (fig.layout.legend.entrywidth + LEGEND_SYMBOL)), 1)
        rows = [names[i : i + columns] for i in range(0, len(names), columns)]
    else:
        rows = [names]
    lines = sum(max(1 + name.count("<br>") for name in row) for row in rows)
    title = 1 if fig.layout.legend.title.text else 0
    return (lines + title) * 1.6 * font + 0.6 * font
