"""The Glossary page: the course's terms in three languages, the reader's language first, and the search box."""

from __future__ import annotations

import tomllib

import pytest

from tests.pages.conftest import ROOT, assert_healthy, open_page

GLOSSARY = ROOT / "posenc" / "i18n" / "glossary.toml"
with GLOSSARY.open("rb") as handle:
    TERMS = tomllib.load(handle)["term"]


def _table(at) -> tuple[list[str], list[list[str]]]:
    """The glossary's markdown table: its headers and its rows of cells (bold marks removed)."""
    tables = [markdown.value for markdown in at.markdown if markdown.value.startswith("| ")]
    if not tables:
        return [], []
    header, _rule, *rows = tables[0].splitlines()

    def cells(line: str) -> list[str]:
        return [cell.strip().strip("*") for cell in line.strip().strip("|").split(" | ")]

    return cells(header), [cells(row) for row in rows]


@pytest.mark.parametrize(("code", "first"), [("en", "English"), ("ko", "한국어"), ("zh-CN", "简体中文")])
def test_every_term_is_listed_with_the_reader_s_language_first(code, first):
    at = open_page("glossary", {"lang": code}, section=None)
    assert_healthy(at)
    headers, rows = _table(at)
    assert headers[0] == first and len(headers) == 4
    assert [row[0] for row in rows] == [term[code] for term in TERMS]
    assert [row[3] for row in rows] == [term["definition"][code] for term in TERMS], "definitions in the language"


def test_the_search_box_finds_a_term_in_any_language():
    at = open_page("glossary", {"lang": "en"}, section=None)
    at.text_input(key="glossary-search").input("파장").run()
    _, rows = _table(at)
    holding = {term["en"] for term in TERMS if "파장" in str(term)}  # in a term or in a definition
    assert "wavelength" in holding and {row[0] for row in rows} == holding
    at.text_input(key="glossary-search").input("ROTARY").run()
    assert "rotary position embedding (RoPE)" in [row[0] for row in _table(at)[1]]
    at.text_input(key="glossary-search").input("no such word").run()
    assert _table(at) == ([], []) and "no such word" in at.info[0].value


def test_every_term_has_its_three_languages_and_a_definition_in_each():
    for term in TERMS:
        assert all(term.get(code, "").strip() for code in ("en", "ko", "zh-CN")), term
        assert all(term["definition"].get(code, "").strip() for code in ("en", "ko", "zh-CN")), term["en"]
        shown = [term[code] for code in ("en", "ko", "zh-CN")] + list(term["definition"].values())
        assert "|" not in "".join(shown), "a | would split a cell of the table"


def test_the_definitions_say_what_the_papers_say():
    """The entries a learner trips on: what a positional encoding can be, the two permutation properties the lessons
    contrast, NTK-aware scaling's multiplied base, and YaRN's attention factor acting on cos and sin (so on the
    scores by its square), which is not the softmax temperature."""
    by_name = {term["en"]: term["definition"]["en"] for term in TERMS}
    assert {"bias", "rotation"} <= set(by_name["positional encoding"].replace(",", " ").split())
    assert "stores no table" in by_name["position embedding"]
    assert "permutation invariance" in by_name and "permutation equivariance" in by_name
    assert "equivariant" in by_name["permutation equivariance"]
    assert by_name["NTK-aware scaling"].startswith("Multiplying the base")
    factor = by_name["attention factor (YaRN, LongRoPE)"]
    assert "cos and sin" in factor and "square" in factor and "√(1/t)" in factor
    assert "temperature" in by_name and "divided by" in by_name["temperature"]
