"""Titles wrapped for a phone: lines that fit, a top margin that holds them, the builder's title kept."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from posenc.drawing.phone_fit import PHONE_TITLE_WIDTH, TITLE_LINE, fit_title_to_phone, fit_to_phone
from posenc.drawing.text_wrap import CHAR_WIDTH, unwrapped_title

LONG = "RoPE angle m·θ_i mod 2π, head_dim=128, base=10000, L=1,024 positions, every pair of the head"


def _figure(title: str, top: float | None = None) -> go.Figure:
    fig = go.Figure(go.Scatter(y=[1, 2]))
    fig.update_layout(title=title, font_size=13, title_font_size=15)
    if top is not None:
        fig.update_layout(margin_t=top)
    return fig


def test_a_long_title_is_wrapped_to_a_phone_and_the_margin_grows_by_the_lines_added():
    fig = fit_title_to_phone(_figure(LONG, top=90))
    lines = fig.layout.title.text.split("<br>")
    assert len(lines) >= 3
    assert all(len(line) * CHAR_WIDTH * 15 <= PHONE_TITLE_WIDTH for line in lines)
    assert " ".join(lines) == LONG  # broken at spaces only
    assert _title_bottom(fig) < fig.layout.margin.t  # the whole title above the plot


def test_the_builders_breaks_are_kept_and_only_added_lines_grow_the_margin():
    title = "Learned table[p, j]:<br>random N(0, 0.02²) table, seed=0, 512 x 384, std 0.02"
    fig = fit_title_to_phone(_figure(title, top=90))
    lines = fig.layout.title.text.split("<br>")
    assert lines[0] == "Learned table[p, j]:" and len(lines) == 3
    assert _title_bottom(fig) < fig.layout.margin.t


def test_subplot_titles_get_room_under_a_title_of_several_lines():
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, subplot_titles=("left panel", "right panel"))
    fig.update_layout(title=LONG, font_size=13, title_font_size=15, height=500, margin_t=60)
    fit_title_to_phone(fig)
    subplot_titles = 1.35 * 16  # make_subplots' 16 px annotations standing on the plot
    assert _title_bottom(fig) + subplot_titles < fig.layout.margin.t


def test_a_one_line_title_gets_room_over_subplot_titles_of_two_lines():
    """A short title over a subplot title that wrapped to two lines on a phone (a Chinese one, say) is placed from
    the top, with a margin that holds both."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, subplot_titles=("相似度", "T5：不同信号数<br>（0..k）"))
    fig.update_layout(title="相似度随相对距离 k 的变化", font_size=13, title_font_size=15, height=500, margin_t=60)
    fit_title_to_phone(fig)
    assert "<br>" not in fig.layout.title.text
    assert _title_bottom(fig) + 2 * 1.35 * 16 < fig.layout.margin.t


def _title_bottom(fig: go.Figure) -> float:
    """Pixels from the top of the chart to the bottom of the title's last line (descent included)."""
    first_baseline = (1 - fig.layout.title.y) * (fig.layout.height or 450)
    lines = 1 + fig.layout.title.text.count("<br>")
    return first_baseline + (lines - 1) * TITLE_LINE * 15 + 0.3 * 15


def test_a_title_that_fits_is_left_alone():
    fig = fit_title_to_phone(_figure("Sinusoidal PE", top=70))
    assert fig.layout.title.text == "Sinusoidal PE" and fig.layout.margin.t == 70
    assert fig.layout.meta is None


def test_the_builders_title_is_kept_for_exports():
    fig = fit_title_to_phone(_figure(LONG))
    assert fig.layout.title.text != LONG
    assert unwrapped_title(fig) == LONG
    assert unwrapped_title(_figure("short")) == "short"
    assert unwrapped_title(go.Figure()) is None


def test_an_export_lays_out_the_builders_title_for_its_own_page():
    from posenc.drawing.export_layout import fit_to_page
    from posenc.drawing.theme import apply_style

    fig = apply_style(fit_title_to_phone(_figure(LONG)), "screen", "screen")
    fit_to_page(fig, "screen")
    assert fig.layout.title.text == LONG  # one line on a 1200 px page, not the phone's three


def test_a_figure_of_two_columns_reads_at_phone_width_and_keeps_its_plot_height():
    from plotly.subplots import make_subplots

    from posenc.drawing.common import LEGEND_BELOW
    from posenc.drawing.phone_fit import PHONE_WIDTH, fit_to_phone

    fig = make_subplots(rows=1, cols=2, subplot_titles=("similarity against distance", "distinct signals in 0..k"))
    for name in ("sinusoidal d_model=128", "RoPE Llama-3.1-8B (llama3 ×8)", "ALiBi BLOOM-176B, head 63"):
        fig.add_scatter(y=[1, 0.5, 0.2], name=name, row=1, col=1)
    fig.update_xaxes(title_text="relative distance k (tokens, log)")
    fig.update_layout(title=LONG, font_size=13, title_font_size=15, height=500, legend=LEGEND_BELOW)
    fig.update_layout(margin={"t": 70, "b": 60, "l": 70, "r": 30})
    plot_height = 500 - 70 - 60
    fit_to_phone(fig)
    margin = fig.layout.margin
    assert fig.layout.height - margin.t - margin.b == pytest.approx(plot_height, abs=1)
    column = (PHONE_WIDTH - 100) / 2  # each subplot's share of the plot width, at most
    for annotation in fig.layout.annotations:
        assert all(len(line) * CHAR_WIDTH * 16 <= column + 2 * 13 for line in annotation.text.split("<br>"))
    assert fig.layout.legend.yref == "container" and fig.layout.legend.y == 0  # under everything, in the margin
    assert fig.layout.xaxis.title.text.count("<br>") >= 1  # the axis title wrapped to its column


def test_a_chinese_title_is_wrapped_by_its_real_width_and_korean_at_its_spaces():
    from posenc.drawing.text_wrap import text_width_em

    chinese = "旋转位置编码的角度 m·θ_i mod 2π：头维度 128，基数 10000，序列中每个位置上的每个频率对"
    korean = "회전 위치 임베딩의 각도 m·θ_i mod 2π: head_dim=128, base=10000, 시퀀스의 모든 위치와 모든 주파수 쌍"
    for title, joiner in ((chinese, None), (korean, " ")):
        fig = fit_title_to_phone(_figure(title, top=70))
        lines = fig.layout.title.text.split("<br>")
        assert len(lines) >= 2
        assert all(text_width_em(line) * 15 <= PHONE_TITLE_WIDTH for line in lines)
        if joiner is not None:
            assert joiner.join(lines) == title
        assert unwrapped_title(fig) == title and _title_bottom(fig) < fig.layout.margin.t


# Figures of the lessons whose labels ran into each other on a projector: a legend under the plot over the x-axis
# title (the waves, T5's buckets, the score profile, the context-extension plot, M-RoPE's ids), rows too close for
# the labels between them (the RoPE pair), an axis title longer than its axis.
PROJECTED = {
    "sinusoidal-waves": {"seq_len": 128, "d_model": 64, "dims": (0, 8, 20)},
    "relative-t5-bucket": {},
    "rope-relative-profile": {"seq_len": 256, "head_dim": 64},
    "context-inv-freq": {"head_dim": 128, "rope_type": "ntk", "factor": 4.0},
    "mrope-position-ids": {},
    "rope-pair-rotation": {"seq_len": 64, "head_dim": 64, "pair": 4},
}


def _slides(figure_id: str, language: str = "en") -> go.Figure:
    from posenc import figures, i18n  # noqa: F401  (registers every figure)
    from posenc.drawing import registry

    with i18n.language(language):
        params, _ = registry.resolve_params(figure_id, PROJECTED[figure_id])
        return registry.build(figure_id, params, style="slides-light").figure


@pytest.mark.parametrize("figure_id", list(PROJECTED))
def test_a_legend_under_the_plot_stands_at_the_bottom_of_the_figure_under_the_x_axis(figure_id):
    """Plotly's margin then holds the x axis' labels and title first and the legend's rows under them, at any width
    and type size; a legend placed at a fraction of the plot's height under it ran into the axis title."""
    legend = _slides(figure_id).layout.legend
    assert (legend.yref, legend.y, legend.yanchor) == ("container", 0, "bottom")


@pytest.mark.parametrize("language", ["en", "ko", "zh-CN"])
@pytest.mark.parametrize("figure_id", ["context-inv-freq", "rope-relative-profile", "sinusoidal-waves"])
def test_a_slide_title_is_wrapped_to_the_projectors_chart_and_its_plot_keeps_its_height_on_the_screen(
    figure_id, language
):
    from posenc.drawing import registry
    from posenc.drawing.phone_fit import PROJECTOR_HEIGHT, PROJECTOR_WIDTH
    from posenc.drawing.text_wrap import text_width_em

    slides = _slides(figure_id, language)
    title, font = slides.layout.title, slides.layout.title.font.size or slides.layout.font.size + 2
    assert all(
        text_width_em(line) * font <= PROJECTOR_WIDTH - 2 * slides.layout.font.size for line in title.text.split("<br>")
    )
    assert unwrapped_title(slides).replace("<br>", "") != "" and "<br>" not in unwrapped_title(slides)
    with __import__("posenc").i18n.language(language):
        params, _ = registry.resolve_params(figure_id, PROJECTED[figure_id])
        screen = registry.build(figure_id, params).figure
    plot = (screen.layout.height or 450) - screen.layout.margin.t - screen.layout.margin.b
    margins = slides.layout.margin.t + slides.layout.margin.b
    assert slides.layout.height <= PROJECTOR_HEIGHT  # what a projected page shows under its heading
    assert slides.layout.height - margins >= min(plot, PROJECTOR_HEIGHT - margins) - 1


def test_rows_get_the_room_their_labels_need_on_a_projector_and_a_phone():
    """The RoPE pair: the circle's x tick labels and axis title, then the lower panel's title, between the rows."""
    from posenc.drawing.export_grid import cells_along, gaps_needed

    for fig in (_slides("rope-pair-rotation"), fit_to_phone(_slides("rope-pair-rotation"))):
        font, margin = fig.layout.font.size, fig.layout.margin
        plot_height = fig.layout.height - margin.t - margin.b
        lower, upper = cells_along(fig, "y")
        gap = (upper[0] - lower[1]) * plot_height
        assert gap >= gaps_needed(fig, "y", font)[0] - 1


@pytest.mark.parametrize("fit", ["phone", "projector"])
def test_a_y_axis_title_is_wrapped_to_the_height_of_its_axis(fit):
    """A y-axis title longer than its axis ran past the chart's top edge, where it was cut ('step t : word reac')."""
    from posenc.drawing.phone_fit import fit_to_projector
    from posenc.drawing.text_wrap import text_width_em

    fig = go.Figure(go.Heatmap(z=[[1, 2], [3, 4]]))
    fig.update_layout(height=320, font_size=20, margin={"t": 110, "b": 90})
    fig.update_yaxes(title_text="step t : word read by the recurrent network, one row per word")
    (fit_to_phone if fit == "phone" else fit_to_projector)(fig)
    axis_height = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    lines = fig.layout.yaxis.title.text.split("<br>")
    assert len(lines) >= 2 and all(text_width_em(line) * 1.2 * 20 <= axis_height for line in lines)
