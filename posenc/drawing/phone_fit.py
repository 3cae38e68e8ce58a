"""Charts that read at the width the app gives them, which the server never knows: Plotly never wraps a title nor
an axis title, so a long line runs off the chart. The app's charts take the page's width: about 358 px on a 390 px
phone, 700 px and more on a desktop (the app tells a phone by its browser's User-Agent); in presenter mode (slide
styles) a chart is about 1150 px wide on a 1280 px projector. Each chart is laid out for the narrowest width it is
drawn at, and reads at any wider one: the title wrapped to that width (lines of about equal length), placed from
the top down, with a top margin that holds it and the subplot titles; subplot and axis titles wrapped to their
subplots; gaps between subplots wide and tall enough for the labels between them; the figure grown by what its
margins grew, so the plot area keeps its height. The title as built is kept in the layout's ``meta`` so an export
lays it out again for its own page (:func:`drawing.text_wrap.unwrapped_title`).
"""

from __future__ import annotations

import plotly.graph_objects as go

from posenc.drawing.export_grid import respace, titles_on
from posenc.drawing.export_layout import decades_only, fit_to_width, wrap_axis_titles
from posenc.drawing.text_wrap import UNWRAPPED_TITLE, unwrapped_title, wrap
from posenc.drawing.theme import BASE_FONT_SIZE, TEMPLATE_MARGIN

PHONE_WIDTH = 358  # px of chart on a 390 px phone (Streamlit's page keeps 16 px each side)
PHONE_TITLE_WIDTH = 330  # px of title line on a 390 px phone: the chart is 358 px, the title starts 1% in
DESKTOP_WIDTH = 700  # px of chart on a desktop: the page's width beside the sidebar on a 1024 px screen and up
DESKTOP_TITLE_WIDTH = 670  # px of title line on such a chart
PROJECTOR_WIDTH = 1150  # px of chart in presenter mode on a 1280 px projector (the page's padding aside)
PROJECTOR_HEIGHT = 560  # px: the most a chart takes in presenter mode (a 720 px screen less the page's heading)
TITLE_LINE = 1.3  # a title line's height in em of the title font
ONE_LINE = 1.4  # em: subplot titles up to this tall (one line) fit under a one-line title where Plotly puts it
GAP = 0.6  # em of the layout font above the title, under it, and over the plot
PLOTLY_HEIGHT = 450  # the height Plotly (and so Streamlit) gives a figure that sets none


def fit_to_phone(fig: go.Figure) -> go.Figure:
    """Lay ``fig`` out so that it reads at :data:`PHONE_WIDTH` and still at any wider width (:func:`fit_to_chart`).
    In place, returns ``fig``."""
    return fit_to_chart(fig, PHONE_WIDTH, PHONE_TITLE_WIDTH)


def fit_to_desktop(fig: go.Figure) -> go.Figure:
    """Lay ``fig`` out so that it reads at :data:`DESKTOP_WIDTH` and any wider width: a desktop browser's page (a
    phone's gets :func:`fit_to_phone`; the app tells them apart by what the browser says it is). In place, returns
    ``fig``."""
    return fit_to_chart(fig, DESKTOP_WIDTH, DESKTOP_TITLE_WIDTH)


SCREENS = {"phone": fit_to_phone, "desktop": fit_to_desktop}
"""The app's screens and the layout each gets (presenter mode has its own: :func:`fit_to_projector`)."""


def fit_to_projector(fig: go.Figure, screen_plot: float | None = None) -> go.Figure:
    """Lay a figure in a slide style out for presenter mode: a chart :data:`PROJECTOR_WIDTH` wide or wider
    (:func:`fit_to_chart`), tall enough for a plot area of ``screen_plot`` px (the one it had on the screen, before
    the slide style's larger text widened its margins: :func:`plot_height`) but no taller than
    :data:`PROJECTOR_HEIGHT`, with the gaps between its rows and its y-axis titles laid out for that height. In
    place, returns ``fig``."""
    fit_to_chart(fig, PROJECTOR_WIDTH, PROJECTOR_WIDTH - PHONE_WIDTH + PHONE_TITLE_WIDTH)
    margin, font = fig.layout.margin, fig.layout.font.size or BASE_FONT_SIZE
    wanted = max(fig.layout.height or PLOTLY_HEIGHT, margin.t + margin.b + (screen_plot or 0))
    fig.layout.height = round(min(wanted, PROJECTOR_HEIGHT))
    respace(fig, "y", plot_height(fig), font)
    wrap_axis_titles(fig, "y", plot_height(fig), font)
    _place_title(fig)
    return fig


def plot_height(fig: go.Figure) -> float:
    """The height in px of ``fig``'s plot area: its height less its top and bottom margins."""
    margin = fig.layout.margin
    return (
        (fig.layout.height or PLOTLY_HEIGHT) - (margin.t or TEMPLATE_MARGIN["t"]) - (margin.b or TEMPLATE_MARGIN["b"])
    )


def fit_to_chart(fig: go.Figure, width: float, title_width: float) -> go.Figure:
    """Lay ``fig`` out so that it reads at ``width`` px and still at any wider width: subplot titles, gaps between
    columns, x-axis titles and a legend under the plot as on a page that wide
    (:func:`drawing.export_layout.fit_to_width`), the title wrapped to ``title_width`` (:func:`fit_title`), gaps
    between rows tall enough for the labels between them and y-axis titles wrapped to their axes' height. The figure
    grows by what its margins grew, so the plot area keeps its height. In place, returns ``fig``."""
    margin = fig.layout.margin
    font = fig.layout.font.size or BASE_FONT_SIZE
    before = (margin.t or TEMPLATE_MARGIN["t"]) + (margin.b or TEMPLATE_MARGIN["b"])
    plot_width = fit_to_width(fig, width, place_colorbars=False)
    fit_title(fig, title_width)
    grown = margin.t + margin.b - before
    if grown > 0:
        fig.layout.height = round((fig.layout.height or PLOTLY_HEIGHT) + grown)
    plot = plot_height(fig)
    respace(fig, "y", plot, font)
    wrap_axis_titles(fig, "y", plot, font)
    decades_only(fig, {"x": plot_width, "y": plot}, font)  # log ticks that fit
    _place_title(fig)
    return fig


def fit_title_to_phone(fig: go.Figure) -> go.Figure:
    """Wrap ``fig``'s title to :data:`PHONE_TITLE_WIDTH` (:func:`fit_title`). In place, returns ``fig``."""
    return fit_title(fig, PHONE_TITLE_WIDTH)


def fit_title(fig: go.Figure, width: float) -> go.Figure:
    """Wrap ``fig``'s title (as its builder wrote it) to ``width`` px; a title of several lines is placed from the
    top of the chart down, with a top margin that holds it and the subplot titles under it. In place, returns
    ``fig``; a one-line title that fits is left as it is."""
    title = fig.layout.title
    if not title.text:
        return fig
    font = fig.layout.font.size or BASE_FONT_SIZE
    title_font = title.font.size or font + 2
    original = unwrapped_title(fig)
    title.text = wrap(original, width, title_font)
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
