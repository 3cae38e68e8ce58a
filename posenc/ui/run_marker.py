"""A mark at the end of every script run, for the browser tests and the load tests to wait on: an invisible element
naming the page, the run's number in this session and how many charts the run drew. A test that acts (clicks a
page, a control) reads the number first and waits for a larger one, then for that many charts in the page: the run
it caused has finished and its figures have reached the browser, whatever the machine's speed, instead of a sleep or
a lucky read of a page still being drawn (the browser mounts a chart a moment after the run's last message, once
its plotting code has loaded)."""

from __future__ import annotations

import streamlit as st

COUNT = "_runs"  # session state: script runs finished in this session
CHARTS = "_charts_this_run"  # session state: charts drawn so far in the current run
SELECTOR = "div.posenc-ran"  # the mark in the page (data-page, data-run, data-charts)


def start_run() -> None:
    """Call first in app.py: no chart drawn yet in this run."""
    st.session_state[CHARTS] = 0


def chart_drawn() -> None:
    """Call once for each chart a run leaves in the page (a placeholder redrawn in place counts once)."""
    st.session_state[CHARTS] = st.session_state.get(CHARTS, 0) + 1


def mark_run_done(page: str) -> None:
    """Call last in app.py."""
    count = st.session_state.get(COUNT, 0) + 1
    st.session_state[COUNT] = count
    charts = st.session_state.get(CHARTS, 0)
    st.html(f'<div class="posenc-ran" data-page="{page}" data-run="{count}" data-charts="{charts}" hidden></div>')
