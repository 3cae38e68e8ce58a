"""Hostile link values for every parameter: NaN and infinities, 10**40, empty values, 100 KB values, HTML, script and
markdown text. Each is clamped or refused and announced, the page raises nothing and draws its figures (or says in
place why one cannot be drawn), no element renders the value as markup (Streamlit's markdown or Plotly's HTML) and
no echo is longer than :data:`posenc.ui.echo.MAX_ECHO`.

Every registered parameter is attacked on a page whose figures use it (``drawing.registry``: a figure's page and
parameters), the sidebar's on every page. One link per page and kind of value holds the value in every parameter of
the page (NaN, inf and -inf in turn; 10**40 and -10**40 in turn), so a page is opened once per kind, not once per
parameter: each parameter still gets each kind, and ``tests/pages/test_links.py`` checks each control alone.
"""

from __future__ import annotations

import json
import re

import pytest
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from posenc import figures  # noqa: F401  (registers every parameter and figure)
from posenc.drawing.params import PARAMS
from posenc.drawing.plain_text import ECHO_CHARS
from posenc.drawing.registry import FIGURES
from posenc.ui.echo import MAX_ECHO
from tests.pages.conftest import ROOT, as_read, chart_specs, elements_by_key, open_page

MARKUP = (  # under 200 characters (a sentence's most); a comma: list parameters (schemes, segments) quote an item
    "![x](http://evil.example/x.png) [log](http://evil.example/in), <script>alert(1)</script><img src=x "
    "onerror=alert(1)> <a href='http://evil.example'>a</a> <b>PWNED</b> **PWNED** www.evil.example"
)
REORDERED = {"sentence_b": " ".join(reversed(MARKUP.split()))}  # A's words moved: the page quotes two of them
QUERY_LIMIT = 524_288  # Streamlit ignores a longer query string (the page opens with no parameters)
KINDS = {  # the value of the i-th of n parameters of a page's link
    "nonfinite": lambda i, n: ("nan", "inf", "-inf")[i % 3],
    "huge": lambda i, n: str(10**40 if i % 2 == 0 else -(10**40)),
    "empty": lambda i, n: "",
    "long": lambda i, n: "Z" * min(100_000, QUERY_LIMIT // n - 100),  # 100 KB, or as much as the link can hold
    "markup": lambda i, n: MARKUP,
}
SIDEBAR = ("device", "theme", "preset", "lang", "model", "config")  # on every page (not all are figure parameters);
# no kind of value is a model id (org/name), so ?model= is refused before any fetch
TEXTS = {name for name, spec in PARAMS.items() if spec.kind == "text"}
TEXT_ELEMENTS = ("markdown", "caption", "warning", "error", "info", "success", "title", "header", "subheader", "toast")
RENDER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])  # raw HTML passed through
RENDERED_MARKUP = re.compile(r"<script|<img|<b>PWNED|<strong>PWNED|<a\s[^>]*evil\.example", re.IGNORECASE)  # tags
AUTOLINK = re.compile(r"https?://evil|www\.evil|@evil", re.IGNORECASE)  # GitHub's markdown links these itself


def _pages() -> dict[str, list[str]]:
    """Each page to open and the figure parameters attacked there: every parameter on one page using it."""
    using: dict[str, set[str]] = {}
    for figure in FIGURES.values():
        for name in figure.params:
            using.setdefault(name, set()).add(figure.page)
    pages: dict[str, list[str]] = {}
    left = set(using)
    while left:  # the page that uses most of the parameters left, first
        page = max(sorted({p for n in left for p in using[n]}), key=lambda p: sum(p in using[n] for n in left))
        pages[page] = sorted(n for n in left if page in using[n])
        left -= set(pages[page])
    return pages


PAGE_CONTROLS = {"plan": ["runtime"]}  # parameters a page's own control reads, which no figure takes
PAGES = _pages()
for _page, _names in PAGE_CONTROLS.items():
    PAGES[_page] = sorted({*PAGES.get(_page, []), *_names})


def test_every_parameter_is_attacked_on_some_page():
    assert len(MARKUP) <= PARAMS["sentence_a"].max_chars
    attacked = {name for names in PAGES.values() for name in names} | set(SIDEBAR)
    assert set(PARAMS) <= attacked, set(PARAMS) - attacked
    assert "sentence_a" in PAGES["why_position"] and len(PAGES) <= len({f.page for f in FIGURES.values()})


def _texts(at: AppTest) -> list[tuple[str, str, bool]]:
    """(element type, text, whether it may render HTML) of every markdown-bearing element, main area and sidebar."""
    found = []
    for kind in TEXT_ELEMENTS:
        for element in at.get(kind):
            text = str(getattr(element, "value", "") or "")
            found.append((kind, text, bool(getattr(element.proto, "allow_html", False))))
    return found


def _in_range(name: str, value) -> bool:
    spec = PARAMS[name]
    if spec.kind in ("int", "float"):
        return spec.minimum <= float(value) <= spec.maximum
    if spec.kind == "text":
        return len(value) <= spec.max_chars
    if spec.kind == "choice":
        return value in spec.choices
    return True


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("page", [*PAGES, "lessons"])
def test_hostile_values_are_refused_announced_and_shown_as_text(page, kind):
    names = [*PAGES.get(page, []), *SIDEBAR] if page != "lessons" else ["lesson", *SIDEBAR]
    query = {name: KINDS[kind](index, len(names)) for index, name in enumerate(names)}
    if kind == "markup":
        query |= {name: value for name, value in REORDERED.items() if name in query}
    at = open_page(page, query, section=None if page == "lessons" else "All sections")
    assert not at.exception, [e.message[:300] for e in at.exception]

    # announced: each control whose link value the registry refuses says so, naming the parameter
    warnings = "\n".join(as_read(w.value) for w in at.warning)
    shown = {key: widget for key, widget in elements_by_key(at).items() if key in query}
    for name, widget in shown.items():
        if name not in PARAMS or PARAMS[name].coerce(query[name])[1] is not None:
            assert f"{name}=" in warnings, (name, warnings[:2000])
        if name in PARAMS and PARAMS[name].kind not in ("ints", "floats", "bool"):
            assert _in_range(name, widget.value), (name, str(widget.value)[:100])
    if page == "lessons":
        assert "lesson=" in warnings

    # drawn: every value a page's non-text parameters refuse becomes the default; a text parameter takes any text,
    # and a figure that cannot use it, or an extreme clamped combination (beta_fast = beta_slow = their maximum),
    # says so in place of the figure
    errors = [e.value for e in at.error]
    assert chart_specs(at) or errors or page == "lessons", "no figure and no message"
    if kind in ("nonfinite", "empty", "long", "markup") and not TEXTS & set(names):  # (the sidebar refuses ?model=)
        assert not at.main.error and chart_specs(at), [e.value for e in at.main.error]

    # shown as text: no markdown or HTML rendered from a value, in Streamlit or in Plotly
    for element, text, allow_html in _texts(at):
        rendered = RENDER.render(text)
        assert not RENDERED_MARKUP.search(rendered), (element, text[:300])
        assert not AUTOLINK.search(text), (element, text[:300])
        assert not (allow_html and ("evil" in text or "PWNED" in text or "ZZZ" in text)), (element, text[:300])
    for spec in chart_specs(at):
        figure = json.dumps(spec)
        assert not re.search(r"<(script|img|a\s|b>PWNED)", figure, re.IGNORECASE), re.findall(r".{60}<a\s.{20}", figure)

    # bounded: an echo of a 100 KB value repeats at most ECHO_CHARS of it
    for warning in at.warning:
        assert len(warning.value) <= MAX_ECHO, warning.value[:300]
        assert "Z" * (ECHO_CHARS + 1) not in warning.value, warning.value[:300]
    longest = max((spec.max_chars for spec in PARAMS.values() if spec.kind == "text"), default=0)
    assert all("Z" * (longest + 1) not in text for _, text, _ in _texts(at))


@pytest.mark.parametrize("step", ["9" * 100_000, "²", "-1", "1e3"])
def test_a_step_that_is_no_number_of_the_lesson_opens_step_1_and_says_so(step):
    lesson = sorted(path.stem for path in (ROOT / "posenc" / "lessons").glob("*.toml"))[0]
    at = open_page("lessons", {"lesson": lesson, "step": step}, section=None)
    assert not at.exception, [e.message[:300] for e in at.exception]
    assert "step=" in as_read("\n".join(w.value for w in at.warning)) and at.query_params["step"] == "1"
    assert all(len(w.value) <= MAX_ECHO for w in at.warning)


def test_a_model_id_from_a_link_is_shown_as_text_shortened():
    table_link = {"table_model": MARKUP + "Z" * 100_000, "lang": "ko"}  # ko: the summary quoting the id
    at = open_page("learned", table_link, section=None)
    assert not at.exception, [e.message[:300] for e in at.exception]
    assert at.error, "the id is refused in place"
    for error in at.error:
        assert not RENDERED_MARKUP.search(RENDER.render(error.value)) and not AUTOLINK.search(error.value)
        assert len(error.value) <= MAX_ECHO and "Z" * (ECHO_CHARS + 1) not in error.value
