"""ui.sweep_view through the app (AppTest): a link's sweep plays on the first figure that takes its parameter, the
Sweep box starts and stops one, a bad sweep is said and the still figure kept, and a lesson step plays its own."""

from __future__ import annotations

from bench.app_test import chart_specs, open_page
from tests.pages.conftest import assert_healthy, control, warning_text

SWEEP = "base:10000..1000000:12"
SECTION = "Rotation angles and wavelengths"


def animated(at) -> list[dict]:
    return [spec for spec in chart_specs(at) if spec.get("frames")]


def test_a_links_sweep_plays_on_the_first_figure_that_takes_it():
    at = open_page("rope", {"sweep": SWEEP}, section=SECTION)
    assert_healthy(at)
    (spec,) = animated(at)  # one animation per page, not one per figure taking the base
    assert len(spec["frames"]) == 12
    steps = spec["layout"]["sliders"][0]["steps"]
    assert steps[0]["label"] == "10,000" and steps[-1]["label"] == "1,000,000"
    assert "base=10000" in spec["layout"]["title"]["text"]  # frame 1 first
    assert "base=1000000" in spec["frames"][-1]["layout"]["title"]["text"]
    script = [block for block in at.get("html") if "data-posenc-sweep" in block.proto.body]
    assert script and '"sweep": "base:10000..1000000:12"' in script[0].proto.body  # it starts playing


def test_a_bad_sweep_in_a_link_is_said_and_the_still_figures_drawn():
    at = open_page("rope", {"sweep": "base:0.5..1000000:12"}, section=SECTION)
    assert not at.exception
    assert "Sweep not played" in warning_text(at) and "0.5 is outside" in warning_text(at)
    assert animated(at) == [] and chart_specs(at)


def test_the_box_starts_a_sweep_on_its_own_figure_and_stops_it():
    at = open_page("rope", section=SECTION)
    assert animated(at) == []
    control(at, "sweep-box-rope-wavelengths")  # closed, under the figure
    at.session_state["sweep-box-rope-wavelengths"] = True  # as a click on its header: open, it draws its controls
    at.run()
    control(at, "sweep-param-rope-wavelengths").set_value("base").run()
    control(at, "sweep-to-rope-wavelengths-base").set_value(100000.0).run()
    control(at, "sweep-frames-rope-wavelengths").set_value(5).run()
    control(at, "sweep-play-rope-wavelengths").click().run()
    assert_healthy(at)
    (spec,) = animated(at)
    assert len(spec["frames"]) == 5 and at.query_params["sweep"] == "base:10000..100000:5"
    assert at.query_params["sweep_figure"] == "rope-wavelengths"
    assert "wavelength" in spec["layout"]["title"]["text"].lower()
    for fmt in ("gif", "mp4", "html", "png"):  # its files, each made when clicked
        control(at, f"sweep-download-rope-wavelengths-{fmt}")
    control(at, "sweep-stop-rope-wavelengths").click().run()
    assert animated(at) == [] and "sweep" not in at.query_params


def test_the_box_refuses_a_range_outside_the_parameter_next_to_its_controls():
    at = open_page("rope", section=SECTION)
    at.session_state["sweep-box-rope-wavelengths"] = True
    at.run()
    control(at, "sweep-param-rope-wavelengths").set_value("base").run()
    control(at, "sweep-to-rope-wavelengths-base").set_value(1e13).run()
    control(at, "sweep-play-rope-wavelengths").click().run()
    assert not at.exception and animated(at) == []
    assert any("outside what it allows" in error.value for error in at.error)


def test_a_lesson_step_plays_its_sweep():
    at = open_page("lessons", {"lesson": "long_context", "step": "5"}, section=None)
    assert not at.exception
    (spec,) = animated(at)
    labels = [step["label"] for step in spec["layout"]["sliders"][0]["steps"]]
    assert labels[0] == "1" and labels[-1] == "32"


def test_the_animated_html_download_is_the_offline_animation():
    from posenc import figures  # noqa: F401
    from posenc.drawing import registry
    from posenc.drawing.animate import animate
    from posenc.drawing.sweep import parse_sweep
    from posenc.ui.sweep_box import _file

    params, _ = registry.resolve_params("rope-wavelengths", {})
    swept = animate("rope-wavelengths", params, parse_sweep("base:10000..1000000:3"))
    html = _file(swept, "html", "screen", "screen").decode()
    assert html.count('"name":"') >= 3 or html.count('"name": "') >= 3
    assert "<html" in html[:2000]
