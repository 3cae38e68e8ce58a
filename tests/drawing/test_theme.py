"""drawing.theme: the styles and the size presets' type sizes; restyling a figure is idempotent and reversible."""

import json

import plotly.graph_objects as go
import pytest

from posenc import figures  # noqa: F401
from posenc.drawing import registry
from posenc.drawing.theme import REFERENCE_INK, SIZES, STYLES, apply_style, is_dark, reference_ink, screen_size


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
    with pytest.raises(ValueError, match="style must be one of screen, screen-dark, slides-light, slides-dark"):
        apply_style(go.Figure(), "neon")
    with pytest.raises(ValueError, match="size must be one of screen, slide, column, two-columns"):
        apply_style(go.Figure(), "screen", "poster")


def test_the_dark_screen_style_has_the_screens_type_and_streamlits_dark_background():
    dark, screen = STYLES["screen-dark"], STYLES["screen"]
    assert (dark["font_size"], dark["line_width"]) == (screen["font_size"], screen["line_width"])
    figure = built("why-attention", "screen-dark")
    assert figure.layout.font.size == built().layout.font.size == 13
    assert figure.layout.paper_bgcolor == figure.layout.plot_bgcolor == "#171614"
    assert _luminance(figure.layout.font.color) > 0.8 and _luminance(figure.layout.xaxis.gridcolor) < 0.25
    assert is_dark("screen-dark") and is_dark("slides-dark") and not is_dark("screen") and not is_dark("slides-light")


@pytest.mark.parametrize("style", ["screen-dark", "slides-dark"])
@pytest.mark.parametrize(
    ("figure_id", "given"),
    [("context-angles", {}), ("rope-wavelengths", {}), ("mrope-channels", {}), ("rope-pair-rotation", {})],
)
def test_reference_lines_are_light_on_a_dark_background_and_dark_again_on_white(figure_id, given, style):
    light = built(figure_id, "screen", **given)
    drawn = _reference_colours(light)
    assert drawn and drawn <= {REFERENCE_INK}, f"{figure_id} draws no reference line in REFERENCE_INK"
    dark = built(figure_id, style, **given)
    assert _reference_colours(dark) <= {reference_ink(style)} and _luminance(reference_ink(style)) > 0.5
    restyled = apply_style(go.Figure(dark), "screen")  # as an export restyles the figure the app shows
    assert _reference_colours(restyled) == drawn
    if style == "screen-dark":  # same type size: the very figure (slides' sizes scale back to within rounding)
        assert json.loads(restyled.to_json()) == json.loads(light.to_json())


def test_the_modebar_is_readable_on_either_background():
    assert _luminance(built(style="screen-dark").layout.modebar.color[5:-6]) > 0.8
    assert _luminance(built().layout.modebar.color[5:-6]) < 0.25


def _reference_colours(fig: go.Figure) -> set[str]:
    """The colours of the figure's lines drawn in some style's reference colour (shapes and traces)."""
    references = {reference_ink(style) for style in STYLES}
    colours = {shape.line.color for shape in fig.layout.shapes}
    for trace in fig.data:
        colours |= {getattr(trace, "line", None) and trace.line.color}
        marker = getattr(trace, "marker", None)
        colours |= {marker and marker.line and marker.line.color}
    return {colour for colour in colours if isinstance(colour, str) and colour in references}


def _luminance(colour: str) -> float:
    """0 (black) to 1 (white): the mean of the channels of '#rrggbb', '#rgb' or 'r,g,b'."""
    if colour.startswith("#"):
        digits = colour[1:] if len(colour) == 7 else "".join(c * 2 for c in colour[1:])
        channels = [int(digits[i : i + 2], 16) for i in (0, 2, 4)]
    else:
        channels = [int(part) for part in colour.split(",")[:3]]
    return sum(channels) / (3 * 255)
