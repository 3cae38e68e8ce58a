"""Glossary: the course's vocabulary in English, Korean and Simplified Chinese (i18n/glossary.toml), the reader's
language first, with a search box."""

import tomllib
from pathlib import Path

import streamlit as st

from posenc import i18n
from posenc.i18n import _
from posenc.ui.router import ensure_app_router

ensure_app_router()
GLOSSARY = Path(i18n.__file__).with_name("glossary.toml")


@st.cache_data(show_spinner=False)
def terms(mtime: float) -> list[dict]:
    """Every [[term]] of the glossary: en, ko, zh-CN and, where written, a definition per language."""
    with GLOSSARY.open("rb") as handle:
        return tomllib.load(handle)["term"]


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A markdown table, the reader's language in the first column, in bold."""
    lines = ["| " + " | ".join(headers) + " |", "|" + " --- |" * len(headers)]
    for first, *others in rows:
        cells = [f"**{first}**", *others]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def matches(term: dict, query: str) -> bool:
    texts = [term[code] for code in i18n.LANGUAGES] + list(term.get("definition", {}).values())
    return any(query.casefold() in text.casefold() for text in texts)


language = i18n.current()
columns = [language, *(code for code in i18n.LANGUAGES if code != language)]
st.title(_("📖 Glossary"))
st.markdown(
    _(
        "The words of the course in three languages, as every page and lesson uses them. Technical names (RoPE, "
        "ALiBi, YaRN, `rope_theta`, `head_dim`) stay the same in every language."
    )
)
query = st.text_input(_("Search"), placeholder=_("a word in any of the three languages"), key="glossary-search")
every = terms(GLOSSARY.stat().st_mtime)
shown = [term for term in every if matches(term, query.strip())]
headers = [*(i18n.LANGUAGES[code] for code in columns), _("Definition")]
rows = [[term[code] for code in columns] + [term.get("definition", {}).get(language, "")] for term in shown]
st.caption(_("{shown} of {total} terms").format(shown=len(shown), total=len(every)))
if shown:  # a markdown table: long definitions wrap, and every term reads in full
    st.markdown(table(headers, rows))
else:
    st.info(_("No term contains {query!r}.").format(query=query.strip()), icon="🔎")
