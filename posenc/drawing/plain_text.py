"""User text as plain text: shortened for an echo, and escaped before it reaches a Plotly figure.

A value from a link or a text box can be anything, up to its parameter's ``max_chars``: a message repeats only its
first :data:`ECHO_CHARS` characters and says how long it was (a 100 KB value once froze a page for 43 s, the warning
repeating it whole). Plotly reads a subset of HTML in every text it draws (titles, tick labels, hover texts:
``<a href>``, ``<b>``, ``<br>``, ``<span style>`` and entities such as ``&lt;``), so text a reader typed goes
through :func:`for_plotly` first, which makes it show as typed. Ref: plotly.js ``src/lib/svg_text_utils.js``
(the tags and entities it converts). The markdown side (Streamlit's warnings, captions) is ``posenc.ui.echo``.
"""

from __future__ import annotations

from typing import Any

from posenc.i18n import _

ECHO_CHARS = 40  # the characters of a value a message repeats
_PLOTLY_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}  # & first: an entity the text holds shows as written


def shorten(text: str, most: int = ECHO_CHARS) -> str:
    """``text``, or its first ``most`` characters, "…" and its length: ``xxxx… (100,000 characters)``."""
    if len(text) <= most:
        return text
    return text[:most] + "… " + _("({count:,} characters)").format(count=len(text))


def quoted(value: Any) -> str:
    """A value for a message: a text quoted as Python writes it (``'abc'``), shortened; a number as it is."""
    if not isinstance(value, str):
        return shorten(str(value))
    if len(value) <= ECHO_CHARS:
        return repr(value)
    return repr(value[:ECHO_CHARS] + "…") + " " + _("({count:,} characters)").format(count=len(value))


def for_plotly(text: str) -> str:
    """``text`` as Plotly should draw it: ``&``, ``<`` and ``>`` written as entities, so no tag or entity of the
    text is interpreted (``<a href="...">x</a>`` is drawn as those characters, not as a link)."""
    return "".join(_PLOTLY_ESCAPES.get(char, char) for char in text)
