"""The *Sweep* box under a figure: one of its numeric parameters, from, to and the number of frames, Play and Back to
the still figure; while the sweep plays, its files (GIF and MP4 for slides, the animated HTML, the frames in a grid),
each rendered when its button is clicked, by the same export as ``posenc export --sweep``. The sweep's state and its
animation are :mod:`ui.sweep_view`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import streamlit as st

from posenc.drawing import registry
from posenc.drawing.animate import SweepResult
from posenc.drawing.export_sweep import export_sweep
from posenc.drawing.params import PARAMS
from posenc.drawing.sweep import DEFAULT_FRAMES, MAX_FRAMES, MIN_FRAMES, NUMERIC_KINDS, Sweep, check_sweep
from posenc.i18n import N_, _
from posenc.ui import echo
from posenc.ui.sweep_view import ERROR, for_figure, start, stop


def numeric_params(spec: registry.FigureSpec) -> list[str]:
    return [name for name in spec.params if PARAMS[name].kind in NUMERIC_KINDS]


def sweep_box(spec: registry.FigureSpec, params: Mapping[str, Any], swept: SweepResult | None = None) -> None:
    """A closed *Sweep* box under figure ``spec``: a numeric parameter, from, to, frames, Play and Stop, and, while
    ``swept`` plays, its downloads (GIF and MP4 for slides, the animated HTML, the frames in a grid). Its controls
    are drawn only while it is open."""
    names = numeric_params(spec)
    if not names:
        return
    playing = for_figure(spec)
    box = st.expander(
        _("Sweep: animate a parameter"),
        expanded=False,
        key=f"sweep-box-{spec.id}",
        on_change="rerun",
    )
    if not box.open:
        return
    with box:
        _sweep_form(spec, params, names, playing)
        if swept is not None:
            _downloads(spec, swept)


def _sweep_form(spec: registry.FigureSpec, params: Mapping[str, Any], names: list[str], playing: Sweep | None) -> None:
    columns = st.columns([3, 2, 2, 2])
    start_name = playing.param if playing else ("base" if "base" in names else names[0])
    name = columns[0].selectbox(
        _("Parameter"),
        names,
        index=names.index(start_name),
        format_func=lambda n: _(PARAMS[n].label) if n in _(PARAMS[n].label) else f"{_(PARAMS[n].label)} ({n})",
        key=f"sweep-param-{spec.id}",
    )
    param = PARAMS[name]
    first, last = _range_for(name, params.get(name, param.default))
    if playing and playing.param == name:
        first, last = playing.start, playing.stop
    step = None if param.kind == "float" else 1
    kind = float if param.kind == "float" else int
    low = columns[1].number_input(_("From"), value=kind(first), step=step, key=f"sweep-from-{spec.id}-{name}")
    high = columns[2].number_input(_("To"), value=kind(last), step=step, key=f"sweep-to-{spec.id}-{name}")
    frames = columns[3].number_input(
        _("Frames"),
        min_value=MIN_FRAMES,
        max_value=MAX_FRAMES,
        value=playing.frames if playing else DEFAULT_FRAMES,
        step=1,
        key=f"sweep-frames-{spec.id}",
    )
    st.caption(
        _("The frames are spaced geometrically: this parameter spans decades.")
        if param.log
        else _("The frames are spaced evenly.")
    )
    play, halt = st.columns(2)
    if play.button(_("▶ Play the sweep"), key=f"sweep-play-{spec.id}", type="primary"):
        sweep = Sweep(name, float(low), float(high), int(frames))
        try:
            check_sweep(sweep, spec.id)
        except ValueError as error:
            st.session_state[ERROR] = str(error)
        else:
            start(sweep.to_url(), spec.id)
            st.rerun()
    if halt.button(_("■ Back to the still figure"), key=f"sweep-stop-{spec.id}", disabled=playing is None):
        stop()
        st.rerun()
    if st.session_state.get(ERROR):
        st.error(echo.plain(st.session_state[ERROR], most=None), icon="🚫")


def _range_for(name: str, value: Any) -> tuple[float, float]:
    """A first range for ``name``: from its value to 100 times it (a decades parameter), else its whole range."""
    param = PARAMS[name]
    low, high = param.minimum, param.maximum
    if param.log and value and value > 0:
        return float(value), float(min(high, value * 100))
    return float(low), float(min(high, max(value * 4, low + 1)) if value else high)


DOWNLOADS = (  # (format, size, label): a movie for slides, the offline animation, the frames side by side
    ("gif", "slide", N_("GIF, slide 16:9")),
    ("mp4", "slide", N_("MP4, slide 16:9")),
    ("html", "screen", N_("Animated HTML (works offline)")),
    ("png", "screen", N_("Frames in a grid (PNG)")),
)
MIME = {"gif": "image/gif", "mp4": "video/mp4", "html": "text/html", "png": "image/png"}


def _downloads(spec: registry.FigureSpec, swept: SweepResult) -> None:
    """The sweep's files, each rendered when its button is clicked (the same export as ``posenc export --sweep``)."""
    style = st.session_state.get("theme", "screen")
    stem = f"{spec.id}_sweep-{swept.sweep.param}-{len(swept.values)}"
    columns = st.columns(len(DOWNLOADS))
    for column, (fmt, size, label) in zip(columns, DOWNLOADS, strict=True):
        column.download_button(
            _(label),
            data=partial(_file, swept, fmt, style, size),
            file_name=f"{stem}_{style}_{size}.{fmt}",
            mime=MIME[fmt],
            key=f"sweep-download-{spec.id}-{fmt}",
            width="stretch",
        )


def _file(swept: SweepResult, fmt: str, style: str, size: str) -> bytes:
    try:
        return export_sweep(swept, fmt, style=style, size=size).content
    except ValueError as error:  # no browser for the images, or frames that do not fit a grid: said in the file
        return str(error).encode()
