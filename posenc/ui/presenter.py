"""Presenter mode (``?present=1``, or the toggle on the Lessons page): for teaching from a projector. The sidebar is
hidden, text and headings are larger, the content takes the whole width, and figures are drawn in the slide
style ("slides-light", or "slides-dark" when the link asks for it). Only CSS of our own and system fonts: no web
fonts, no CDN, no icon font."""

from __future__ import annotations

import streamlit as st

from posenc.i18n import _

KEY = "present"  # the link's parameter
STATE = "presenting"  # session state: True while presenter mode is on
THEME_BEFORE = "_theme_before_presenting"
SLIDE_THEMES = ("slides-light", "slides-dark")
CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"],
[data-testid="stSidebarCollapseButton"], [data-testid="stToolbar"] { display: none !important; }
html { font-size: 135%; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 1rem 3rem 1rem 3rem; }
h1 { font-size: 2.6rem !important; }
h2 { font-size: 2.1rem !important; padding: 0.25rem 0 !important; }
h3 { font-size: 1.7rem !important; }
[data-testid="stMarkdownContainer"] :is(p, li) { line-height: 1.4; }
[data-testid="stHeader"] { background: transparent; pointer-events: none; }
[data-testid="stHeader"] * { pointer-events: auto; }
.st-key-presenter-leave { position: fixed; top: 0.4rem; right: 1rem; width: auto !important; z-index: 999991; }
</style>"""


def _from_link() -> bool:
    return str(st.query_params.get(KEY, "")).strip().lower() in ("1", "true", "yes", "on")


def active() -> bool:
    """Is presenter mode on in this session (from the link on the first run, then from the toggle)?"""
    if STATE not in st.session_state:
        st.session_state[STATE] = _from_link()
    return bool(st.session_state[STATE])


def sidebar_state() -> str:
    """``initial_sidebar_state`` for ``st.set_page_config``: collapsed when presenting."""
    return "collapsed" if active() else "auto"


def apply() -> None:
    """Call in app.py after the language and before the sidebar: the link, the slide style and the CSS."""
    if active():
        if THEME_BEFORE not in st.session_state:
            st.session_state[THEME_BEFORE] = st.session_state.get("theme", st.query_params.get("theme", "screen"))
        asked = st.query_params.get("theme")
        st.session_state["theme"] = "slides-dark" if asked == "slides-dark" else "slides-light"
        st.query_params[KEY] = "1"
        st.html(CSS)
    else:
        if THEME_BEFORE in st.session_state:
            before = st.session_state.pop(THEME_BEFORE)
            st.session_state["theme"] = before if before not in SLIDE_THEMES else "screen"
        if KEY in st.query_params:
            del st.query_params[KEY]


def _set(on: bool) -> None:
    st.session_state[STATE] = on
    if not on and st.query_params.get("theme") in SLIDE_THEMES:
        del st.query_params["theme"]


def toggle() -> None:
    """The on/off switch (the Lessons page shows it; in presenter mode the sidebar, and its settings, are hidden)."""
    st.session_state["presenter-toggle"] = active()
    st.toggle(
        _("Presenter mode"),
        key="presenter-toggle",
        on_change=lambda: _set(bool(st.session_state["presenter-toggle"])),
        help=_("Large text, no sidebar, figures in the slide style; ← and → go to the previous and next step."),
    )


def leave_button() -> None:
    """On every page in presenter mode, a small button at the end to leave it (the sidebar is hidden)."""
    if active():
        st.button(_("Leave presenter mode"), key="presenter-leave", type="tertiary", on_click=_set, args=(False,))
