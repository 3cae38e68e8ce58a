"""ui.echo: a value from a link is shown as plain text in Streamlit's markdown (warnings, captions), shortened.

Rendering is checked with markdown-it-py (CommonMark, with raw HTML on, as a renderer that trusted it would): the
escaped text renders as one paragraph of text, with no link, image, emphasis, code or HTML. The GFM autolink
literals and Streamlit's own syntax (``$`` math) are checked on the text itself."""

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from posenc.ui.echo import MAX_ECHO, plain
from tests.pages.conftest import as_read

RENDER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
HOSTILE = [
    "[Session expired: log in](http://evil.example/login)",
    "![x](http://evil.example/pixel.png)",
    "**bold** __bold__ *em* _em_ ~~gone~~ `code`",
    "<script>alert(1)</script><img src=x onerror=alert(1)>",
    "<http://evil.example> http://evil.example www.evil.example mail@evil.example",
    "# heading\n- item\n1. item\n> quote\n---",
    "| a | b |\n|---|---|\n| c | d |",
    "&lt;b&gt; &amp; $x^2$ :red[red] \\*",
    "    indented code",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_markdown_renders_as_its_own_text(text):
    escaped = plain(text)
    rendered = RENDER.render(escaped)
    assert re.fullmatch(r"<p>[^<>]*</p>\n", rendered), rendered
    assert html.unescape(rendered[3:-5]).replace("\u200b", "") == " ".join(text.split())
    assert as_read(escaped) == " ".join(text.split())
    for autolink in ("http://", "https://", "www.", "@evil"):
        assert autolink not in escaped
    assert "$" not in escaped.replace("\\$", "")


@given(st.text(st.characters(blacklist_characters="\u200b"), max_size=150))  # shorter than shortening
def test_any_text_comes_back_as_written_apart_from_its_spacing(text):
    assert as_read(plain(text)) == " ".join(text.split())


def test_an_echo_is_bounded():
    echoed = plain("From the link: " + "x" * 100_000)
    assert len(echoed) <= MAX_ECHO and "100,015 characters" in echoed
    assert len(plain("<" * 100_000)) <= MAX_ECHO and len(plain("http://a.b " * 10_000)) <= MAX_ECHO
    assert as_read(plain("a_note " * 100, most=None)) == " ".join(["a_note"] * 100)  # a figure's note: all of it
