"""drawing.export_layout: a figure laid out on a size preset's page keeps its labels apart (the title within the
page and above the subplot titles, gaps between subplots wide enough, a legend below with room, subplots stacked
in a paper column). The same layouts, rendered by kaleido, were looked at for every style and size."""

import io
import re
from itertools import pairwise

import numpy as np
import pytest
from PIL import Image
from plotly.subplots import make_subplots

from posenc import figures  # noqa: F401
from posenc.drawing import export, registry
from posenc.drawing.export_grid import cells_along, gaps_needed, titles_on
from posenc.drawing.export_layout import MOST_PAPER_HEIGHT
from posenc.drawing.text_wrap import wrap
from posenc.drawing.theme import SIZES, STYLES

MANY_PARTS = {
    "alibi-bias": {"n_heads": 8, "heads": "0,2,5,7", "seq_len": 64},  # 2 x 2 heatmaps, subplot titles
    "mrope-position-ids": {},  # 3 rows sharing x, labels over the top row, a legend below
    "context-inv-freq": {},  # a legend of five entries below, labelled lines
    "compare-similarity": {},  # 2 columns of different widths, subplot titles, a long legend
    "sinusoidal-heatmap": {"seq_len": 64},  # a heatmap and its colour bar
    "context-angles": {},  # 4 rows on one page
    "why-attention": {"embedding_dim": 32},  # 2 x 2 heatmaps with token labels
}
CHAR_WIDTH = 0.5  # DejaVu Sans' mean, in em: what a line of text really takes


def laid_out(figure_id: str, style: str, size: str):
    params, _ = registry.resolve_params(figure_id, MANY_PARTS[figure_id])
    return export.laid_out(registry.build(figure_id, params).figure, style, size)


def lines(text: str) -> list[str]:
    return re.split(r"<br\s*/?>", text)


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("figure_id", list(MANY_PARTS))
def test_labels_keep_apart_on_every_page(figure_id, style, size):
    fig, width, height = laid_out(figure_id, style, size)
    font, margin = fig.layout.font.size, fig.layout.margin
    title_font = fig.layout.title.font.size
    assert all(len(line) * CHAR_WIDTH * title_font < width - font for line in lines(fig.layout.title.text))
    title_block = len(lines(fig.layout.title.text)) * 1.3 * title_font
    assert margin.t >= title_block + titles_on(fig, 1.0, font)  # the title above the top subplot titles
    plot_height = height - margin.t - margin.b
    for direction, pixels in (("x", width - margin.l - margin.r), ("y", plot_height)):
        cells = cells_along(fig, direction)
        gaps = [(b[0] - a[1]) * pixels for a, b in pairwise(cells)]
        needed = gaps_needed(fig, direction, font)
        assert all(gap >= need * 0.6 for gap, need in zip(gaps, needed, strict=True)), (direction, gaps, needed)
    if fig.layout.legend.yref == "container":
        assert fig.layout.legend.y == 0 and margin.b >= 4.6 * font  # under the x-axis title
    if SIZES[size].aspect is not None:
        assert height <= MOST_PAPER_HEIGHT and font == SIZES[size].font_for(style)
    else:
        assert height == (SIZES[size].height or fig.layout.height)


def test_a_crowded_slide_sets_its_text_smaller():
    fig, _, _ = laid_out("context-angles", "slides-light", "slide")
    assert fig.layout.font.size < SIZES["slide"].slides_font_size
    relaxed, _, _ = laid_out("sinusoidal-heatmap", "slides-light", "slide")
    assert relaxed.layout.font.size == SIZES["slide"].slides_font_size


def test_wrap_breaks_at_spaces_into_lines_of_even_length():
    assert wrap("relative distance k (tokens, log)", 170, 15.6) == "relative distance<br>k (tokens, log)"
    assert wrap("short", 500, 12) == "short"
    assert wrap("kept<br>break", 500, 12) == "kept<br>break"
    for width in (80, 150, 300):
        assert all(len(line) * 0.55 * 12 <= width or " " not in line for line in lines(wrap("a b " * 40, width, 12)))


def test_colour_bars_only_where_plotly_draws_them():
    lines_only, _, _ = laid_out("context-inv-freq", "screen", "two-columns")
    assert "colorbar" not in lines_only.to_json()  # setting a colour bar's thickness would make Plotly draw it
    heatmap, _, _ = laid_out("sinusoidal-heatmap", "screen", "column")
    assert heatmap.data[0].colorbar.thickness == pytest.approx(0.045 * SIZES["column"].width)


def test_a_short_log_axis_is_labelled_at_decades_only():
    params, _ = registry.resolve_params("compare-similarity", {})
    figure = registry.build("compare-similarity", params).figure
    cramped, _, _ = export.laid_out(figure, "slides-dark", "screen")
    roomy, _, _ = export.laid_out(figure, "screen", "column")
    assert [axis.dtick for axis in cramped.select_yaxes() if axis.type == "log"] == [1]
    assert [axis.dtick for axis in roomy.select_yaxes() if axis.type == "log"] == [None]


def test_a_long_legend_is_a_grid_of_equal_columns_its_rows_held_by_the_bottom_margin():
    fig, width, _ = laid_out("context-inv-freq", "slides-light", "two-columns")
    legend, font = fig.layout.legend, fig.layout.font.size
    names = [trace.name for trace in fig.data if trace.showlegend is not False and trace.name]
    assert legend.entrywidthmode == "pixels" and legend.entrywidth >= max(len(n) for n in names) * CHAR_WIDTH * font
    columns = int((width - 2 * font) // (legend.entrywidth + 45))
    rows = -(-len(set(names)) // columns)
    assert fig.layout.margin.b >= 4.6 * font + rows * 1.6 * font


def dark_bands(png: bytes, rows: int) -> list[tuple[int, int]]:
    """The runs of rows holding any dark pixel among the first ``rows`` rows of a white PNG."""
    image = np.asarray(Image.open(io.BytesIO(png)).convert("L"))[:rows]
    dark = np.flatnonzero((image < 128).any(axis=1))
    breaks = np.flatnonzero(np.diff(dark) > 1)
    return list(zip(dark[np.r_[0, breaks + 1]], dark[np.r_[breaks, len(dark) - 1]], strict=True))


@pytest.mark.skipif(export.find_browser() is None, reason="no Chrome/Chromium: `make test` installs it")
@pytest.mark.parametrize("size", ["column", "slide"])
def test_a_long_title_sits_inside_the_page_and_clear_of_the_subplot_titles(size):
    fig = make_subplots(rows=2, cols=1, subplot_titles=("upper panel", "lower panel"))
    fig.add_scatter(y=[1, 2], row=1, col=1)
    fig.add_scatter(y=[2, 1], row=2, col=1)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)  # nothing but text in the top margin
    title = "A title of several lines, as a builder writes it<br>its second line<br>and a third"
    fig.update_layout(title=title, showlegend=False)
    laid, width, height = export.laid_out(fig, "screen", size)
    export.start_browser_server()
    try:
        png = laid.to_image(format="png", width=width, height=height, scale=1)
    finally:
        export.stop_browser_server()
    bands = dark_bands(png, int(laid.layout.margin.t) + 2)
    lines = laid.layout.title.text.count("<br>") + 1
    assert bands[0][0] >= 2  # the first line is not cut at the top of the page
    assert len(bands) == lines + 1  # every title line apart, and the upper panel's title apart from them
