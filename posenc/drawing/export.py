"""Export a built figure: PNG / SVG / PDF through Plotly's own export (kaleido driving a Chrome-family browser),
an interactive offline HTML file, and the data behind it as CSV or NumPy.

The browser is found as kaleido's driver (choreographer) finds one, with ``BROWSER_PATH`` first, and handed to
kaleido by path (:mod:`drawing.export_browser`). Without one, images are refused with a message saying how to get
one; HTML and the data files need no browser.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import math
import threading
import warnings
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from posenc import i18n
from posenc.drawing.export_browser import browser_starts, find_browser, no_browser_message
from posenc.drawing.export_layout import crowded, fit_to_page
from posenc.drawing.registry import FigureResult, with_look
from posenc.drawing.theme import SIZES, apply_style

FORMATS = ("png", "svg", "pdf", "html", "csv", "npy")
MIME_TYPES = {
    "png": "image/png",
    "svg": "image/svg+xml",
    "pdf": "application/pdf",
    "html": "text/html",
    "csv": "text/csv",
    "npy": "application/octet-stream",
    "npz": "application/octet-stream",
}
IMAGE_FORMATS = ("png", "svg", "pdf")  # drawn on a size preset's page
KALEIDO_NOTICE = "The kopts argument is ignored"


@dataclass(frozen=True)
class ExportedFile:
    """File contents, the extension to save them under, and what produced them (for the user)."""

    content: bytes
    extension: str
    renderer: str

    @property
    def mime(self) -> str:
        return MIME_TYPES[self.extension]


def image_browser() -> str:
    """The browser that draws images: :func:`find_browser`'s, where it starts. Raises ValueError saying why there is
    none and how to get one (:func:`no_browser_message`)."""
    browser = find_browser()
    if browser is None or not browser_starts(browser):
        raise ValueError(no_browser_message(browser))
    return browser


def export(
    result: FigureResult,
    fmt: str,
    *,
    style: str = "screen",
    size: str = "screen",
    scale: float | None = None,
    language: str | None = None,
) -> ExportedFile:
    """Render ``result`` as ``fmt`` (one of :data:`FORMATS`); an image in ``style`` on the page of the size preset
    ``size`` (:data:`drawing.theme.SIZES`): a PDF's page and an SVG's width and height are the preset's, a PNG has
    ``scale`` (default: the preset's) pixels per CSS pixel. HTML is drawn in ``style`` at the screen's type size.
    ``language``: the one the figure was built in (its fonts: :func:`drawing.theme.font_family`), by default the
    current one; the app passes it, as its downloads are drawn on another thread. Raises ValueError for an unknown
    format, style or size, or for an image when no browser is found."""
    with i18n.language(language or i18n.current()):
        return _export(result, fmt, style, size, scale)


def _export(result: FigureResult, fmt: str, style: str, size: str, scale: float | None) -> ExportedFile:
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(FORMATS)} (got {fmt!r})")
    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)} (got {size!r})")
    if fmt == "html":
        return ExportedFile(to_html(styled(result.figure, style)), "html", "plotly.js (inlined, works offline)")
    if fmt == "csv":
        return ExportedFile(data_to_csv(result.data), "csv", "numpy")
    if fmt == "npy":
        content, extension = data_to_numpy(result.data)
        return ExportedFile(content, extension, "numpy")
    browser = image_browser()
    figure, width, height = laid_out(result.figure, style, size)
    png_scale = SIZES[size].png_scale if scale is None else scale
    content = to_image(figure, fmt, width, height, png_scale if fmt == "png" else 1, browser)
    return ExportedFile(content, fmt, f"Plotly export (kaleido + {browser})")


def to_image(figure: go.Figure, fmt: str, width: int, height: int, scale: float, browser: str) -> bytes:
    """``figure`` as ``fmt`` bytes, as ``figure.to_image`` draws it, with kaleido given ``browser`` by path (a
    running :func:`start_browser_server` is used instead, with the browser it was started with)."""
    import kaleido

    quiet_kaleido()
    kopts = {name: value for name in ("plotlyjs", "mathjax", "headers") if (value := getattr(pio.defaults, name))}
    opts = {"format": fmt, "width": width, "height": height, "scale": scale}
    return kaleido.calc_fig_sync(
        figure.to_dict(), opts=opts, topojson=pio.defaults.topojson, kopts=kopts | {"path": browser}
    )


def file_stem(stem: str, fmt: str, style: str, size: str, language: str = i18n.DEFAULT) -> str:
    """The name (without extension) of ``stem``'s file in ``fmt``: an image's states its style and size, the
    interactive HTML's its style, a data file's neither (rope-angles_custom_hd128_slides-light_column); an image's
    and the HTML's end with the language of their text where it is not English (..._slides-light_column_ko)."""
    if fmt in IMAGE_FORMATS:
        named = with_look(stem, style, size)
    elif fmt == "html":
        named = with_look(stem, style)
    else:
        return stem
    return named if language == i18n.DEFAULT else f"{named}_{language}"


def quiet_kaleido() -> None:
    """Silence kaleido's notice "The kopts argument is ignored if using a server", which it gives on every image
    (Plotly always passes options that the running browser server has no use for).

    A process-wide filter on that one message, added again before each export, rather than a
    ``warnings.catch_warnings`` block: those save and restore the global filter list, which is not safe while
    the app exports from several threads at once."""
    warnings.filterwarnings("ignore", message=KALEIDO_NOTICE, category=UserWarning)


def styled(fig: go.Figure, style: str, size: str = "screen", text_scale: float = 1.0) -> go.Figure:
    """A copy of ``fig`` in ``style`` with text at the size preset's type size (the built figure is shared)."""
    return apply_style(go.Figure(fig), style, size, text_scale=text_scale)


def laid_out(fig: go.Figure, style: str, size: str) -> tuple[go.Figure, int, int]:
    """A copy of ``fig`` styled and laid out on the page of ``size``, and the page's (width, height) in CSS px.
    Where the page has a fixed height (screen, slide) and subplots would be too low for their labels, the text
    is set smaller, down to 70% of the preset's type size."""
    for text_scale in (1.0, 0.85, 0.7):
        figure = styled(fig, style, size, text_scale)
        width, height = fit_to_page(figure, size)
        if SIZES[size].aspect is not None or not crowded(figure, height):  # a paper page grows instead
            break
    return figure, width, height


_server_lock = threading.Lock()
_server_running = False


def start_browser_server() -> bool:
    """Keep one browser running for many exports (0.4 s per image instead of ~3 s); False if there is none that
    starts (:func:`image_browser`, given to kaleido by path).

    Idempotent and thread-safe: the app's download buttons call it from their own threads.
    """
    global _server_running
    try:
        browser = image_browser()
    except ValueError:
        return False
    import kaleido

    with _server_lock:
        if not _server_running:
            with contextlib.suppress(RuntimeError):  # already running
                kaleido.start_sync_server(path=browser, silence_warnings=True)
            _server_running = True
    return True


def stop_browser_server() -> None:
    global _server_running
    import kaleido

    with _server_lock:
        with contextlib.suppress(RuntimeError):  # not running
            kaleido.stop_sync_server(silence_warnings=True)
        _server_running = False


def to_html(fig: go.Figure) -> bytes:
    """A standalone HTML file with plotly.js inlined: interactive and offline."""
    return fig.to_html(include_plotlyjs=True, full_html=True, config={"displaylogo": False}).encode()


def data_to_csv(data: dict[str, np.ndarray]) -> bytes:
    """The arrays behind a figure as one tidy table: a header naming every column, one meaning per column.

    An array of two or more axes is written long, one row per value: first a column per axis holding the axis'
    coordinate (each 1-D array of the data as long as that axis, e.g. ``positions``; named ``_i``, ``_j`` where
    one serves several axes; the index, ``row`` / ``column``, where none does), then the value; arrays of one
    shape share those rows. The remaining 1-D arrays of equal length stand side by side. Tables of different
    lengths stand side by side too, the shorter padded with empty cells; NaN is an empty cell as well."""
    if not data:
        raise ValueError("this figure has no data to export")
    arrays = {name: np.atleast_1d(np.asarray(values)) for name, values in data.items()}
    vectors = {name: values for name, values in arrays.items() if values.ndim == 1}
    coordinates: set[str] = set()
    tables: list[dict[str, np.ndarray]] = []
    for shape in dict.fromkeys(values.shape for values in arrays.values() if values.ndim > 1):
        table = _axis_columns(shape, vectors)
        coordinates.update(name for name in vectors if len(vectors[name]) in shape)
        table.update({name: values.reshape(-1) for name, values in arrays.items() if values.shape == shape})
        tables.append(table)
    for length in dict.fromkeys(len(values) for name, values in vectors.items() if name not in coordinates):
        tables.append({name: v for name, v in vectors.items() if len(v) == length and name not in coordinates})
    columns: dict[str, list[str]] = {}
    for table in tables:
        for name, values in table.items():
            columns[_unique(name, columns)] = [_cell(value) for value in values.tolist()]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(itertools.zip_longest(*columns.values(), fillvalue=""))
    return buffer.getvalue().encode()


def _axis_columns(shape: tuple[int, ...], vectors: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The coordinate columns of the long form of an array of ``shape`` (see :func:`data_to_csv`)."""
    index = np.indices(shape).reshape(len(shape), -1)
    suffixes = "ijklmn"
    columns = {}
    for axis, length in enumerate(shape):
        named = [name for name, values in vectors.items() if len(values) == length]
        shared = shape.count(length) > 1
        suffix = f"_{suffixes[shape[:axis].count(length)]}" if shared else ""
        for name in named:
            columns[name + suffix] = vectors[name][index[axis]]
        if not named:
            columns[("row", "column")[axis] if len(shape) == 2 else f"axis_{axis}"] = index[axis]
    return columns


def _unique(name: str, taken: dict) -> str:
    count = 2
    unique = name
    while unique in taken:
        unique, count = f"{name}_{count}", count + 1
    return unique


def _cell(value) -> str:
    if isinstance(value, float):
        return "" if math.isnan(value) else format(value, ".9g")
    return str(value)


def data_to_numpy(data: dict[str, np.ndarray]) -> tuple[bytes, str]:
    """One array as .npy; several as .npz (named arrays)."""
    if not data:
        raise ValueError("this figure has no data to export")
    buffer = io.BytesIO()
    if len(data) == 1:
        np.save(buffer, np.asarray(next(iter(data.values()))), allow_pickle=False)
        return buffer.getvalue(), "npy"
    np.savez(buffer, **{name: np.asarray(values) for name, values in data.items()})
    return buffer.getvalue(), "npz"
