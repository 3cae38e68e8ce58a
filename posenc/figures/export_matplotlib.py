"""A browser-free PNG of a Plotly figure, drawn with matplotlib (Agg) from the same traces.

Used only when no Chrome/Chromium is available for Plotly's own export. It draws heatmaps (with colour bars),
lines, markers, filled bands and bars on the figure's subplot grid, with titles, axis titles and log axes.
"""

from __future__ import annotations

import io
from functools import cache

import matplotlib

matplotlib.use("Agg")

import matplotlib.font_manager as font_manager
import matplotlib.pyplot as plt
import numpy as np
import plotly.graph_objects as go

from posenc import i18n

COLORMAPS = {"viridis": "viridis", "rdbu_r": "RdBu_r", "rdbu": "RdBu", "twilight": "twilight", "plasma": "plasma"}
DPI = 100
CJK_FACES = {"ko": "Noto Sans CJK KR", "zh-CN": "Noto Sans CJK SC"}


@cache
def _known_fonts() -> frozenset[str]:
    """Font names matplotlib can use, with the system's Noto CJK faces added (matplotlib's font cache may predate
    their installation)."""
    for path in font_manager.findSystemFonts():
        if "NotoSansCJK" in path.replace(" ", ""):
            font_manager.fontManager.addfont(path)
    return frozenset(font.name for font in font_manager.fontManager.ttflist)


def font_families(language: str | None = None) -> list[str]:
    """DejaVu Sans, then the CJK face of ``language`` (the current one by default) when it is installed:
    matplotlib falls back glyph by glyph along the list."""
    face = CJK_FACES.get(language or i18n.current())
    return ["DejaVu Sans", *([face] if face and face in _known_fonts() else [])]


def render_png(fig: go.Figure, *, scale: float = 2.0, width: int = 1200, height: int | None = None) -> bytes:
    """PNG bytes of ``fig`` at ``scale`` x (width, height) CSS pixels (height: the figure's own, else 650), its
    text at the figure's font size."""
    height = int(height or fig.layout.height or 650)
    points = (fig.layout.font.size or 13) * 72 / DPI  # a CSS pixel is one matplotlib pixel at DPI
    with plt.rc_context({"font.size": points, "font.family": font_families()}):
        figure = plt.figure(figsize=(width / DPI, height / DPI), dpi=DPI * scale)
        axes = {}
        for trace in fig.data:
            key = (getattr(trace, "xaxis", None) or "x", getattr(trace, "yaxis", None) or "y")
            if key not in axes:
                axes[key] = _axes(figure, fig, *key)
            _draw(axes[key], trace, fig)
        title = fig.layout.title.text if fig.layout.title else None
        if title:
            figure.suptitle(title.replace("<br>", "\n"), fontsize=points * 1.1)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        plt.close(figure)
    return buffer.getvalue()


def _axes(figure, fig: go.Figure, xref: str, yref: str):
    xaxis = fig.layout[_layout_name(xref, "xaxis")]
    yaxis = fig.layout[_layout_name(yref, "yaxis")]
    x0, x1 = xaxis.domain or (0, 1)
    y0, y1 = yaxis.domain or (0, 1)
    left, bottom = 0.08 + 0.88 * x0, 0.1 + 0.78 * y0
    ax = figure.add_axes((left, bottom, 0.88 * (x1 - x0) - 0.06, 0.78 * (y1 - y0) - 0.08))
    ax.set_xlabel(xaxis.title.text or "")
    ax.set_ylabel(yaxis.title.text or "")
    if xaxis.type == "log":
        ax.set_xscale("log")
    if yaxis.type == "log":
        ax.set_yscale("log")
    if yaxis.autorange == "reversed":
        ax.invert_yaxis()
    return ax


def _layout_name(ref: str, prefix: str) -> str:
    return prefix + ref[1:]


def _draw(ax, trace, fig: go.Figure) -> None:
    if trace.type == "heatmap":
        z = np.asarray(trace.z, dtype=float)
        scale = trace.colorscale
        name = scale if isinstance(scale, str) else None
        if name is None and trace.coloraxis:
            name = "viridis"
        cmap = COLORMAPS.get(str(name).lower(), "viridis")
        mesh = ax.pcolormesh(_edges(trace.x, z.shape[1]), _edges(trace.y, z.shape[0]), z, cmap=cmap, shading="flat")
        plt.colorbar(mesh, ax=ax)
    elif trace.type == "bar":
        ax.bar(np.arange(len(trace.y)) if trace.x is None else _numeric(trace.x), np.asarray(trace.y, dtype=float))
    elif trace.type == "scatter":
        x, y = np.asarray(trace.x), np.asarray(trace.y, dtype=float)
        if trace.fill == "toself":
            ax.fill(x, y, alpha=0.25, linewidth=0)
        elif trace.mode and "lines" not in trace.mode:
            ax.scatter(x, y, s=6, label=trace.name)
        else:
            ax.plot(x, y, label=trace.name, linewidth=1.5)
        if trace.name and fig.layout.showlegend is not False and trace.fill != "toself":
            ax.legend(fontsize="small")


def _numeric(values) -> np.ndarray:
    array = np.asarray(values)
    return array if array.dtype.kind in "iuf" else np.arange(len(array))


def _edges(coordinates, count: int) -> np.ndarray:
    """Cell edges for pcolormesh from cell-centre coordinates (or indices when categorical)."""
    centres = np.arange(count, dtype=float) if coordinates is None else _numeric(coordinates).astype(float)
    if centres.size != count:
        centres = np.arange(count, dtype=float)
    if count == 1:
        return np.array([centres[0] - 0.5, centres[0] + 0.5])
    middle = (centres[1:] + centres[:-1]) / 2
    return np.concatenate([[centres[0] - (middle[0] - centres[0])], middle, [centres[-1] + (centres[-1] - middle[-1])]])
