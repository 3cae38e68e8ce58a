"""ui.show: a figure not built before is preceded by its placeholder frame; a cached one is drawn directly; under a
dark Streamlit theme the screen style turns dark (the figure drawn, not its exports); in presenter mode a figure
given a box is laid out to fit it."""

import json

import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots
from streamlit.testing.v1 import AppTest

from posenc.drawing import export, registry
from posenc.drawing.text_wrap import text_width_em
from posenc.drawing.theme import SIZES, apply_style
from posenc.ui import show
from tests.pages.conftest import assert_healthy, chart_specs, elements_by_key, open_page


def test_a_placeholder_precedes_only_figures_not_built_before(monkeypatch):
    framed = []
    real_placeholder = show.placeholder
    monkeypatch.setattr(show, "placeholder", lambda title, **kw: framed.append(title) or real_placeholder(title, **kw))
    query = {"seq_len": "777", "d_model": "96"}  # parameters no other test builds
    first = open_page("sinusoidal", query, section="The table")
    assert_healthy(first)
    assert framed == [registry.get_spec("sinusoidal-heatmap").title]
    assert len(chart_specs(first)) == 1 and chart_specs(first)[0]["data"]  # the placeholder was replaced

    framed.clear()
    again = open_page("sinusoidal", query, section="The table")
    assert framed == []
    assert chart_specs(again) == chart_specs(first)


def test_a_figure_missing_a_parameter_shows_a_message_in_its_place():
    def page() -> None:
        from posenc import figures  # noqa: F401
        from posenc.ui import show

        show.figure("rope-wavelengths", {"head_dim": 64})

    at = AppTest.from_function(page).run()
    assert not at.exception
    assert "rope-wavelengths" in at.error[0].value and "seq_len" in at.error[0].value


def test_the_code_behind_a_figure_is_in_a_closed_expander_under_it():
    at = open_page("sinusoidal", {"d_model": "96", "base": "5000"}, section="The table")
    assert_healthy(at)
    expanders = [box for box in at.expander if box.label.startswith("Code:")]
    assert len(expanders) == 1 and not expanders[0].proto.expanded
    assert not expanders[0].code  # closed: its code is not sent
    at.session_state[show.code_key("sinusoidal-heatmap")] = True  # the reader opens it
    at.run()
    expanders = [box for box in at.expander if box.label.startswith("Code:")]
    source = expanders[0].code[0].value
    assert "d_model = 96" in source and "base = 5000.0" in source and "result = pe" in source
    assert "positions = np.arange(" in source
    order = [kind for kind, _ in _elements(at.main)]
    chart = order.index("plotly_chart")
    assert ("expander", expanders[0].label) in _elements(at.main)[chart:]  # under the figure


def _elements(node) -> list[tuple[str, str | None]]:
    """(type, label) of ``node`` and everything inside it, in page order."""
    found = [(getattr(node, "type", None), getattr(node, "label", None))]
    children = getattr(node, "children", None)
    for key in sorted(children) if isinstance(children, dict) else ():
        found += _elements(children[key])
    return found


@pytest.mark.parametrize(
    ("chosen", "theme", "drawn"),
    [
        ("screen", "dark", "screen-dark"),
        ("screen", "light", "screen"),
        ("screen", None, "screen"),  # before the browser has told the theme
        ("slides-light", "dark", "slides-light"),
        ("slides-dark", "light", "slides-dark"),
        ("slides-dark", "dark", "slides-dark"),
    ],
)
def test_the_screen_style_turns_dark_with_the_theme_and_the_slide_styles_stay(chosen, theme, drawn):
    assert show.screen_style(chosen, theme) == drawn


def _rope_wavelengths() -> None:
    from posenc import figures  # noqa: F401
    from posenc.drawing import registry
    from posenc.ui import show

    params, _ = registry.resolve_params("rope-wavelengths", {"seq_len": 5003})  # a key no other test builds
    show.figure("rope-wavelengths", params)


def test_under_a_dark_theme_the_figure_is_dark_and_its_exports_keep_the_chosen_style(monkeypatch):
    monkeypatch.setattr(show, "theme_type", lambda: "dark")
    menus = []
    real_menu = show.export_menu
    monkeypatch.setattr(show, "export_menu", lambda *args: menus.append(args) or real_menu(*args))
    dark = AppTest.from_function(_rope_wavelengths, default_timeout=120).run()
    assert not dark.exception
    assert chart_specs(dark)[0]["layout"]["paper_bgcolor"] == "#171614"
    camera = json.loads(elements_by_key(dark)["chart-rope-wavelengths"].proto.config)["toImageButtonOptions"]
    assert camera["filename"].endswith("_screen-dark_screen")  # the camera saves the figure as shown
    _, shown, _ = menus[0]
    assert shown.figure.layout.paper_bgcolor == "#171614"
    html = export.export(shown, "html", style="screen").content  # the menu's HTML, in the style chosen (the default)
    assert b'"paper_bgcolor":"white"' in html and b"#171614" not in html

    monkeypatch.setattr(show, "theme_type", lambda: "light")
    light = AppTest.from_function(_rope_wavelengths, default_timeout=120).run()
    assert chart_specs(light)[0]["layout"]["paper_bgcolor"] == "white"  # another cache entry, not the dark one


def _tall_figure() -> go.Figure:
    """Three rows of subplots with titles, a long title and a legend, 900 px tall, in the slide style."""
    fig = make_subplots(rows=3, cols=1, subplot_titles=["first row", "second row", "third row"])
    for row in (1, 2, 3):
        fig.add_scatter(y=[0, row, 0, row], name=f"a curve with a long legend entry, number {row}", row=row, col=1)
    title = "A figure with a long title that runs well past the width of the box, d_model=64, base=10000, L=4,096"
    fig.update_layout(height=900, title=title, margin={"t": 140, "b": 120})
    return apply_style(fig, "slides-light")


def test_a_tall_figure_boxed_for_presenter_mode_fits_its_box_and_still_reads():
    """A figure of three rows 900 px tall, boxed 650 x 500 for a lesson in presenter mode: it keeps to the box, its
    plots keep their share of the height (its text made smaller for it, not below SMALLEST_TEXT of the slide
    style's), each title line fits the width; the figure given is left as it was."""
    tall = _tall_figure()
    before = json.loads(tall.to_json())
    boxed = show.fit_to_box(tall, "slides-light", 650, 500)
    assert json.loads(tall.to_json()) == before  # (Plotly may reorder its keys: the values are what count)
    assert boxed.layout.height == 500
    largest = SIZES["screen"].font_for("slides-light")
    font, margin = boxed.layout.font.size, boxed.layout.margin
    assert round(show.SMALLEST_TEXT * largest) <= font < largest
    assert margin.t + margin.b <= (1 - show.PLOT_SHARE) * 500 or font == round(show.SMALLEST_TEXT * largest)
    title_font = boxed.layout.title.font.size
    lines = boxed.layout.title.text.split("<br>")
    assert len(lines) > 1 and all(text_width_em(line) * title_font <= 650 for line in lines)


def test_a_short_figure_boxed_keeps_its_height_and_its_text():
    short = apply_style(go.Figure(go.Bar(y=[3, 1, 2]), layout={"height": 360, "title": "Slopes"}), "slides-light")
    boxed = show.fit_to_box(short, "slides-light", 650, 500)
    assert boxed.layout.height == 360 and boxed.layout.font.size == short.layout.font.size


@pytest.mark.parametrize(
    ("agent", "kind"),
    [
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36", "phone"),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148", "phone"),
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
            "desktop",
        ),
        ("", "desktop"),
    ],
)
def test_a_title_is_wrapped_for_the_screen_the_browser_says_it_is(monkeypatch, agent, kind):
    """A desktop's chart is 700 px and more wide: its title takes that width (it was wrapped for a phone's 330 px
    everywhere, about 35 characters); a phone's keeps its short lines."""
    monkeypatch.setattr(show, "screen_kind", lambda: show.screen_kind_of(agent))
    assert show.screen_kind_of(agent) == kind
    at = open_page("sinusoidal", {"seq_len": "100"}, section="The table")
    assert_healthy(at)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    lines = spec["layout"]["title"]["text"].split("<br>")
    widest = max(text_width_em(line) for line in lines) * spec["layout"]["title"]["font"]["size"]
    if kind == "phone":
        assert len(lines) >= 2 and widest <= 330
    else:
        assert len(lines) == 1 and 330 < widest <= 670


def test_the_cameras_png_is_named_in_its_language():
    at = open_page("rope", {"lang": "ko"}, section="Rotation angles and wavelengths")
    camera = json.loads(elements_by_key(at)["chart-rope-wavelengths"].proto.config)["toImageButtonOptions"]
    assert camera["filename"].endswith("_screen_screen_ko")
    english = open_page("rope", section="Rotation angles and wavelengths")
    camera = json.loads(elements_by_key(english)["chart-rope-wavelengths"].proto.config)["toImageButtonOptions"]
    assert camera["filename"].endswith("_screen_screen")
