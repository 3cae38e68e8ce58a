"""posenc: the positional-encoding explorer. A thin router: page config, language, shared sidebar, navigation."""

import streamlit as st

import figures  # noqa: F401  (registers every figure and parameter)
from i18n import _
from ui import language, presenter, sidebar
from ui.navigation import PAGES

st.set_page_config(
    page_title="posenc: positional encodings",
    page_icon="🧭",
    layout="wide",
    initial_sidebar_state=presenter.sidebar_state(),
)
language.choose()  # before any text: page titles, the sidebar and the page are made in the reader's language
presenter.apply()  # ?present=1: no sidebar, large text, figures in the slide style

navigation = st.navigation(
    [st.Page(page.script, title=_(page.title), icon=page.icon, default=i == 0) for i, page in enumerate(PAGES)]
)
sidebar.render()
navigation.run()
presenter.leave_button()
