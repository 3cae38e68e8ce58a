"""Every page in Korean and in Chinese: it runs, every message it looks up has a translation, and what a reader
sees (text, labels, help, figure titles, axes, legends, hover text) is not English prose."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from posenc import i18n
from posenc.ui.navigation import PAGE_NAMES
from tests.pages.conftest import assert_healthy, open_page
from tests.prose import cjk_share, english_runs

LANGUAGES = ["ko", "zh-CN"]
TEXT_ELEMENTS = ("title", "header", "subheader", "markdown", "caption", "info", "warning", "success", "expandable")
WIDGETS = ("selectbox", "slider", "number_input", "toggle", "text_input", "text_area", "radio", "button", "tabs")
FIGURE_TEXT_KEYS = {"text", "name", "hovertemplate", "title"}


def _figure_texts(node) -> Iterator[str]:
    """Every string a reader can see in a Plotly spec: titles, axis titles, trace names, annotations, hover."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in FIGURE_TEXT_KEYS and isinstance(value, str):
                yield value
            elif key in FIGURE_TEXT_KEYS and isinstance(value, list) and all(isinstance(v, str) for v in value):
                yield from value
            elif key not in ("meta", "customdata", "template"):
                yield from _figure_texts(value)
    elif isinstance(node, list):
        for item in node:
            yield from _figure_texts(item)


def visible_texts(at) -> list[str]:
    """The page's visible text: body and sidebar elements, widget labels, help and options, and figure text."""
    texts: list[str] = []
    for kind in TEXT_ELEMENTS:
        for element in at.get(kind):
            texts.append(str(getattr(element, "label", None) or getattr(element, "value", "")))
    for kind in WIDGETS:
        for widget in at.get(kind):
            texts += [str(widget.label or ""), str(getattr(widget, "help", "") or "")]
            texts += [str(option) for option in getattr(widget, "options", []) or []]
    for chart in at.get("plotly_chart"):
        texts += list(_figure_texts(json.loads(chart.proto.spec)))
    return [text for text in texts if text]


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("page", PAGE_NAMES)
def test_the_page_reads_in_the_language_of_the_link(page, code):
    with i18n.recording_missing() as missing:
        at = open_page(page, {"lang": code})
    assert_healthy(at)
    assert not missing, f"{len(missing)} messages shown without a {code} translation: {sorted(missing)[:15]}"
    texts = visible_texts(at)
    english = [run for text in texts for run in english_runs(text)]
    assert not english, f"English prose left on the {code} page: {english[:15]}"
    assert cjk_share(texts) > 0.5, f"the {code} page is mostly Latin letters"
