"""A page's sections as tabs. Only the open tab's figures are computed and drawn, so a page opens with one screen
of figures instead of all of them, and the link (``?section=...``) says which tab is open. The last tab,
"All sections", draws every section one after another (for scrolling through, or printing, the whole page)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st

KEY = "section"
ALL = "All sections"


def show_sections(sections: Mapping[str, Callable[[], None]]) -> str:
    """Draw one tab per ``label: draw`` entry, plus "All sections"; call ``draw`` of the open tab only (every
    ``draw`` under its label for "All sections"). Return the open label.

    The first tab is open by default; an unknown ``section`` in the link falls back to it.
    """
    if ALL in sections:
        raise ValueError(f"section labels must not include {ALL!r}")
    tabs = st.tabs([*sections, ALL], key=KEY, on_change="rerun", bind="query-params")
    for label, tab in zip([*sections, ALL], tabs, strict=True):
        if not tab.open:
            continue
        with tab:
            if label != ALL:
                sections[label]()
                return label
            for title, draw in sections.items():
                st.subheader(title)
                draw()
        return label
    return next(iter(sections))


def what_to_notice(*points: str) -> None:
    """The "What to notice" list of the section being drawn, under its figures (so it speaks about what is open)."""
    st.markdown("**What to notice**\n" + "\n".join(f"- {point}" for point in points))
