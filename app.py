"""posenc: the positional-encoding explorer. A thin router: page config, shared sidebar, navigation."""

import streamlit as st

import figures  # noqa: F401  (registers every figure and parameter)
from ui import sidebar

st.set_page_config(page_title="posenc: positional encodings", page_icon="🧭", layout="wide")

PAGES = [
    st.Page("pages/why_position.py", title="Why position", icon="🧩", default=True),
    st.Page("pages/sinusoidal.py", title="Sinusoidal", icon="🌊"),
    st.Page("pages/learned.py", title="Learned", icon="📚"),
    st.Page("pages/relative.py", title="Relative (Shaw, T5)", icon="↔️"),
    st.Page("pages/alibi.py", title="ALiBi", icon="📐"),
    st.Page("pages/rope.py", title="RoPE", icon="🌀"),
    st.Page("pages/context_extension.py", title="Context extension", icon="🔭"),
    st.Page("pages/mrope.py", title="M-RoPE", icon="🖼️"),
    st.Page("pages/compare.py", title="Compare", icon="⚖️"),
]

navigation = st.navigation(PAGES)
sidebar.render()
navigation.run()
