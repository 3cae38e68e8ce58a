"""Exports through the real Plotly/kaleido path with Debian's chromium (one browser for the module), the size
presets' pages, kaleido's notices kept out of the log, and what is left without a browser."""

import io
import logging
import re
import struct
import warnings

import numpy as np
import pytest

from posenc import figures  # noqa: F401
from posenc.drawing import export, registry
from posenc.drawing.theme import SIZES

pytestmark = pytest.mark.skipif(
    export.find_browser() is None, reason="no Chrome/Chromium here: `make test` installs Debian's chromium"
)
POINTS_PER_CSS_PIXEL = 72 / 96


def png_size(content: bytes) -> tuple[int, int]:
    assert content[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    return struct.unpack(">II", content[16:24])


def media_box(content: bytes) -> tuple[float, float]:
    """The page size in points of a one-page PDF (its /MediaBox [x0 y0 x1 y1])."""
    assert content.startswith(b"%PDF-"), "not a PDF file"
    boxes = re.findall(rb"/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]", content)
    assert len(boxes) == 1, f"expected one page, found {len(boxes)} MediaBox entries"
    x0, y0, x1, y1 = map(float, boxes[0])
    return x1 - x0, y1 - y0


@pytest.fixture(scope="module", autouse=True)
def browser_server():
    export.start_browser_server()
    yield
    export.stop_browser_server()


@pytest.fixture(scope="module")
def result():
    params, _ = registry.resolve_params("why-attention", {"embedding_dim": 32})
    return registry.build("why-attention", params)


@pytest.fixture(scope="module")
def bias():
    """ALiBi's bias for four heads: a 2 x 2 grid of heatmaps with subplot titles and a shared colour bar."""
    params, _ = registry.resolve_params("alibi-bias", {"n_heads": 8, "heads": "0,2,5,7", "seq_len": 64})
    return registry.build("alibi-bias", params, style="slides-light")


def test_png_is_a_real_image_at_twice_the_figure_size(result):
    exported = export.export(result, "png")
    assert png_size(exported.content) == (2 * 1200, 2 * result.figure.layout.height)
    assert exported.mime == "image/png" and "kaleido" in exported.renderer


@pytest.mark.parametrize("size", list(SIZES))
def test_every_size_gives_its_page_to_the_pdf_and_its_pixels_to_the_png(bias, size):
    preset = SIZES[size]
    png = png_size(export.export(bias, "png", style="slides-light", size=size).content)
    pdf = media_box(export.export(bias, "pdf", style="slides-light", size=size).content)
    assert png[0] == round(preset.width * preset.png_scale)
    assert pdf[0] == pytest.approx(preset.width * POINTS_PER_CSS_PIXEL, abs=0.5)
    assert pdf[1] == pytest.approx(png[1] / preset.png_scale * POINTS_PER_CSS_PIXEL, abs=1.0)  # one page size
    if preset.height is not None:
        assert png[1] == round(preset.height * preset.png_scale)
        assert pdf[1] == pytest.approx(preset.height * POINTS_PER_CSS_PIXEL, abs=0.5)


def test_the_presets_pages_in_inches_and_pixels():
    assert media_points(SIZES["column"]) == (252, None) and media_points(SIZES["two-columns"]) == (504, None)
    assert media_points(SIZES["slide"]) == (960, 540)  # 13.333 x 7.5 in
    slide = SIZES["slide"]
    assert (slide.width * slide.png_scale, slide.height * slide.png_scale) == (1920, 1080)
    assert SIZES["column"].width * SIZES["column"].png_scale == pytest.approx(3.5 * 300)
    assert (SIZES["screen"].width, SIZES["screen"].png_scale) == (1200, 2.0)


def media_points(preset) -> tuple[float, float | None]:
    height = None if preset.height is None else preset.height * POINTS_PER_CSS_PIXEL
    return preset.width * POINTS_PER_CSS_PIXEL, height


def test_text_is_set_for_the_size_nine_points_in_a_paper_column(result):
    svg = export.export(result, "svg", size="column").content.decode()
    assert 'width="336"' in svg[:400]  # 3.5 in of CSS pixels: an SVG placed at its size is a column wide
    tick_sizes = {float(size) for size in re.findall(r'class="[xy]tick".*?font-size: ([\d.]+)px', svg)}
    assert tick_sizes == {12.0}  # 12 px = 9 pt
    screen = export.export(result, "svg").content.decode()
    assert {float(size) for size in re.findall(r'class="[xy]tick".*?font-size: ([\d.]+)px', screen)} == {13.0}


def test_the_figure_shared_with_the_app_is_left_as_it_was(bias):
    before = bias.figure.to_json()
    export.export(bias, "png", style="slides-dark", size="column")
    assert bias.figure.to_json() == before


def test_no_kaleido_notice_reaches_the_log(result, caplog):
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.DEBUG):
        warnings.simplefilter("always")  # as a server without pytest's filters would show them
        logging.captureWarnings(True)  # and as Streamlit's logger would receive them
        try:
            for fmt in ("png", "svg", "pdf"):
                export.export(result, fmt, size="column")
        finally:
            logging.captureWarnings(False)
    assert not [str(w.message) for w in caught if "kopts" in str(w.message)]
    assert not [record.getMessage() for record in caplog.records if "kopts" in record.getMessage()]


def test_svg_and_pdf_come_from_plotly_export(result):
    svg = export.export(result, "svg").content
    assert svg.lstrip().startswith(b"<svg") and b"Attention weights" in svg
    assert export.export(result, "pdf").content.startswith(b"%PDF-")


def test_html_is_interactive_and_offline_in_the_style_asked(result):
    html = export.export(result, "html", style="slides-dark").content.decode()
    assert "Plotly.newPlot" in html or "plotly" in html.lower()
    assert '<script src="http' not in html, "plotly.js must be inlined, not fetched"
    assert len(html) > 1_000_000  # the plotly.js bundle itself
    assert '"paper_bgcolor":"#111418"' in html


def test_numpy_holds_the_data_behind_the_figure(result):
    npz = np.load(io.BytesIO(export.export(result, "npy").content))
    assert set(npz.files) == set(result.data)
    np.testing.assert_array_equal(npz["weights_A_no_PE"], result.data["weights_A_no_PE"])


def test_single_array_is_a_plain_npy():
    content, extension = export.data_to_numpy({"z": np.eye(3, dtype=np.float32)})
    assert extension == "npy"
    np.testing.assert_array_equal(np.load(io.BytesIO(content)), np.eye(3))


def test_file_names_state_style_and_size_for_images_only():
    stem = "rope-angles_llama-3.1-8b_L131072_hd128"
    assert export.file_stem(stem, "pdf", "slides-light", "column") == f"{stem}_slides-light_column"
    assert export.file_stem(stem, "png", "screen", "screen") == f"{stem}_screen_screen"
    assert export.file_stem(stem, "html", "slides-dark", "column") == f"{stem}_slides-dark"
    assert export.file_stem(stem, "csv", "slides-dark", "column") == stem


def test_file_names_of_images_and_html_end_with_their_language_where_it_is_not_english():
    stem = "rope-angles_custom_hd128"
    assert export.file_stem(stem, "svg", "slides-light", "slide", "ko") == f"{stem}_slides-light_slide_ko"
    assert export.file_stem(stem, "html", "screen", "screen", "zh-CN") == f"{stem}_screen_zh-CN"
    assert export.file_stem(stem, "png", "screen", "slide", "en") == f"{stem}_screen_slide"
    assert export.file_stem(stem, "csv", "screen", "slide", "ko") == stem  # numbers have no language


def _tick_labels(svg: str, axis: str) -> list[str]:
    return [re.sub("<[^>]+>", "", tick) for tick in re.findall(rf'<g class="{axis}tick">(.*?)</g>', svg)]


def test_a_log_axis_labels_the_values_between_its_decades_in_full():
    """Plotly's default labels a log axis' 20 and 50 as a bare "2" and "5" (its "small digits")."""
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=[10, 10_000], y=[0.05, 0.95]))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    svg = export.export(registry.FigureResult(fig), "svg").content.decode()
    x_labels, y_labels = _tick_labels(svg, "x"), _tick_labels(svg, "y")
    assert {"10", "20", "50", "100", "200"} <= set(x_labels), x_labels
    assert {"0.2", "0.5", "0.8", "0.9"} <= set(y_labels), y_labels


@pytest.mark.parametrize(("code", "face"), [("ko", "Noto Sans CJK KR"), ("zh-CN", "Noto Sans CJK SC")])
def test_a_korean_or_chinese_svg_names_its_cjk_face_first_whatever_the_current_language(code, face):
    """A slide program may take the first family of the list alone: a Latin one drew boxes for the Hangul and Han.
    The app draws its downloads on another thread, where the page's language is not the current one."""
    from posenc import i18n

    params, _ = registry.resolve_params("alibi-slopes", {})
    with i18n.language(code):
        result = registry.build("alibi-slopes", params, style="slides-light")
    svg = export.export(result, "svg", style="slides-light", size="slide", language=code).content.decode()
    families = set(re.findall(r"font-family: ?([^;\"]+)", svg))
    assert families and all(family.startswith(f"'{face}'") for family in families), families


def test_without_a_browser_images_say_how_to_get_one_and_html_and_data_still_come(result, monkeypatch):
    monkeypatch.setattr(export, "find_browser", lambda: None)
    for fmt in export.IMAGE_FORMATS:
        with pytest.raises(ValueError, match=r"kaleido\.get_chrome_sync\(\).*apt-get install chromium.*camera button"):
            export.export(result, fmt)
    assert b"<html" in export.export(result, "html").content[:2000]
    assert export.export(result, "csv").content.startswith(b"row,column,")


def test_unknown_format_or_size_names_the_argument(result):
    with pytest.raises(ValueError, match="fmt must be one of"):
        export.export(result, "gif")
    with pytest.raises(ValueError, match="size must be one of screen, slide, column, two-columns"):
        export.export(result, "png", size="poster")
