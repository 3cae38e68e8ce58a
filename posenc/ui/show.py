"""Show a registered figure: built once per parameter set (cached), drawn, with its notes and exports.

Figures are drawn in the sidebar's style, except that the default screen style becomes its dark variant when the
reader's Streamlit theme is dark (:func:`screen_style`); exports keep the chosen style.

A figure not built before first takes its frame (``drawing.common.placeholder``: title and "Computing…"), sent
before the computation starts. The browser sees a chart at once, so it loads and starts plotly.js (about a second
on a slow machine) while the server computes, instead of afterwards.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from posenc import i18n
from posenc.drawing import code, registry
from posenc.drawing.animate import SLIDER_ROOM
from posenc.drawing.cache import BoundedCache
from posenc.drawing.common import placeholder
from posenc.drawing.export_grid import respace
from posenc.drawing.export_layout import fit_to_width
from posenc.drawing.phone_fit import PLOTLY_HEIGHT, SCREENS
from posenc.drawing.text_wrap import unwrapped_title, wrap
from posenc.drawing.theme import BASE_FONT_SIZE, DARK_SCREEN_STYLE, SIZES, TEMPLATE_MARGIN, apply_style, screen_size
from posenc.i18n import _
from posenc.ui import echo, presenter, run_marker, state, sweep_box, sweep_view
from posenc.ui.export_menu import export_menu
from posenc.ui.figure_cache import FIGURES

MODEBAR = {"displaylogo": False, "modeBarButtonsToRemove": ["lasso2d", "select2d"]}
PLACEHOLDER_CONFIG = {"staticPlot": True, "displayModeBar": False}
BOX_WIDTH = 650
"""px: the width a figure is laid out for when a caller gives it a box in presenter mode (a lesson's figure beside
its words on a 1280 px wide screen; a wider screen only leaves its title more room than it needs)."""
PLOT_SHARE = 0.42  # the least share of a boxed figure's height left to its plots: its text shrinks for it...
SMALLEST_TEXT = 0.7  # ... down to this share of its style's size (14 px in the slide styles)
SNIPPETS = BoundedCache(8 * 2**20)
"""The code snippets under the figures (a few hundred bytes each; some compute a value to show)."""


def build_uncached(
    figure_id: str, params_json: str, style: str, lang: str, screen: str = "desktop"
) -> tuple[registry.FigureResult, go.Figure]:
    """Build one (figure, parameters, style, language): the result (what exports lay out for their own page) and
    the figure as the app draws it on ``screen`` ("phone" or "desktop": :data:`drawing.phone_fit.SCREENS`)."""
    with i18n.language(lang):
        result = registry.build(figure_id, json.loads(params_json), style=style)
        return result, SCREENS[screen](go.Figure(result.figure))


def build_cached(
    figure_id: str, params_json: str, style: str, lang: str, screen: str = "desktop"
) -> tuple[registry.FigureResult, go.Figure]:
    """:func:`build_uncached` once per key in this process (:data:`FIGURES`)."""
    key = (figure_id, params_json, style, lang, screen)
    return FIGURES.get_or_build(key, lambda: build_uncached(*key))


def screen_kind() -> str:
    """The reader's screen, "phone" or "desktop" (:func:`screen_kind_of` its browser's User-Agent): the width a
    figure's titles are wrapped for."""
    return screen_kind_of(st.context.headers.get("User-Agent") or "")


def screen_kind_of(user_agent: str) -> str:
    """ "phone" for a browser that says it is one (phones' browsers put "Mobi" in their User-Agent, as Mozilla
    advises sites to look for), else "desktop"."""
    return "phone" if "Mobi" in user_agent else "desktop"


def screen_style(chosen: str, theme_type: str | None) -> str:
    """The style a figure is drawn in on the screen: the dark screen style where the sidebar's style is the default
    screen one and the reader's Streamlit theme (``st.context.theme.type``) is "dark"; else the chosen style (the
    slide styles are chosen for their own background)."""
    return DARK_SCREEN_STYLE if chosen == "screen" and theme_type == "dark" else chosen


def style_on_screen() -> str:
    """:func:`screen_style` of this session's chosen style and theme."""
    return screen_style(st.session_state.get("theme", "screen"), theme_type())


def theme_type() -> str | None:
    """The reader's Streamlit theme, "light" or "dark" (None before the browser has told it)."""
    return st.context.theme.type


def _cache_key(figure_id: str, params: Mapping[str, Any]) -> tuple[str, str, str, str, str]:
    """The figure cache's key: (figure, its parameters with the sidebar's device as JSON, style, language,
    screen)."""
    full = {**params, "device": st.session_state.get("device_in_use", "auto")}
    params_json = json.dumps(full, sort_keys=True, default=_jsonable)
    return figure_id, params_json, style_on_screen(), i18n.current(), screen_kind()


def build(spec: registry.FigureSpec, params: Mapping[str, Any]) -> tuple[registry.FigureResult, go.Figure]:
    """The figure for ``params`` (plus the sidebar's device) and its on-screen layout, from the cache when it was
    built before."""
    key = _cache_key(spec.id, params)
    if key in FIGURES:
        return build_cached(*key)
    with st.spinner(_("Computing {title}…").format(title=_(spec.title))):
        return build_cached(*key)


def figure(
    figure_id: str,
    values: Mapping[str, Any],
    *,
    height: int | None = None,
    with_notes: bool = True,
    sweep: str | None = None,
) -> registry.FigureResult | None:
    """Draw figure ``figure_id`` with the parameters it declares, taken from ``values`` (a page passes all its
    control values). A core ``ValueError``, or a parameter missing from ``values``, becomes a message in the
    figure's place, never a traceback.

    In presenter mode, with a ``height``, the figure is laid out for a box :data:`BOX_WIDTH` wide and at most
    ``height`` px tall (:func:`fit_to_box`), so that it fits the projected screen beside other things.
    ``with_notes=False`` leaves its notes to the caller (:func:`notes`). ``sweep`` (a lesson step's, "base:1e4..1e6:12")
    plays the figure through it, in place of the page's sweep (``ui.sweep_view``)."""
    spec = registry.get_spec(figure_id)
    slot = st.empty()
    try:
        params = registry.params_for(spec, values)
    except ValueError as error:
        slot.error(echo.plain(f"{_(spec.title)}: {error}", most=None), icon="🚫")
        return None
    if _cache_key(figure_id, params) not in FIGURES:
        frame = apply_style(placeholder(_(spec.title)), style_on_screen())
        slot.plotly_chart(frame, theme=None, width="stretch", config=PLACEHOLDER_CONFIG)
    try:
        result, shown = build(spec, params)
    except ValueError as error:
        slot.error(echo.plain(f"{_(spec.title)}: {error}", most=None), icon="🚫")
        return None
    stem = registry.file_stem(figure_id, params, state.preset_slug())
    config = {**MODEBAR, "toImageButtonOptions": camera_options(result, stem)}
    projected = presenter.active()  # a projector is no phone; its screen holds the figure, not the menus under it
    drawn = result.figure if projected else shown
    swept = sweep_view.swept_figure(spec, params, style_on_screen(), FIGURES.get_or_build, given=sweep)
    if swept is not None:  # the sweep's animation in the still figure's place, laid out for the same screen
        drawn = FIGURES.get_or_build(
            (*_cache_key(figure_id, params), "sweep", swept.sweep.to_url(), projected, height),
            lambda: sweep_view.on_screen(swept, _sweep_fit(projected, height)),
        )
    elif projected and height is not None:
        key = (*_cache_key(figure_id, params), "box", BOX_WIDTH, height)
        drawn = FIGURES.get_or_build(key, lambda: fit_to_box(result.figure, style_on_screen(), BOX_WIDTH, height))
    slot.plotly_chart(drawn, theme=None, width="stretch", config=config, key=f"chart-{figure_id}")
    run_marker.chart_drawn()
    if with_notes:
        notes(result)
    if not projected:
        export_menu(figure_id, result, stem)
        sweep_box.sweep_box(spec, params, swept)
        code_expander(figure_id, params)
    return result


def _sweep_fit(projected: bool, height: int | None):
    """How each frame of a sweep is laid out: as the still figure is on this screen; in a lesson's box, less the
    slider's room."""
    if projected and height is not None:
        return lambda fig: fit_to_box(fig, style_on_screen(), BOX_WIDTH, height - SLIDER_ROOM)
    return (lambda fig: fig) if projected else SCREENS[screen_kind()]


def notes(result: registry.FigureResult) -> None:
    """A figure's notes, one caption each (a note may quote the reader's words: plain text)."""
    for note in result.notes:
        st.caption(echo.plain(note, most=None))


def fit_to_box(fig: go.Figure, style: str, width: int, height: int) -> go.Figure:
    """A copy of ``fig`` (drawn in ``style``) laid out for a box ``width`` px wide and at most ``height`` px tall:
    the legend under the plot, the subplot and axis titles wrapped to their columns
    (:func:`drawing.export_layout.fit_to_width`), the title wrapped to the width with a top margin that holds it.
    Where the text would leave the plots less than :data:`PLOT_SHARE` of the height, it is made smaller (down to
    :data:`SMALLEST_TEXT` of the style's size), so that a tall figure of several rows still reads in the box."""
    scale = 1.0
    while True:
        boxed = apply_style(go.Figure(fig), style, text_scale=scale)
        fit_to_width(boxed, width)
        _wrap_title(boxed, width)
        text = boxed.layout.margin.t + boxed.layout.margin.b
        room = (1 - PLOT_SHARE) * height
        if text <= room or scale <= SMALLEST_TEXT:
            break
        scale = max(SMALLEST_TEXT, scale * room / text)
    grown = text - (fig.layout.margin.t or TEMPLATE_MARGIN["t"]) - (fig.layout.margin.b or TEMPLATE_MARGIN["b"])
    boxed.layout.height = round(min(height, (fig.layout.height or PLOTLY_HEIGHT) + max(grown, 0)))
    font = boxed.layout.font.size or BASE_FONT_SIZE
    respace(boxed, "y", boxed.layout.height - text, font)  # rows apart enough for the labels between them
    title = boxed.layout.title
    if title.text:  # the first line's baseline a gap and an ascent under the top, whatever the number of lines
        first_baseline = 0.6 * font + 0.8 * (title.font.size or font + 2)
        title.update(yref="container", y=1 - first_baseline / boxed.layout.height, yanchor="bottom")
    return boxed


def _wrap_title(fig: go.Figure, width: int) -> None:
    """Wrap ``fig``'s title to ``width`` (less the room Plotly leaves left of it); the top margin grows by the lines
    it gained."""
    title = fig.layout.title
    if not title.text:
        return
    font = fig.layout.font.size or BASE_FONT_SIZE
    title_font = title.font.size or font + 2
    before = 1 + title.text.count("<br>")
    title.text = wrap(unwrapped_title(fig) or title.text, 0.96 * width, title_font)
    gained = title.text.count("<br>") + 1 - before
    fig.layout.margin.t = (fig.layout.margin.t or TEMPLATE_MARGIN["t"]) + gained * 1.3 * title_font


def code_expander(figure_id: str, params: Mapping[str, Any]) -> None:
    """A closed expander with the few lines of NumPy/PyTorch that compute the figure's data for ``params``
    (``drawing.code``), when the figure has a snippet; its code is drawn only while the reader has it open."""
    key = (figure_id, json.dumps(params, sort_keys=True, default=_jsonable))
    try:
        snippet = SNIPPETS.get_or_build(key, lambda: code.snippet_for(figure_id, params))
    except ValueError:  # the figure drew, but its values have no snippet (the figure says what is wrong, if anything)
        return
    if snippet is None:
        return
    box = st.expander(
        _("Code: compute this figure's data in NumPy / PyTorch"),
        expanded=False,
        key=code_key(figure_id),
        on_change="rerun",  # the code is drawn only while open: a new session sends the closed box alone
    )
    if box.open:
        with box:
            st.code(snippet.source, language="python")


def code_key(figure_id: str) -> str:
    """The code expander's key: its state is True while the reader has it open."""
    return f"code-{figure_id}"


def camera_options(result: registry.FigureResult, stem: str) -> dict[str, Any]:
    """The modebar camera's PNG: the same page as the export menu's "Screen" PNG (1200 px by the figure's own
    height, at 2x), whatever the width of the chart in the browser, and named alike, by the style it is drawn in
    (the figure as shown: the dark screen style under a dark theme), ending with its language where it is not
    English, as the export menu's files do."""
    width, height = screen_size(result.figure)
    style = style_on_screen()
    language = i18n.current()
    filename = registry.with_look(stem, style, "screen") + ("" if language == i18n.DEFAULT else f"_{language}")
    return {"format": "png", "filename": filename, "width": width, "height": height, "scale": SIZES["screen"].png_scale}


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | set):
        return list(value)
    raise TypeError(f"cannot put {type(value).__name__} into figure parameters")
