"""Exports through the real Plotly/kaleido path with Debian's chromium, and the browser-free fallback."""

import io
import struct

import numpy as np
import pytest

import figures  # noqa: F401
from figures import export, registry

pytestmark = pytest.mark.skipif(
    export.find_browser() is None, reason="no Chrome/Chromium here: `make test` installs Debian's chromium"
)


def png_size(content: bytes) -> tuple[int, int]:
    assert content[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    return struct.unpack(">II", content[16:24])


@pytest.fixture(scope="module")
def result():
    export.start_browser_server()
    params, _ = registry.resolve_params("why-attention", {"embedding_dim": 32})
    yield registry.build("why-attention", params)
    export.stop_browser_server()


def test_png_is_a_real_image_at_twice_the_figure_size(result):
    exported = export.export(result, "png")
    assert png_size(exported.content) == (2 * export.IMAGE_WIDTH, 2 * result.figure.layout.height)
    assert exported.mime == "image/png" and "kaleido" in exported.renderer


def test_svg_and_pdf_come_from_plotly_export(result):
    svg = export.export(result, "svg").content
    assert svg.lstrip().startswith(b"<svg") and b"Attention weights" in svg
    pdf = export.export(result, "pdf").content
    assert pdf.startswith(b"%PDF-")


def test_html_is_interactive_and_offline(result):
    html = export.export(result, "html").content.decode()
    assert "Plotly.newPlot" in html or "plotly" in html.lower()
    assert '<script src="http' not in html, "plotly.js must be inlined, not fetched"
    assert len(html) > 1_000_000  # the plotly.js bundle itself


def test_csv_and_numpy_hold_the_data_behind_the_figure(result):
    npz = np.load(io.BytesIO(export.export(result, "npy").content))
    assert set(npz.files) == set(result.data)
    np.testing.assert_array_equal(npz["weights_A_no_PE"], result.data["weights_A_no_PE"])
    csv = export.export(result, "csv").content.decode().splitlines()
    assert csv[0] == "array,index,value" and len(csv) == 1 + 4 * 36


def test_csv_layouts_for_curves_and_matrices():
    curves = export.data_to_csv({"k": np.arange(3), "similarity": np.array([1.0, 0.5, 0.25])}).decode().split()
    assert curves == ["k,similarity", "0,1", "1,0.5", "2,0.25"]
    matrix = export.data_to_csv({"z": np.eye(2)}).decode().split()
    assert matrix == ["1,0", "0,1"]
    with pytest.raises(ValueError, match="no data"):
        export.data_to_csv({})


def test_single_array_is_a_plain_npy():
    content, extension = export.data_to_numpy({"z": np.eye(3, dtype=np.float32)})
    assert extension == "npy"
    np.testing.assert_array_equal(np.load(io.BytesIO(content)), np.eye(3))


def test_without_a_browser_png_falls_back_to_matplotlib_and_svg_says_how(result, monkeypatch):
    monkeypatch.setattr(export, "find_browser", lambda: None)
    exported = export.export(result, "png")
    width, height = png_size(exported.content)
    assert width == 2 * 1200 and height == 2 * result.figure.layout.height
    assert "matplotlib" in exported.renderer and "apt-get install chromium" in exported.renderer
    with pytest.raises(ValueError, match="SVG export needs Chrome or Chromium.*apt-get install chromium"):
        export.export(result, "svg")


def test_unknown_format_names_the_argument(result):
    with pytest.raises(ValueError, match="fmt must be one of"):
        export.export(result, "gif")
