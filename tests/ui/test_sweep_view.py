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
    for fmt in ("gif", "mp4", "html", "png"):  # its files, each made when clicked, without a rerun to lose the click
        assert control(at, f"sweep-download-rope-wavelengths-{fmt}").proto.ignore_rerun
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
    from posenc.drawing.cache import BoundedCache

    html = _file(swept, "html", "screen", "screen", ("test",), BoundedCache(2**26)).decode()
    assert html.count('"name":"') >= 3 or html.count('"name": "') >= 3
    assert "<html" in html[:2000]


# Issue 35, defect 8: the RoPE page's first figure, "partial rotary factor" picked in its Sweep box, the box's own
# From / To / Frames kept, Play: Streamlit's error box replaced the figure (a frame left an odd rotary dimension).
def test_the_rope_box_plays_the_partial_rotary_factor_with_its_own_defaults():
    at = open_page("rope", section=SECTION)
    at.session_state["sweep-box-rope-wavelengths"] = True
    at.run()
    control(at, "sweep-param-rope-wavelengths").set_value("partial_rotary_factor").run()
    control(at, "sweep-play-rope-wavelengths").click().run()
    assert_healthy(at)
    (spec,) = animated(at)
    assert 2 <= len(spec["frames"]) < 12  # the values the figure refuses are left out...
    assert any("left out" in caption.value for caption in at.caption)  # ... and said under it


# Issue 35, defect 5b: the build asks, between frames, whether its session is still alive.
def test_until_session_ends_follows_the_runtimes_session(monkeypatch):
    from types import SimpleNamespace

    from posenc.ui import sweep_view

    active = {"s1"}
    runtime = SimpleNamespace(is_active_session=lambda session_id: session_id in active)
    monkeypatch.setattr(sweep_view, "get_script_run_ctx", lambda **_: SimpleNamespace(session_id="s1"))
    monkeypatch.setattr(sweep_view.runtime, "exists", lambda: True)
    monkeypatch.setattr(sweep_view.runtime, "get_instance", lambda: runtime)
    ended = sweep_view.until_session_ends()
    assert ended() is False
    active.clear()  # the tab closed: Streamlit's runtime let the session go
    assert ended() is True


def test_outside_a_served_session_a_sweep_is_never_cancelled():
    from posenc.ui import sweep_view

    assert sweep_view.until_session_ends()() is False


# Issue 35, defect 5b: a sweep's movie is made when its button is clicked, and kept in the figure cache, which counts
# its bytes (and its drawn frames') in its budget.
def test_a_movie_download_is_made_when_asked_and_counted_in_the_cache(monkeypatch):
    import io

    from PIL import Image

    from posenc import figures  # noqa: F401
    from posenc.drawing import export, registry
    from posenc.drawing.animate import animate
    from posenc.drawing.cache import BoundedCache
    from posenc.drawing.sweep import parse_sweep
    from posenc.ui.sweep_box import _file

    drawn = []

    def fake_png(figure, fmt, width, height, scale, browser):
        drawn.append(fmt)
        buffer = io.BytesIO()
        Image.new("RGB", (64, 48), (len(drawn) * 20, 0, 0)).save(buffer, format="PNG")
        return buffer.getvalue()

    monkeypatch.setattr(export, "image_browser", lambda: "chromium")
    monkeypatch.setattr(export, "to_image", fake_png)
    params, _ = registry.resolve_params("rope-wavelengths", {})
    swept = animate("rope-wavelengths", params, parse_sweep("base:10000..1000000:4"))
    cache = BoundedCache(2**26)
    gif = _file(swept, "gif", "screen", "slide", ("k",), cache)
    assert gif[:6] == b"GIF89a" and len(drawn) == 4 and swept.images == {}  # not kept out of the cache's sight
    assert cache.nbytes >= len(gif) + 4 * 50 and len(cache) == 2  # the GIF and its drawn frames, counted
    _file(swept, "mp4", "screen", "slide", ("k",), cache)
    assert len(drawn) == 4  # the MP4 shares the frames the GIF drew
