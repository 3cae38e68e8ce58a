"""The Glossary page: the course's terms in three languages, the reader's language first, and the search box."""

from __future__ import annotations

import pytest
import tomllib

from tests.pages.conftest import ROOT, assert_healthy, open_page

GLOSSARY = ROOT / "i18n" / "glossary.toml"
with GLOSSARY.open("rb") as handle:
    TERMS = tomllib.load(handle)["term"]


@pytest.mark.parametrize(("code", "first"), [("en", "English"), ("ko", "한국어"), ("zh-CN", "简体中文")])
def test_every_term_is_listed_with_the_reader_s_language_first(code, first):
    at = open_page("glossary", {"lang": code}, section=None)
    assert_healthy(at)
    table = at.dataframe[0].value
    assert table.columns[0] == first and len(table.columns) == 4
    assert len(table) == len(TERMS)
    assert list(table[first]) == [term[code] for term in TERMS]


def test_the_search_box_finds_a_term_in_any_language():
    at = open_page("glossary", {"lang": "en"}, section=None)
    at.text_input(key="glossary-search").input("파장").run()
    table = at.dataframe[0].value
    assert "wavelength" in list(table["English"]) and len(table) < len(TERMS)
    holding = {term["en"] for term in TERMS if "파장" in str(term)}  # in a term or in a definition
    assert set(table["English"]) == holding
    at.text_input(key="glossary-search").input("ROTARY").run()
    assert "rotary position embedding (RoPE)" in list(at.dataframe[0].value["English"])
    at.text_input(key="glossary-search").input("no such word").run()
    assert not at.dataframe and "no such word" in at.info[0].value


def test_the_definitions_are_shown_in_the_reader_s_language():
    at = open_page("glossary", {"lang": "zh-CN"}, section=None)
    table = at.dataframe[0].value
    assert list(table.iloc[:, -1]) == [term["definition"]["zh-CN"] for term in TERMS]


def test_every_term_has_its_three_languages_and_definitions_are_complete():
    for term in TERMS:
        assert all(term.get(code, "").strip() for code in ("en", "ko", "zh-CN")), term
        definition = term.get("definition")
        if definition is not None:
            assert all(definition.get(code, "").strip() for code in ("en", "ko", "zh-CN")), term["en"]
