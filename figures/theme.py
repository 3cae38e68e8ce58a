"""One Plotly template for every figure, and the presentation styles (larger fonts and lines for slides).

Fonts are system fonts only: the app runs offline, so no web fonts are fetched.
"""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

FONT_FAMILY = "DejaVu Sans, Arial, Helvetica, sans-serif"
COLORWAY = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
CYCLIC_SCALE = "Twilight"  # for angles mod 2π: equal colour at 0 and 2π
DIVERGING_SCALE = "RdBu_r"  # for signed values centred at 0
SEQUENTIAL_SCALE = "Viridis"

STYLES = {
    "screen": {"font_size": 13, "line_width": 2.0, "paper": "white", "plot": "white", "ink": "#222", "grid": "#e5e5e5"},
    "slides-light": {
        "font_size": 20,
        "line_width": 3.5,
        "paper": "white",
        "plot": "white",
        "ink": "#111",
        "grid": "#dddddd",
    },
    "slides-dark": {
        "font_size": 20,
        "line_width": 3.5,
        "paper": "#111418",
        "plot": "#111418",
        "ink": "#f2f2f2",
        "grid": "#3a3f47",
    },
}

pio.templates["posenc"] = go.layout.Template(
    layout=go.Layout(
        font={"family": FONT_FAMILY, "size": 13, "color": "#222"},
        colorway=COLORWAY,
        paper_bgcolor="white",
        plot_bgcolor="white",
        margin={"l": 70, "r": 30, "t": 70, "b": 60},
        title={"x": 0.01, "xanchor": "left", "font": {"size": 15}},
        xaxis={"showgrid": True, "gridcolor": "#e5e5e5", "zeroline": False, "ticks": "outside", "showline": True},
        yaxis={"showgrid": True, "gridcolor": "#e5e5e5", "zeroline": False, "ticks": "outside", "showline": True},
        legend={"bgcolor": "rgba(255,255,255,0.6)"},
        hoverlabel={"font": {"family": FONT_FAMILY}},
    )
)


def apply_style(fig: go.Figure, style: str = "screen") -> go.Figure:
    """Restyle ``fig`` in place for the screen or for slides (light or dark background); returns it."""
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)} (got {style!r})")
    s = STYLES[style]
    fig.update_layout(
        template="posenc",
        font={"size": s["font_size"], "color": s["ink"]},
        title_font_size=s["font_size"] + 2,
        paper_bgcolor=s["paper"],
        plot_bgcolor=s["plot"],
        legend_bgcolor="rgba(0,0,0,0)" if style == "slides-dark" else "rgba(255,255,255,0.6)",
    )
    fig.update_xaxes(gridcolor=s["grid"], linecolor=s["ink"], tickcolor=s["ink"])
    fig.update_yaxes(gridcolor=s["grid"], linecolor=s["ink"], tickcolor=s["ink"])
    fig.update_traces(line_width=s["line_width"], selector={"type": "scatter"})
    return fig
