"""A mark at the end of every script run, for the browser tests and the load tests to wait on: an invisible element
naming the page and the run's number in this session. A test that acts (clicks a page, a control) reads the number
first and waits for a larger one: the run it caused has finished, whatever the machine's speed, instead of a sleep
or a lucky read of a page still being drawn."""

from __future__ import annotations

import streamlit as st

COUNT = "_runs"  # session state: script runs finished in this session
SELECTOR = "div.posenc-ran"  # the mark in the page (data-page, data-run)


def mark_run_done(page: str) -> None:
    """Call last in app.py."""
    count = st.session_state.get(COUNT, 0) + 1
    st.session_state[COUNT] = count
    st.html(f'<div class="posenc-ran" data-page="{page}" data-run="{count}" hidden></div>')
