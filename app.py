"""posenc: the positional-encoding explorer. A thin router: language, page config, shared sidebar, navigation."""

import streamlit as st

import figures  # noqa: F401  (registers every figure and parameter)
from i18n import _
from ui import language, presenter, sidebar
from ui.navigation import PAGES, SECTIONS

language.choose()  # before any text: page titles, the sidebar and the page are made in the reader's language
st.set_page_config(
    page_title=_("posenc: positional encodings"),
    page_icon="🧭",
    layout="wide",
    initial_sidebar_state=presenter.sidebar_state(),
)
presenter.apply()  # ?present=1: no sidebar, large text, figures in the slide style

navigation = st.navigation(
    {
        _(section): [
            st.Page(page.script, title=_(page.title), icon=page.icon, default=page is PAGES[0])
            for page in PAGES
            if page.section == section
        ]
        for section in SECTIONS
    }
)
sidebar.render()
navigation.run()
presenter.leave_button()
