"""A page's sections as tabs. Only the open tab's figures are computed and drawn, so a page opens with one screen
of figures instead of all of them, and the link (``?section=...``) says which tab is open. The last tab,
"All sections", draws every section one after another (for scrolling through, or printing, the whole page).

Section labels are written in English (marked ``N_``) and shown translated; the link carries the English label,
so a link names the same section in every language. A label that was shortened stays in :data:`FORMER_LABELS`, so a
link written before opens the same section.

A page opens on its first figure: its title, its controls, the tabs, the figure. The page's explanation and
formulas fold into :func:`about` under the title, one click away."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from posenc.i18n import N_, _
from posenc.ui import link

KEY = "section"
ALL = N_("All sections")
# a label shortened (so that a page's tabs fit one line at 1440 px) or corrected -> its new label (links keep working)
FORMER_LABELS = {
    "Layer by layer (Gemma 3, Llama 4)": "Layer by layer",
    "Dynamic NTK, temperature": "Dynamic NTK, attention factor",  # YaRN's factor is √(1/t), not the temperature
}


def show_sections(sections: Mapping[str, Callable[[], None]]) -> str:
    """Draw one tab per ``label: draw`` entry, plus "All sections"; call ``draw`` of the open tab only (every
    ``draw`` under its label for "All sections"). Return the open (English) label.

    The first tab is open by default, and for an unknown ``section`` in the link.
    """
    if ALL in sections:
        raise ValueError(f"section labels must not include {ALL!r}")
    labels = [*sections, ALL]
    shown = {_(label): label for label in labels}  # translated -> English
    asked = st.query_params.get(KEY)
    asked = FORMER_LABELS.get(asked, asked)
    default = _(asked) if asked in labels else _(labels[0])
    tabs = st.tabs(list(shown), key=f"{KEY}-tabs", default=default, on_change=_opened, args=(shown,))
    for label, tab in zip(labels, tabs, strict=True):
        if not tab.open:
            continue
        _into_link(label, first=labels[0])
        with tab:
            if label != ALL:
                sections[label]()
                return label
            for title, draw in sections.items():
                st.subheader(_(title))
                draw()
        return label
    return labels[0]


def _opened(shown: Mapping[str, str]) -> None:
    """The tab the reader opened, into the link."""
    opened = st.session_state.get(f"{KEY}-tabs")
    if opened in shown:
        _into_link(shown[opened], first=next(iter(shown.values())))


def _into_link(label: str, *, first: str) -> None:
    """The open section into the link by its English label; the first (the page's default) is left out."""
    if label != first:
        link.put(KEY, label)
    elif KEY in st.query_params:
        del st.query_params[KEY]


def what_to_notice(*points: str) -> None:
    """The "What to notice" list of the section being drawn, under its figures (so it speaks about what is open)."""
    heading = _("What to notice")
    st.markdown(f"**{heading}**\n" + "\n".join(f"- {point}" for point in points))


def about() -> DeltaGenerator:
    """The page's explanation and formulas, folded under its title (``with about(): st.markdown(...)``): the first
    screen shows the page's first figure, and the prose is one click away."""
    return st.expander(_("The idea and the formulas"), icon="📖")


def formulas(columns: Sequence[Sequence[str]]) -> None:
    """LaTeX formulas in columns: side by side on a screen, one formula a line on a phone."""
    for column, lines in zip(st.columns(len(columns)), columns, strict=True):
        with column:
            for formula in lines:
                st.latex(formula)
