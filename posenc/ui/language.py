"""The reader's language: from the sidebar, else the link (``?lang=ko``), else the browser's language on a first
visit. The choice is written back into the link, so a shared link opens in the language it was shared in."""

from __future__ import annotations

import streamlit as st

from posenc import i18n
from posenc.drawing.plain_text import shorten
from posenc.i18n import _
from posenc.ui import echo, link, state

KEY = "lang"


def choose() -> str:
    """Settle this run's language and set it for everything the run builds. Call before any text is made."""
    if KEY not in st.session_state:
        raw = st.query_params.get(KEY)
        if raw is None:
            st.session_state[KEY] = i18n.from_locale(st.context.locale)
        elif raw in i18n.LANGUAGES:
            st.session_state[KEY] = raw
        else:
            st.session_state[KEY] = i18n.DEFAULT
            state.add_notice(KEY, raw)
    i18n.set_language(st.session_state[KEY])
    link.put(KEY, st.session_state[KEY])
    return st.session_state[KEY]


def picker() -> None:
    """The sidebar's language selector (its label in all three languages, so anyone can find it)."""
    st.selectbox("🌐 Language · 언어 · 语言", list(i18n.LANGUAGES), key=KEY, format_func=i18n.LANGUAGES.get)
    notice = state.pop_notice(KEY)
    if notice is not None:  # an empty lang= too
        message = _("From the link: lang={value!r} is not one of {choices}; using {default!r}.")
        echo.warning(message.format(value=shorten(notice), choices=", ".join(i18n.LANGUAGES), default=i18n.DEFAULT))


# Korean is written with spaces between words, and a line breaks at a space, never inside a word (the browser's
# default breaks between any two Hangul syllables); Chinese breaks between characters, as it should.
KOREAN_LINES = "<style>.stApp, .stApp * { word-break: keep-all !important; overflow-wrap: anywhere; }</style>"


def typeset() -> None:
    """The reader's language's line breaking (call once per run, after the page config)."""
    if st.session_state.get(KEY) == "ko":
        st.html(KOREAN_LINES)
