"""figures.theme: the styles and the size presets' type sizes; restyling a figure is idempotent and reversible."""

import plotly.graph_objects as go
import pytest

from posenc import figures  # noqa: F401
from posenc.figures import registry
from posenc.figures.theme import SIZES, STYLES, apply_style, screen_size


def built(figure_id: str = "why-attention", style: str = "screen", **given) -> go.Figure:
    params, _ = registry.resolve_params(figure_id, given)
    return registry.build(figure_id, params, style=style).figure


@pytest.mark.parametrize(
    ("size", "screen_font", "slides_font"), [("screen", 13, 20), ("slide", 18, 24), ("column", 12, 13)]
)
def test_text_follows_the_size_and_the_style(size, screen_font, slides_font):
    assert apply_style(built(), "screen", size).layout.font.size == screen_font
    assert apply_style(built(), "slides-dark", size).layout.font.size == slides_font


def test_a_paper_column_sets_text_at_nine_points():
    assert SIZES["column"].font_size * 72 / 96 == 9 and SIZES["two-columns"].font_size * 72 / 96 == 9


def test_restyling_twice_changes_nothing_and_back_to_the_screen_restores_the_layout():
    screen = built()
    slides = apply_style(go.Figure(screen), "slides-light", "slide")
    again = apply_style(go.Figure(slides), "slides-light", "slide")
    assert again.to_json() == slides.to_json()
    back = apply_style(go.Figure(slides), "screen", "screen")
    for side in ("l", "r", "t", "b"):
        assert back.layout.margin[side] == pytest.approx(screen.layout.margin[side])
    assert [a.font.size for a in back.layout.annotations] == pytest.approx(
        [a.font.size for a in screen.layout.annotations]
    )


def test_subplot_titles_and_margins_grow_with_the_text():
    screen, slides = built(), built(style="slides-light")
    ratio = STYLES["slides-light"]["font_size"] / STYLES["screen"]["font_size"]
    assert slides.layout.annotations[0].font.size == pytest.approx(screen.layout.annotations[0].font.size * ratio)
    assert slides.layout.margin.l == pytest.approx(screen.layout.margin.l * ratio)


def test_labels_backed_by_the_paper_colour_in_the_dark_style():
    dark = built("context-inv-freq", "slides-dark")
    backed = [a.bgcolor for a in dark.layout.annotations if a.bgcolor]
    assert backed and all(colour == "rgba(17,20,24,0.7)" for colour in backed)


def test_screen_size_is_1200_by_the_figures_own_height():
    assert screen_size(built()) == (1200, built().layout.height)
    assert screen_size(go.Figure()) == (1200, 650)


def test_unknown_style_or_size_is_named():
    with pytest.raises(ValueError, match="style must be one of screen, slides-light, slides-dark"):
        apply_style(go.Figure(), "neon")
    with pytest.raises(ValueError, match="size must be one of screen, slide, column, two-columns"):
        apply_style(go.Figure(), "screen", "poster")
