"""Values from a link, shown as plain text in Streamlit's markdown.

Streamlit renders markdown in ``st.warning``, ``st.caption``, ``st.error`` and ``st.markdown`` (CommonMark with
GitHub's extensions, ``$`` math and its own ``:color[...]`` directives). A value echoed there unescaped could show
a remote image, a "Session expired: log in" link, bold text or HTML. :func:`plain` makes any text show as written:
markdown's active characters are escaped with a backslash (CommonMark escapes any ASCII punctuation; Ref: CommonMark
0.31, "Backslash escapes"), line breaks become spaces (no block: heading, list, table, code), and the autolink
literals GitHub's markdown finds in plain text (``http://``, ``www.``, ``name@host``; Ref: GFM spec, "Autolinks
(extension)", which remark-gfm applies after escapes are read) get an invisible zero-width space that breaks them.
An echo is at most :data:`MAX_ECHO` characters (the values in it are shortened first: ``drawing.plain_text``).
"""

from __future__ import annotations

import re

import streamlit as st

from posenc.drawing.plain_text import shorten

MAX_ECHO = 800  # characters of an echoed message, escapes included
_ACTIVE = re.compile(r"[\\`*\[\]<>|~$&#{}]")  # escaped wherever they stand (an image's "!" needs its "[")
_LONE_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")  # "_" not between two letters/digits can emphasise
_BLOCK_START = re.compile(r"^([-+=]|\d+[.)])")  # a list item or a setext underline, at the start of the text
_AUTOLINK = re.compile(r"(?i)(?<=[a-z])(?=://)|(?<=www)(?=\.)|(?<=@)(?=[-\w]+\.[-\w])")  # scheme, www., e-mail
_BREAK = "\u200b"  # zero-width space: invisible, and no autolink spans it


def plain(text: str, most: int | None = MAX_ECHO * 3 // 8) -> str:
    """``text`` as markdown that renders as the text itself, on one line; its first ``most`` characters (300:
    escaped, at most :data:`MAX_ECHO`) and its length, or all of it for ``most=None`` (a figure's own notes)."""
    text = " ".join(text.split())
    text = shorten(text, most) if most is not None else text
    text = _ACTIVE.sub(lambda match: "\\" + match.group(), text)
    text = _LONE_UNDERSCORE.sub(r"\\_", text)
    text = _BLOCK_START.sub(lambda match: match.group()[:-1] + "\\" + match.group()[-1], text)
    return _AUTOLINK.sub(_BREAK, text)


def warning(text: str, icon: str = "🔗") -> None:
    """A warning box holding ``text`` as plain text (a link's value that was refused or changed)."""
    st.warning(plain(text), icon=icon)
