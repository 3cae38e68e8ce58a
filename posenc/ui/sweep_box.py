"""The *Sweep* box under a figure: one of its numeric parameters, from, to and the number of frames, Play and Back to
the still figure; while the sweep plays, its files (GIF and MP4 for slides, the animated HTML, the frames in a grid),
each rendered when its button is clicked, by the same export as ``posenc export --sweep``, and kept in the figure
cache (``ui.figure_cache.FIGURES``, the one ``ui.show`` draws from), whose budget counts their bytes. The sweep's
state and its animation are :mod:`ui.sweep_view`'s.

The box first offers, for each parameter, the range :func:`box_defaults` gives: within what the figure's other
parameters allow (a start below the sequence length), so that Play with the box's own From, To and Frames plays
on every figure (tests/ui/test_sweep_box_defaults.py walks them all).
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from functools import partial
from typing import Any

import streamlit as st

from posenc import i18n
from posenc.drawing import registry
from posenc.drawing.animate import SweepResult
from posenc.drawing.export_sweep import export_sweep
from posenc.drawing.params import PARAMS
from posenc.drawing.sweep import DEFAULT_FRAMES, MAX_FRAMES, MIN_FRAMES, Sweep, check_sweep, sweepable_params
from posenc.i18n import N_, _
from posenc.ui import echo
from posenc.ui.export_menu import DOWNLOAD_CLICK
from posenc.ui.figure_cache import FIGURES
from posenc.ui.sweep_view import ERROR, for_figure, start, stop


def numeric_params(spec: registry.FigureSpec) -> list[str]:
    """The parameters the box offers: the figure's numeric ones a sweep may move (``sweep.sweepable_params``)."""
    return sweepable_params(spec.id)


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
            _downloads(spec, params, swept)


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
    first, last, count = box_defaults(name, params)
    if playing and playing.param == name:
        first, last = _kind(name)(playing.start), _kind(name)(playing.stop)
    step = None if param.kind == "float" else 1
    low = columns[1].number_input(_("From"), value=first, step=step, key=f"sweep-from-{spec.id}-{name}")
    high = columns[2].number_input(_("To"), value=last, step=step, key=f"sweep-to-{spec.id}-{name}")
    frames = columns[3].number_input(
        _("Frames"),
        min_value=MIN_FRAMES,
        max_value=MAX_FRAMES,
        value=playing.frames if playing else count,
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
        sweep = as_sweep(name, low, high, frames)
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


ZERO_SPAN = 4096
"""How far the box's first range reaches from a parameter whose value is 0 (plan's ``original``, 0: the model's own
context; a range up to 16M would put every frame past the target)."""


def box_defaults(name: str, params: Mapping[str, Any]) -> tuple[float | int, float | int, int]:
    """The From, To and Frames the box first offers for parameter ``name`` of a figure drawn at ``params`` (the
    From and To as the box's number inputs hold them: whole numbers for an int parameter)."""
    first, last = _range_for(name, params)
    kind = _kind(name)
    return kind(first), kind(last), DEFAULT_FRAMES


def as_sweep(name: str, low: float, high: float, frames: int) -> Sweep:
    """The sweep Play starts from the box's From, To and Frames."""
    return Sweep(name, float(low), float(high), int(frames))


def _kind(name: str) -> type:
    return float if PARAMS[name].kind == "float" else int


def _range_for(name: str, params: Mapping[str, Any]) -> tuple[float, float]:
    """A first range for ``name``: from its value to 100 times it (a decades parameter), else from the least value
    to 4 times its value; within the range the other parameters leave it (``ParamSpec.within``: a start below the
    sequence length)."""
    param = PARAMS[name].within(params)
    value = params.get(name, param.default)
    low, high = param.minimum, param.maximum
    if param.log and value and value > 0:
        return float(value), float(min(high, value * 100))
    if not value:  # a zero (a start, a seed, "the model's own"): its first values, not a range up to millions
        return float(low), float(min(high, low + ZERO_SPAN))
    return float(low), float(min(high, max(value * 4, low + 1)))


DOWNLOADS = (  # (format, size, label): a movie for slides, the offline animation, the frames side by side
    ("gif", "slide", N_("GIF, slide 16:9")),
    ("mp4", "slide", N_("MP4, slide 16:9")),
    ("html", "screen", N_("Animated HTML (works offline)")),
    ("png", "screen", N_("Frames in a grid (PNG)")),
)
MIME = {"gif": "image/gif", "mp4": "video/mp4", "html": "text/html", "png": "image/png"}


def _downloads(spec: registry.FigureSpec, params: Mapping[str, Any], swept: SweepResult) -> None:
    """The sweep's files, each rendered when its button is clicked (the same export as ``posenc export --sweep``)
    and kept in the figure cache, counted in its budget."""
    style = st.session_state.get("theme", "screen")
    key = ("sweep-file", spec.id, json.dumps(dict(params), sort_keys=True, default=list), swept.sweep.to_url())
    key += (tuple(swept.values), i18n.current())
    stem = f"{spec.id}_sweep-{swept.sweep.param}-{len(swept.values)}"
    columns = st.columns(len(DOWNLOADS))
    for column, (fmt, size, label) in zip(columns, DOWNLOADS, strict=True):
        column.download_button(
            _(label),
            data=partial(_file, swept, fmt, style, size, key),
            file_name=f"{stem}_{style}_{size}.{fmt}",
            mime=MIME[fmt],
            key=f"sweep-download-{spec.id}-{fmt}",
            width="stretch",
            on_click=DOWNLOAD_CLICK,
        )


def _file(swept: SweepResult, fmt: str, style: str, size: str, key: tuple, cache=None) -> bytes:
    """The file's bytes, made now (a download button calls this when clicked), and kept, with a movie's drawn frames,
    in ``cache`` (default: the app's figure cache, ``ui.figure_cache.FIGURES``) under ``key``."""
    cache = FIGURES if cache is None else cache

    def keep(frames_key: Hashable, draw):
        return cache.get_or_build((*key, "frames", frames_key), draw)

    def make() -> bytes:
        try:
            return export_sweep(swept, fmt, style=style, size=size, keep=keep).content
        except ValueError as error:  # no browser for the images, or frames that do not fit a grid: said in the file
            return str(error).encode()

    return cache.get_or_build((*key, fmt, style, size), make)
