"""One Plotly template for every figure, the presentation styles (larger fonts and lines for slides) and the image
sizes a figure is exported at (screen, a 16:9 slide, one or two paper columns).

Sizes are in CSS pixels, 1/96 inch, as Plotly lays a figure out: a 3.5 in paper column is 336 px wide, and text of
12 px is 9 pt when the PDF is placed at its own size. Fonts are system fonts only: the app runs offline, so no web
fonts are fetched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
BASE_FONT_SIZE = 13  # the template's, which the builders' margins and offsets are laid out for
PIXELS_PER_INCH = 96  # CSS pixels; a PDF has 72 points per inch
PRINT_DPI = 300


@dataclass(frozen=True)
class SizePreset:
    """The page a figure is exported on: ``width`` x ``height`` CSS pixels (``height`` None: the figure's own
    height, or for paper, ``width`` times the figure's aspect within ``aspect``), the PNG's pixels per CSS pixel,
    and the base text size in CSS pixels for the screen style and for the slides styles."""

    label: str
    width: int
    height: int | None
    png_scale: float
    font_size: int
    slides_font_size: int
    aspect: tuple[float, float] | None = None  # (least, most) height / width, for a height taken from the figure
    line_scale: float = 1.0  # the style's line widths times this

    def font_for(self, style: str) -> int:
        return self.slides_font_size if style.startswith("slides") else self.font_size


SIZES = {
    "screen": SizePreset("Screen (1200 px wide, as in the app)", 1200, None, 2.0, 13, 20),
    "slide": SizePreset("Slide 16:9 (13.33 × 7.5 in, 1920 × 1080 PNG)", 1280, 720, 1.5, 18, 24),
    "column": SizePreset("One paper column (3.5 in)", 336, None, PRINT_DPI / 96, 12, 13, (0.72, 1.45), 0.75),
    "two-columns": SizePreset("Two paper columns (7 in)", 672, None, PRINT_DPI / 96, 12, 13, (0.45, 0.95), 0.75),
}
SCREEN_HEIGHT = 650  # the export height of a figure that sets none (the app's charts take the container's)

pio.templates["posenc"] = go.layout.Template(
    layout=go.Layout(
        font={"family": FONT_FAMILY, "size": BASE_FONT_SIZE, "color": "#222"},
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
TEMPLATE_MARGIN = {"l": 70, "r": 30, "t": 70, "b": 60}


def _check(style: str, size: str) -> None:
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)} (got {style!r})")
    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)} (got {size!r})")


def image_size(fig: go.Figure, size: str = "screen") -> tuple[int, int]:
    """(width, height) in CSS pixels of ``fig`` exported at ``size``: the preset's page, or for a height left to
    the figure, its own height (screen) or its own aspect kept within the preset's range (paper)."""
    _check("screen", size)
    preset = SIZES[size]
    if preset.height is not None:
        return preset.width, preset.height
    own = int(fig.layout.height or SCREEN_HEIGHT)
    if preset.aspect is None:
        return preset.width, own
    least, most = preset.aspect
    aspect = min(max(own / SIZES["screen"].width * 1.6, least), most)
    return preset.width, round(preset.width * aspect)


def apply_style(fig: go.Figure, style: str = "screen", size: str = "screen") -> go.Figure:
    """Restyle ``fig`` in place for the screen or for slides (light or dark background), with text at the size
    preset's type size; returns it.

    Everything laid out for text (margins, subplot titles, offsets) grows or shrinks by the ratio of the new base
    font to the one the figure has, so styling twice, or restyling a styled figure, gives the same figure."""
    _check(style, size)
    s, font = STYLES[style], SIZES[size].font_for(style)
    ratio = font / (fig.layout.font.size or BASE_FONT_SIZE)
    margin = fig.layout.margin
    fig.update_layout(
        template="posenc",
        font={"size": font, "color": s["ink"]},
        title_font_size=font + 2,
        paper_bgcolor=s["paper"],
        plot_bgcolor=s["plot"],
        legend_bgcolor="rgba(0,0,0,0)" if style == "slides-dark" else "rgba(255,255,255,0.6)",
        margin={side: (getattr(margin, side) or TEMPLATE_MARGIN[side]) * ratio for side in TEMPLATE_MARGIN},
    )
    for annotation in fig.layout.annotations:
        if annotation.font.size:  # subplot titles (16 px at the base font); others follow the layout's font
            annotation.font.size = annotation.font.size * ratio
    fig.update_xaxes(gridcolor=s["grid"], linecolor=s["ink"], tickcolor=s["ink"], automargin=True)
    fig.update_yaxes(gridcolor=s["grid"], linecolor=s["ink"], tickcolor=s["ink"], automargin=True)
    fig.update_traces(line_width=s["line_width"] * SIZES[size].line_scale, selector={"type": "scatter"})
    return fig


def fit_to_page(fig: go.Figure, width: int, height: int) -> go.Figure:
    """Lay ``fig`` out for a fixed page of ``width`` x ``height`` CSS pixels (an export): the title wrapped to
    the width, colour bars as thick as the page allows, and a legend below the plot put under the x-axis title
    at this page's scale. Returns it."""
    font = fig.layout.font.size or BASE_FONT_SIZE
    title_font = fig.layout.title.font.size or font + 2
    if fig.layout.title.text:
        fig.layout.title.text = wrap(fig.layout.title.text, width - 2 * font, title_font)
        lines = fig.layout.title.text.count("<br>")
        fig.layout.margin.t = (fig.layout.margin.t or TEMPLATE_MARGIN["t"]) + lines * title_font * 1.3
    fig.update_traces(colorbar_thickness=min(30 * font / BASE_FONT_SIZE, 0.045 * width), selector={"type": "heatmap"})
    if fig.layout.coloraxis.colorbar is not None:
        fig.layout.coloraxis.colorbar.thickness = min(30 * font / BASE_FONT_SIZE, 0.045 * width)
    legend = fig.layout.legend
    if legend.y is not None and legend.y < 0:
        plot_height = height - (fig.layout.margin.t or 0) - (fig.layout.margin.b or 0)
        legend.y = -min(3.6 * font / max(plot_height, 1), 0.9)
    return fig


def wrap(text: str, width: float, font_size: float) -> str:
    """``text`` (Plotly's, lines split by <br>) broken at spaces so that no line is wider than ``width`` pixels
    (at about 0.58 em per character for DejaVu Sans)."""
    per_line = max(int(width / (0.58 * font_size)), 10)
    lines = []
    for line in re.split(r"<br\s*/?>", text):
        current = ""
        for word in line.split(" "):
            if current and len(current) + 1 + len(word) > per_line:
                lines.append(current)
                current = word
            else:
                current = f"{current} {word}" if current else word
        lines.append(current)
    return "<br>".join(lines)
