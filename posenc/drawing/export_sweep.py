"""A sweep exported for slides and papers: GIF and MP4 (each frame drawn by the same Plotly export as a still
image, then encoded by imageio), the animated HTML (plotly.js inlined, works offline), and a grid of frames as
PNG, SVG or PDF (:mod:`drawing.sweep_grid`).

GIF and MP4 take a size preset (``screen``: 1200 x 700 px, ``slide``: 16:9 at 1920 x 1080); their frames show
for :data:`SECONDS_PER_FRAME` each, and the last one is held so the end is readable before the loop starts again.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable, Hashable
from pathlib import Path

import numpy as np
from PIL import Image

from posenc.drawing import export
from posenc.drawing.animate import SweepResult
from posenc.drawing.export import ExportedFile
from posenc.drawing.sweep_grid import frame_grid
from posenc.drawing.theme import SIZES

SWEEP_FORMATS = ("gif", "mp4", "html", "png", "svg", "pdf")
MOVIE_FORMATS = ("gif", "mp4")
MOVIE_SIZES = ("screen", "slide")
SECONDS_PER_FRAME = 0.8
HOLD_LAST = 3  # the last frame shows this many times as long
Keep = Callable[[Hashable, Callable[[], list[bytes]]], list[bytes]]
"""Where a movie's drawn frames are kept: ``keep(key, draw)`` returns the PNGs kept under ``key``, or ``draw()``'s."""
MOVIE_SCALE = {"screen": 1.0, "slide": SIZES["slide"].png_scale}  # pixels per CSS px: 1200 px wide; 1920 x 1080


def export_sweep(
    sweep: SweepResult, fmt: str, *, style: str = "screen", size: str = "screen", keep: Keep | None = None
) -> ExportedFile:
    """``sweep`` as ``fmt`` (one of :data:`SWEEP_FORMATS`). ValueError for an unknown format or a movie size
    other than :data:`MOVIE_SIZES`, or (images) when no browser is found. ``keep`` keeps a movie's drawn frames
    (see :func:`movie_frames`)."""
    if fmt not in SWEEP_FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(SWEEP_FORMATS)} (got {fmt!r})")
    if fmt == "html":
        return ExportedFile(export.to_html(export.styled(sweep.figure, style)), "html", "plotly.js (inlined, offline)")
    if fmt in MOVIE_FORMATS:
        if size not in MOVIE_SIZES:
            raise ValueError(f"a {fmt.upper()} is drawn at size {' or '.join(MOVIE_SIZES)} (got {size!r})")
        frames = movie_frames(sweep, style, size, keep)
        content = to_gif(frames) if fmt == "gif" else to_mp4(frames)
        return ExportedFile(content, fmt, f"Plotly export (kaleido) + imageio, {len(frames)} frames")
    return frame_grid(sweep, fmt, style=style, size=size)


def movie_frames(sweep: SweepResult, style: str, size: str, keep: Keep | None = None) -> list[np.ndarray]:
    """Each frame as an RGB array, drawn as a still PNG is (same layout, same axes as the animation's). The PNGs are
    drawn once per style and size and kept (a few hundred KB each, not the decoded megabytes), so a GIF and an MP4
    of the same sweep share them: by ``keep((style, size), draw)`` where given (the app's figure cache, which
    counts their bytes in its budget), else with the sweep itself (``SweepResult.images``: the exporter's)."""

    def draw() -> list[bytes]:
        browser = export.image_browser()
        pngs = []
        for result in sweep.frames:
            figure, width, height = export.laid_out(result.figure, style, size)
            pngs.append(export.to_image(figure, "png", width, height, MOVIE_SCALE[size], browser))
        return pngs

    if keep is not None:
        pngs = keep((style, size), draw)
    else:
        if (style, size) not in sweep.images:
            sweep.images[(style, size)] = draw()
        pngs = sweep.images[(style, size)]
    images = [np.asarray(Image.open(io.BytesIO(png)).convert("RGB")) for png in pngs]
    shape = images[0].shape
    return [image if image.shape == shape else _fit(image, shape) for image in images]


def to_gif(frames: list[np.ndarray]) -> bytes:
    """An endlessly looping GIF, each frame :data:`SECONDS_PER_FRAME`, the last held :data:`HOLD_LAST` times."""
    images = [Image.fromarray(frame) for frame in frames]
    durations = [int(SECONDS_PER_FRAME * 1000)] * (len(images) - 1) + [int(SECONDS_PER_FRAME * 1000 * HOLD_LAST)]
    buffer = io.BytesIO()
    images[0].save(buffer, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0)
    return buffer.getvalue()


def to_mp4(frames: list[np.ndarray]) -> bytes:
    """An H.264 MP4 (yuv420p, which every player and slide program plays) through imageio's ffmpeg plugin."""
    import imageio.v2 as imageio

    fps = 1 / SECONDS_PER_FRAME
    height, width = frames[0].shape[:2]
    even = [frame[: height - height % 2, : width - width % 2] for frame in frames]  # H.264 needs even sides
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sweep.mp4"
        with imageio.get_writer(
            path, fps=fps, codec="libx264", pixelformat="yuv420p", macro_block_size=1, ffmpeg_log_level="error"
        ) as writer:
            for frame in even + [even[-1]] * (HOLD_LAST - 1):
                writer.append_data(frame)
        return path.read_bytes()


def _fit(image: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``image`` padded with white or cropped to ``shape`` (a frame whose text wrapped differently)."""
    out = np.full(shape, 255, dtype=np.uint8)
    h, w = min(shape[0], image.shape[0]), min(shape[1], image.shape[1])
    out[:h, :w] = image[:h, :w]
    return out
