"""The export menu under a figure (ui.export_menu) and the modebar's camera (ui.show.camera_options): a size preset
chosen in the menu reaches the file, and the camera gives the same page as the menu's "Screen" PNG."""

import json
import re
import struct

import pytest
from streamlit.testing.v1 import AppTest

from posenc import figures  # noqa: F401
from posenc.drawing import export, registry
from posenc.ui import export_menu
from tests.pages.conftest import elements_by_key

FIGURE = "rope-wavelengths"


def page() -> None:
    from posenc.drawing import registry  # registers every figure
    from posenc.ui import show

    params, _ = registry.resolve_params("rope-wavelengths", {})
    show.figure("rope-wavelengths", params)


@pytest.fixture(scope="module")
def app() -> AppTest:
    at = AppTest.from_function(page, default_timeout=120)
    at.session_state["theme"] = "slides-light"
    at.session_state[export_menu.menu_key(FIGURE)] = True  # the reader opened the menu
    return at.run()


def camera(at: AppTest) -> dict:
    chart = elements_by_key(at)[f"chart-{FIGURE}"]
    return json.loads(chart.proto.config)["toImageButtonOptions"]


def test_the_menu_offers_every_size_and_names_the_png_by_it(app):
    assert not app.exception
    found = elements_by_key(app)
    assert found[f"export-size-{FIGURE}"].options == ["Screen", "Slide 16:9", "1 column", "2 columns"]
    assert found[f"export-{FIGURE}-png"].label == "PNG (2x) (.png)"
    found[f"export-size-{FIGURE}"].set_value("column").run()
    found = elements_by_key(app)
    assert found[f"export-{FIGURE}-png"].label == "PNG (300 dpi) (.png)"
    assert any("3.5 in wide (252 pt)" in caption.value and "9 pt" in caption.value for caption in app.caption)
    found[f"export-size-{FIGURE}"].set_value("slide").run()
    assert elements_by_key(app)[f"export-{FIGURE}-png"].label == "PNG (1920 × 1080) (.png)"


def test_a_click_on_a_download_asks_for_its_file_without_a_rerun_that_would_lose_it(app):
    downloads = {key: found for key, found in elements_by_key(app).items() if key.startswith(f"export-{FIGURE}-")}
    assert {key.rsplit("-", 1)[1] for key in downloads} == set(export.FORMATS)
    for found in downloads.values():  # Streamlit's default reruns, which can drop the file before it is served
        assert found.proto.ignore_rerun and found.proto.HasField("deferred_file_id")


def test_the_camera_names_its_png_with_the_style_and_the_screen_size(app):
    options = camera(app)
    params, _ = registry.resolve_params(FIGURE, {})
    assert options["filename"] == registry.file_stem(FIGURE, params, "custom", style="slides-light", size="screen")
    assert options["filename"].endswith("_slides-light_screen")


@pytest.mark.skipif(export.find_browser() is None, reason="no Chrome/Chromium: `make test` installs it")
def test_the_camera_and_the_menu_give_the_same_page_and_the_menu_the_chosen_size(app):
    params, _ = registry.resolve_params(FIGURE, {})
    result = registry.build(FIGURE, params, style="slides-light")
    options = camera(app)
    try:
        png = export_menu._render(result, "png", "slides-light", "screen", "en")
        pdf = export_menu._render(result, "pdf", "slides-light", "column", "en")
    finally:
        export.stop_browser_server()
    menu = struct.unpack(">II", png[16:24])
    assert menu == (options["width"] * options["scale"], options["height"] * options["scale"])
    width = float(re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)", pdf).group(1))
    assert width == pytest.approx(252, abs=0.5)  # 3.5 in


def test_a_closed_menu_draws_nothing_inside_until_it_is_opened():
    at = AppTest.from_function(page, default_timeout=120).run()
    assert not at.exception
    assert not at.get("download_button") and f"export-size-{FIGURE}" not in elements_by_key(at)
    at.session_state[export_menu.menu_key(FIGURE)] = True
    at.run()
    assert len(at.get("download_button")) == len(export.FORMATS)


def test_describe_and_label_every_size():
    assert export_menu.describe_size("slide").startswith("13.33 × 7.5 in (960 × 540 pt); PNG 1920 × 1080 px")
    assert export_menu.describe_size("two-columns").startswith("7 in wide (504 pt)")
    assert export_menu.format_label("png", "screen") == "PNG (2x)"
    assert export_menu.format_label("pdf", "column") == "PDF"


def test_without_a_browser_the_menu_disables_images_says_how_to_get_one_and_keeps_html_and_data(monkeypatch):
    monkeypatch.delenv("BROWSER_PATH", raising=False)
    monkeypatch.setattr(export, "find_browser", lambda: None)
    at = AppTest.from_function(page, default_timeout=120)
    at.session_state[export_menu.menu_key(FIGURE)] = True
    at.run()
    assert not at.exception
    found = elements_by_key(at)
    assert [found[f"export-{FIGURE}-{fmt}"].disabled for fmt in export.FORMATS] == [True] * 3 + [False] * 3
    captions = " ".join(caption.value for caption in at.caption)
    assert "kaleido.get_chrome_sync()" in captions and "apt-get install chromium" in captions
    assert "camera button" in captions


def korean_page() -> None:
    from posenc import i18n
    from posenc.drawing import registry  # registers every figure
    from posenc.ui import show

    i18n.set_language("ko")
    params, _ = registry.resolve_params("rope-wavelengths", {})
    show.figure("rope-wavelengths", params)


@pytest.mark.skipif(export.find_browser() is None, reason="no Chrome/Chromium: `make test` installs it")
def test_a_korean_pages_files_say_ko_and_its_svg_names_the_korean_font_first(monkeypatch):
    """The download buttons' files are drawn on another thread, where the page's language is not set: the menu
    hands it over, so the SVG names the font its Korean was drawn with (a slide program may take the first family
    alone); the file names end with the language, the data files' do not (their numbers have none)."""
    import threading

    import streamlit as st

    made, download_button = {}, st.download_button

    def recording(label, data=None, *, file_name=None, key=None, **given):
        made[key] = (file_name, data)
        return download_button(label, data, file_name=file_name, key=key, **given)

    monkeypatch.setattr(st, "download_button", recording)
    at = AppTest.from_function(korean_page, default_timeout=120)
    at.session_state[export_menu.menu_key(FIGURE)] = True
    assert not at.run().exception
    names = {fmt: made[f"export-{FIGURE}-{fmt}"][0] for fmt in export.FORMATS}
    assert names["svg"].endswith("_screen_screen_ko.svg") and names["html"].endswith("_screen_ko.html")
    assert not names["csv"].endswith("_ko.csv")
    drawn = []
    worker = threading.Thread(target=lambda: drawn.append(made[f"export-{FIGURE}-svg"][1]()))
    try:
        worker.start()
        worker.join(120)
    finally:
        export.stop_browser_server()
    families = set(re.findall(r"font-family: ?([^;\"]+)", drawn[0].decode()))
    assert families and all(family.startswith("'Noto Sans CJK KR'") for family in families), families
