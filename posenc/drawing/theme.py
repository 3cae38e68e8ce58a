"""One Plotly template for every figure, the presentation styles (larger fonts and lines for slides) and the image
sizes a figure is exported at (screen, a 16:9 slide, one or two paper columns).

Sizes are in CSS pixels, 1/96 inch, as Plotly lays a figure out: a 3.5 in paper column is 336 px wide, and text of
12 px is 9 pt when the PDF is placed at its own size. Fonts are system fonts only: the app runs offline, so no web
fonts are fetched.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
import plotly.io as pio

from posenc import i18n

FONT_FAMILY = "DejaVu Sans, Arial, Helvetica, sans-serif"
# Korean and Chinese figures name their CJK font first: Noto CJK (installed with the project's setup,
# scripts/ensure_chromium.sh), else the fonts Windows and macOS ship, then the Latin ones. The browser and kaleido's
# Chromium fall back glyph by glyph through the list, but a slide program or an editor opening an exported SVG may
# take the first family alone: with a Latin one first it drew boxes for the Hangul and Han. Each language names its
# own regional face, so a Han character is drawn the way its readers write it (Latin text too is drawn in it).
CJK_FONTS = {
    "ko": "Noto Sans CJK KR, Noto Sans KR, Malgun Gothic, Apple SD Gothic Neo",
    "zh-CN": "Noto Sans CJK SC, Noto Sans SC, Microsoft YaHei, PingFang SC",
}
COLORWAY = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
CYCLIC_SCALE = "Twilight"  # for angles mod 2π: equal colour at 0 and 2π
DIVERGING_SCALE = "RdBu_r"  # for signed values centred at 0
SEQUENTIAL_SCALE = "Viridis"

REFERENCE_INK = "#333333"  # reference lines and marks the builders draw; each style gives them its own "reference"
STYLES = {
    "screen": {"font_size": 13, "line_width": 2.0, "paper": "white", "plot": "white", "ink": "#222", "grid": "#e5e5e5"},
    # The app's screen style under Streamlit's dark theme, on its background and in its text colour (Streamlit
    # 1.67's bgColor #171614 and bodyText #EDEBE8; earlier releases had #0e1117 and #fafafa). Chosen by
    # ui.show, never offered in the sidebar or exported.
    "screen-dark": {
        "font_size": 13,
        "line_width": 2.0,
        "paper": "#171614",
        "plot": "#171614",
        "ink": "#edebe8",
        "grid": "#3a3833",
        "reference": "#cbc8c2",
    },
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
        "reference": "#c9ccd1",
    },
}
DARK_SCREEN_STYLE = "screen-dark"
BASE_FONT_SIZE = 13  # the template's, which the builders' margins and offsets are laid out for
PIXELS_PER_INCH = 96  # CSS pixels; a PDF has 72 points per inch
PRINT_DPI = 300


@dataclass(frozen=True)
class SizePreset:
    """The page a figure is exported on, in CSS pixels, with its PNG resolution and its type size.

    ``height`` None: the figure's own height on the screen; on paper, the margins plus a plot area whose height
    is the figure's own plot aspect times ``aspect_boost`` (paper figures are less wide than a screen), kept
    within ``aspect`` (height / width of the plot area), and subplots side by side stacked one above the other
    when ``stack_columns``."""

    label: str
    width: int
    height: int | None
    png_scale: float  # PNG pixels per CSS pixel
    font_size: int  # base text size, CSS pixels, in the screen style
    slides_font_size: int  # ... and in the slides styles
    line_scale: float = 1.0  # the style's line widths times this
    aspect: tuple[float, float] | None = None
    aspect_boost: float = 1.0
    stack_columns: bool = False

    def font_for(self, style: str) -> int:
        return self.slides_font_size if style.startswith("slides") else self.font_size


PAPER = {"png_scale": PRINT_DPI / PIXELS_PER_INCH, "font_size": 12, "slides_font_size": 13, "line_scale": 0.75}
SIZES = {
    "screen": SizePreset("Screen (1200 px wide, as in the app)", 1200, None, 2.0, 13, 20),
    "slide": SizePreset("Slide 16:9 (13.33 × 7.5 in; PNG 1920 × 1080)", 1280, 720, 1.5, 18, 24),
    "column": SizePreset(
        "One paper column (3.5 in; PNG 300 dpi)",
        336,
        None,
        **PAPER,
        aspect=(0.6, 1.0),
        aspect_boost=2.2,
        stack_columns=True,
    ),
    "two-columns": SizePreset(
        "Two paper columns (7 in; PNG 300 dpi)", 672, None, **PAPER, aspect=(0.4, 1.1), aspect_boost=1.4
    ),
}
SCREEN_HEIGHT = 650  # the export height of a figure that sets none (the app's charts take the container's)

# Axes: a log axis labels the values between its decades in full (0.2, 0.5, 20, 50), not in Plotly's small digits
# (a bare "2", "5"), which a reader takes for the values themselves.
AXIS = {
    "showgrid": True,
    "gridcolor": "#e5e5e5",
    "zeroline": False,
    "ticks": "outside",
    "showline": True,
    "minorloglabels": "complete",
}
pio.templates["posenc"] = go.layout.Template(
    layout=go.Layout(
        font={"family": FONT_FAMILY, "size": BASE_FONT_SIZE, "color": "#222"},
        colorway=COLORWAY,
        paper_bgcolor="white",
        plot_bgcolor="white",
        margin={"l": 70, "r": 30, "t": 70, "b": 60},
        title={"x": 0.01, "xanchor": "left", "font": {"size": 15}},
        xaxis=AXIS,
        yaxis=AXIS,
        legend={"bgcolor": "rgba(255,255,255,0.6)"},
        hoverlabel={"font": {"family": FONT_FAMILY}},
    )
)
TEMPLATE_MARGIN = {"l": 70, "r": 30, "t": 70, "b": 60}
MODEBAR_LIGHT = {"bgcolor": "rgba(255,255,255,0.5)", "color": "rgba(68,68,68,0.3)", "activecolor": "rgba(68,68,68,0.7)"}
MODEBAR_DARK = {"bgcolor": "rgba(0,0,0,0)", "color": "rgba(250,250,250,0.45)", "activecolor": "rgba(250,250,250,0.9)"}


def _check(style: str, size: str) -> None:
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)} (got {style!r})")
    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)} (got {size!r})")


def is_dark(style: str) -> bool:
    """Whether ``style`` draws on a dark background (light text and reference lines)."""
    return "reference" in STYLES[style]


def reference_ink(style: str) -> str:
    """The colour of reference lines and marks in ``style``: :data:`REFERENCE_INK` on a light background, a light
    grey on a dark one. Builders draw in :data:`REFERENCE_INK`; :func:`apply_style` swaps it for this."""
    return STYLES[style].get("reference", REFERENCE_INK)


def font_family(language: str | None = None) -> str:
    """The figure font for ``language`` (the current one by default): its CJK fonts first (Korean, Chinese), then
    the Latin fonts."""
    cjk = CJK_FONTS.get(language or i18n.current())
    return f"{cjk}, {FONT_FAMILY}" if cjk else FONT_FAMILY


def screen_size(fig: go.Figure) -> tuple[int, int]:
    """(width, height) in CSS pixels of ``fig`` on the screen preset's page: 1200 px by the figure's own height."""
    return SIZES["screen"].width, int(fig.layout.height or SCREEN_HEIGHT)


def apply_style(fig: go.Figure, style: str = "screen", size: str = "screen", *, text_scale: float = 1.0) -> go.Figure:
    """Restyle ``fig`` in place for the screen or for slides (light or dark background), with text at the size
    preset's type size; returns it.

    Everything laid out for text (margins, subplot titles, offsets) grows or shrinks by the ratio of the new base
    font to the one the figure has, so styling twice, or restyling a styled figure, gives the same figure."""
    _check(style, size)
    s, font = STYLES[style], round(SIZES[size].font_for(style) * text_scale)
    ratio = font / (fig.layout.font.size or BASE_FONT_SIZE)
    margin = fig.layout.margin
    fig.update_layout(
        template="posenc",
        font={"size": font, "color": s["ink"], "family": font_family()},
        hoverlabel_font_family=font_family(),
        title_font_size=font + 2,
        paper_bgcolor=s["paper"],
        plot_bgcolor=s["plot"],
        legend_bgcolor="rgba(0,0,0,0)" if is_dark(style) else "rgba(255,255,255,0.6)",
        modebar=MODEBAR_DARK if is_dark(style) else MODEBAR_LIGHT,
        margin={side: (getattr(margin, side) or TEMPLATE_MARGIN[side]) * ratio for side in TEMPLATE_MARGIN},
    )
    for annotation in fig.layout.annotations:
        if annotation.font.size:  # subplot titles (16 px at the base font); others follow the layout's font
            annotation.font.size = annotation.font.size * ratio
        for shift in ("xshift", "yshift"):  # offsets in pixels from the point (make_subplots' axis titles)
            if annotation[shift]:
                annotation[shift] = annotation[shift] * ratio
        if annotation.bgcolor:  # a label's backing (over lines it crosses) is the paper's colour
            annotation.bgcolor = _translucent(s["paper"])
    fig.update_xaxes(gridcolor=s["grid"], linecolor=s["ink"], tickcolor=s["ink"], automargin=True)
    fig.update_yaxes(gridcolor=s["grid"], linecolor=s["ink"], tickcolor=s["ink"], automargin=True)
    fig.update_traces(line_width=s["line_width"] * SIZES[size].line_scale, selector={"type": "scatter"})
    _recolour_references(fig, reference_ink(style))
    return fig


def _recolour_references(fig: go.Figure, colour: str) -> None:
    """Give the reference lines and marks drawn in any style's reference colour (shapes, annotations, the lines
    and marker outlines of traces) ``colour``, so they stay visible on a dark background and restyling back
    restores them."""
    references = {reference_ink(style).lower() for style in STYLES}

    def swap(owner, name: str) -> None:
        value = owner[name]
        if isinstance(value, str) and value.lower() in references:
            owner[name] = colour

    for shape in fig.layout.shapes:
        swap(shape.line, "color")
        swap(shape, "fillcolor")
    for annotation in fig.layout.annotations:
        swap(annotation.font, "color")
        swap(annotation, "arrowcolor")
    for trace in fig.data:
        for part in ("line", "marker"):
            if part in trace and trace[part] is not None:
                swap(trace[part], "color")
                if part == "marker" and "line" in trace.marker:
                    swap(trace.marker.line, "color")


def _translucent(colour: str, alpha: float = 0.7) -> str:
    """'#111418' -> 'rgba(17,20,24,0.7)'; 'white' likewise."""
    hex_digits = {"white": "ffffff"}.get(colour, colour.lstrip("#"))
    red, green, blue = (int(hex_digits[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({red},{green},{blue},{alpha})"
