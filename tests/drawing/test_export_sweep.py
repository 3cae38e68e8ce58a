"""drawing.export_sweep: a sweep as GIF, MP4, animated HTML and a grid of frames, drawn by the real Plotly export
(kaleido and Chromium) and read back: frame counts, sizes, and the frames inside the HTML."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import export, registry
from posenc.drawing.animate import animate
from posenc.drawing.export_sweep import HOLD_LAST, export_sweep
from posenc.drawing.sweep import parse_sweep
from posenc.drawing.sweep_grid import grid_figure

needs_browser = pytest.mark.skipif(export.find_browser() is None, reason="no Chrome/Chromium: `make test` installs it")


@pytest.fixture(scope="module")
def swept():
    params, _ = registry.resolve_params("rope-wavelengths", {})
    return animate("rope-wavelengths", params, parse_sweep("base:10000..1000000:4"))


@pytest.fixture(scope="module")
def browser():
    if export.find_browser() is None:
        pytest.skip("no Chrome/Chromium: `make test` installs it")
    export.start_browser_server()
    yield
    export.stop_browser_server()


def test_the_html_holds_every_frame_and_plotly_inlined(swept):
    html = export_sweep(swept, "html").content.decode()
    assert "<script src=" not in html.split("<body>")[0] or "cdn" not in html  # offline: nothing fetched
    names = re.findall(r'"name":\s*"(\d+)"', html)
    assert sorted(set(names), key=int) == ["0", "1", "2", "3"]
    assert '"sliders"' in html and "animate" in html


@needs_browser
def test_the_gif_has_every_frame_at_the_slide_size(swept, browser):
    gif = export_sweep(swept, "gif", size="slide").content
    image = Image.open(io.BytesIO(gif))
    assert image.n_frames == 4 and image.size == (1920, 1080)
    durations = []
    for k in range(image.n_frames):
        image.seek(k)
        durations.append(image.info["duration"])
    assert durations[-1] == HOLD_LAST * durations[0]  # the end is held before the loop


@needs_browser
def test_the_mp4_plays_every_frame(swept, browser, tmp_path):
    import imageio.v2 as imageio

    path = tmp_path / "sweep.mp4"
    path.write_bytes(export_sweep(swept, "mp4", size="slide").content)  # the GIF's frames, drawn once
    with imageio.get_reader(path, format="ffmpeg") as reader:
        frames = [frame for frame in reader.iter_data()]  # list() would ask for its length: unknown (inf)
    assert len(frames) == 4 + HOLD_LAST - 1
    assert frames[0].shape[1] == 1920 and frames[0].shape[0] % 2 == 0
    assert abs(frames[0].astype(int) - frames[3].astype(int)).mean() > 0.5  # the data moved between first and last


@needs_browser
@pytest.mark.parametrize(("fmt", "magic"), [("png", b"\x89PNG"), ("svg", b"<svg"), ("pdf", b"%PDF-")])
def test_the_grid_of_frames(swept, browser, fmt, magic):
    content = export_sweep(swept, fmt, size="two-columns").content
    assert content.lstrip()[: len(magic)] == magic


def test_the_grid_titles_each_cell_with_its_value(swept):
    grid = grid_figure(swept)
    titles = [annotation.text for annotation in grid.layout.annotations]
    assert titles == ["base = 10,000", "base = 46,416", "base = 215,443", "base = 1,000,000"]
    assert len(list(grid.select_xaxes())) == 4
    assert sum(bool(trace.showlegend) for trace in grid.data) == len(swept.frames[0].figure.data)  # one legend


def test_a_figure_of_several_plots_has_no_grid():
    params, _ = registry.resolve_params("alibi-bias", {})
    swept = animate("alibi-bias", params, parse_sweep("n_heads:2..4:2"))
    with pytest.raises(ValueError, match="several plots"):
        grid_figure(swept)
    assert len(swept.figure.frames) == 2  # the animation itself is fine: the HTML, GIF and MP4 take it


def test_a_gif_and_an_mp4_of_one_sweep_share_their_drawn_frames(swept, browser):
    export_sweep(swept, "gif", size="slide")
    drawn = swept.images[("screen", "slide")]
    export_sweep(swept, "mp4", size="slide")
    assert swept.images[("screen", "slide")] is drawn and len(drawn) == len(swept.frames)
