"""The page's link (its query string) as the page runs: every ``st.query_params`` write sends the browser a message,
even when the value is the one the link already holds, so the app writes through :func:`put` and :func:`drop`,
which send one only for a change. A shared link holding every value then costs no message at all, and neither does
a rerun that changed nothing in the link."""

from __future__ import annotations

import streamlit as st


def put(name: str, value: str) -> None:
    """``?name=value`` in the link, unless the link already says exactly that."""
    if st.query_params.get_all(name) != [value]:
        st.query_params[name] = value


def drop(name: str) -> None:
    """``name`` out of the link, if it is there."""
    if name in st.query_params:
        del st.query_params[name]
