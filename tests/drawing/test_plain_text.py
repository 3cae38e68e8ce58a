"""drawing.plain_text: user text reaches a Plotly figure as text (no tags), and is echoed shortened."""

import plotly.graph_objects as go
import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.drawing.plain_text import ECHO_CHARS, for_plotly, quoted, shorten

LINK = '<a href="http://evil.example">x</a>'


def test_for_plotly_leaves_no_tag_and_no_entity_plotly_would_interpret():
    assert for_plotly(LINK) == '&lt;a href="http://evil.example"&gt;x&lt;/a&gt;'
    assert for_plotly("&lt;b&gt; & <br>") == "&amp;lt;b&amp;gt; &amp; &lt;br&gt;"
    assert for_plotly("plain words, 狗咬人") == "plain words, 狗咬人"


def test_shorten_and_quoted_keep_the_start_and_say_the_length():
    assert shorten("short") == "short" and quoted("short") == "'short'"
    long = "x" * 100_000
    assert shorten(long).startswith("x" * ECHO_CHARS + "…") and "x" * (ECHO_CHARS + 1) not in shorten(long)
    assert "100,000 characters" in shorten(long) and len(quoted(long)) < 80
    assert quoted(4096) == "4096" and quoted(0.5) == "0.5"


@pytest.mark.parametrize("figure_id", ["why-attention", "why-rnn-states", "why-rnn-vs-attention"])
def test_a_sentence_with_tags_reaches_the_figure_as_text(figure_id):
    sentence = f"the {LINK} <b>sat</b> <span style='font-size:99px'>on</span>"
    params, messages = registry.resolve_params(figure_id, {"sentence_a": sentence, "sentence_b": sentence})
    assert not messages
    figure = registry.build(figure_id, params).figure
    texts = _texts(figure)
    assert any("evil.example" in text for text in texts) or figure_id == "why-rnn-vs-attention"
    for text in texts:
        assert "<a" not in text and "<b>" not in text and "<span" not in text, text


def _texts(figure: go.Figure) -> list[str]:
    """Every string of the figure's JSON (titles, tick labels, hover texts, annotations)."""
    found: list[str] = []

    def visit(node) -> None:
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                visit(value)
        elif isinstance(node, list | tuple):
            for value in node:
                visit(value)

    visit(figure.to_plotly_json())
    return found
