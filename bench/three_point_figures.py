"""Every page of ``posenc app`` with its figures swapped for three points, for bench/first_figure.py.

With :func:`install`, each chart a page draws as a figure (``st.plotly_chart`` with a ``chart-...`` key, as
``posenc.ui.show`` and the length lab draw theirs) is sent as one three-point line of the same height instead:
the same first screen, the same elements before it, the same script on the server, but a figure as small as the
floor's (bench/reference_app.py). A page opened this way against the floor costs what its first screen's
elements cost; the page as it is against this, what its own figure costs (its bytes, plotly.js drawing it).
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

FIGURE_KEY = "chart-"  # posenc.ui.show's key for a registered figure: "chart-<figure id>"


def three_points(figure: Any) -> go.Figure:
    """A three-point line as tall as ``figure`` (a ``go.Figure`` or its dict) is laid out."""
    layout = figure.get("layout", {}) if isinstance(figure, dict) else figure.layout.to_plotly_json()
    height = layout.get("height")
    return go.Figure(go.Scatter(y=[1, 3, 2]), layout={"height": height} if height else {})


def swapped(plotly_chart):
    """``plotly_chart`` drawing :func:`three_points` in place of a figure keyed as a page's figure."""

    def plotly_chart_three_points(self, figure_or_data, *args, **kwargs):
        if str(kwargs.get("key") or "").startswith(FIGURE_KEY):
            figure_or_data = three_points(figure_or_data)
        return plotly_chart(self, figure_or_data, *args, **kwargs)

    return plotly_chart_three_points


def install() -> None:
    """Swap the figures of every session this process serves (``st.plotly_chart`` included, which Streamlit bound
    when it was imported)."""
    import streamlit
    from streamlit.elements.plotly_chart import PlotlyMixin

    PlotlyMixin.plotly_chart = swapped(PlotlyMixin.plotly_chart)
    streamlit.plotly_chart = streamlit._main.plotly_chart
