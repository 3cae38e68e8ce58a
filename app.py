"""posenc: the positional-encoding explorer. A thin router: page config, shared sidebar, navigation."""

import streamlit as st

import figures  # noqa: F401  (registers every figure and parameter)
from ui import sidebar
from ui.navigation import PAGES

st.set_page_config(page_title="posenc: positional encodings", page_icon="🧭", layout="wide")

navigation = st.navigation(
    [st.Page(page.script, title=page.title, icon=page.icon, default=i == 0) for i, page in enumerate(PAGES)]
)
sidebar.render()
navigation.run()
