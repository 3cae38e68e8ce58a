"""Make sure every page runs through app.py (its page config, shared sidebar and navigation).

Streamlit runs a script that has a ``pages/`` folder beside it in its old pages-folder mode until the first
call of ``st.navigation`` switches that mode off for the process. A link straight to ``/rope`` as the very
first request after the server starts would therefore run ``pages/rope.py`` alone: no sidebar, no wide
layout. A page that finds itself run that way switches the mode off and reruns, so app.py routes it.
"""

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def ensure_app_router() -> None:
    """Call first in every page script."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
