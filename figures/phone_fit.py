"""Chart titles that fit a phone: the app's charts take the page's width, down to about 358 px on a 390 px phone,
and Plotly never wraps a title, so a long line runs off the chart. The app wraps each title to that width (lines
of about equal length), places it from the top down and makes the top margin hold it and the subplot titles; the
title as built is kept in the layout's ``meta`` so an export lays it out again for its own page
(:func:`figures.text_wrap.unwrapped_title`).
"""

from __future__ import annotations

import plotly.graph_objects as go

from figures.export_grid import titles_on
from figures.text_wrap import UNWRAPPED_TITLE, wrap
from figures.theme import BASE_FONT_SIZE, TEMPLATE_MARGIN

PHONE_TITLE_WIDTH = 330  # px of title line on a 390 px phone: the chart is 358 px, the title starts 1% in
TITLE_LINE = 1.3  # a title line's height in em of the title font
GAP = 0.6  # em of the layout font above the title, under it, and over the plot
PLOTLY_HEIGHT = 450  # the height Plotly (and so Streamlit) gives a figure that sets none


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
    if lines == 1:
        return fig
    height = fig.layout.height or PLOTLY_HEIGHT
    gap = GAP * font
    # Plotly puts the first line's baseline at y for a title of several lines, whatever yanchor says
    title.update(yref="container", y=1 - (gap + 0.8 * title_font) / height, yanchor="bottom")
    block = gap + (TITLE_LINE * lines - 0.3) * title_font + gap
    needed = block + titles_on(fig, 1.0, font) + gap
    fig.layout.margin.t = max(fig.layout.margin.t or TEMPLATE_MARGIN["t"], needed)
    return fig
