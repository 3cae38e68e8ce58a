"""Chart titles that fit a phone: the app's charts take the page's width, down to about 358 px on a 390 px phone,
and Plotly never wraps a title, so a long line runs off the chart. The app wraps each title to that width (lines
of about equal length), places it from the top down and makes the top margin hold it and the subplot titles; the
title as built is kept in the layout's ``meta`` so an export lays it out again for its own page
(:func:`figures.text_wrap.unwrapped_title`).
"""

from __future__ import annotations

import plotly.graph_objects as go

from posenc.figures.export_grid import titles_on
from posenc.figures.export_layout import decades_only, fit_to_width
from posenc.figures.text_wrap import UNWRAPPED_TITLE, wrap
from posenc.figures.theme import BASE_FONT_SIZE, TEMPLATE_MARGIN

PHONE_WIDTH = 358  # px of chart on a 390 px phone (Streamlit's page keeps 16 px each side)
PHONE_TITLE_WIDTH = 330  # px of title line on a 390 px phone: the chart is 358 px, the title starts 1% in
TITLE_LINE = 1.3  # a title line's height in em of the title font
ONE_LINE = 1.4  # em: subplot titles up to this tall (one line) fit under a one-line title where Plotly puts it
GAP = 0.6  # em of the layout font above the title, under it, and over the plot
PLOTLY_HEIGHT = 450  # the height Plotly (and so Streamlit) gives a figure that sets none


def fit_to_phone(fig: go.Figure) -> go.Figure:
    """Lay ``fig`` out so that it reads at :data:`PHONE_WIDTH` and still at any wider width: subplot titles, gaps
    between columns, x-axis titles and a legend under the plot as on a page that wide
    (:func:`figures.export_layout.fit_to_width`), and the title wrapped (:func:`fit_title_to_phone`). The figure
    grows by what its margins grew, so the plot area keeps its height. In place, returns ``fig``."""
    margin = fig.layout.margin
    before = (margin.t or TEMPLATE_MARGIN["t"]) + (margin.b or TEMPLATE_MARGIN["b"])
    plot_width = fit_to_width(fig, PHONE_WIDTH, place_colorbars=False)
    decades_only(fig, {"x": plot_width}, fig.layout.font.size or BASE_FONT_SIZE)  # log ticks that fit a phone
    fit_title_to_phone(fig)
    grown = margin.t + margin.b - before
    if grown > 0:
        fig.layout.height = round((fig.layout.height or PLOTLY_HEIGHT) + grown)
        _place_title(fig)
    return fig


def fit_title_to_phone(fig: go.Figure) -> go.Figure:
    """Wrap ``fig``'s title to :data:`PHONE_TITLE_WIDTH`; a title of several lines is placed from the top of the
    chart down, with a top margin that holds it and the subplot titles under it. In place, returns ``fig``; a
    one-line title that fits is left as it is."""
    title = fig.layout.title
    if not title.text:
        return fig
    font = fig.layout.font.size or BASE_FONT_SIZE
    title_font = title.font.size or font + 2
    original = title.text
    title.text = wrap(original, PHONE_TITLE_WIDTH, title_font)
    if title.text != original:
        fig.layout.meta = {**(fig.layout.meta or {}), UNWRAPPED_TITLE: original}
    lines = 1 + title.text.count("<br>")
    subplot_titles = titles_on(fig, 1.0, font)
    if lines == 1 and subplot_titles <= ONE_LINE * font:  # Plotly's own place for a line over one-line titles
        return fig
    gap = GAP * font
    block = gap + (TITLE_LINE * lines - 0.3) * title_font + gap
    needed = block + subplot_titles + gap
    fig.layout.margin.t = max(fig.layout.margin.t or TEMPLATE_MARGIN["t"], needed)
    _place_title(fig)
    return fig


def _place_title(fig: go.Figure) -> None:
    """A title of several lines placed from the top of the chart down (its first baseline a gap and a line's
    ascent under the top edge: Plotly puts that baseline at y, whatever yanchor says)."""
    title = fig.layout.title
    font = fig.layout.font.size or BASE_FONT_SIZE
    if not title.text or ("<br>" not in title.text and titles_on(fig, 1.0, font) <= ONE_LINE * font):
        return
    first_baseline = GAP * font + 0.8 * (title.font.size or font + 2)
    title.update(yref="container", y=1 - first_baseline / (fig.layout.height or PLOTLY_HEIGHT), yanchor="bottom")
