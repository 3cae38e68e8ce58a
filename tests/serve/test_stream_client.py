"""The load test's protocol-level client (posenc/serve/stream_client.py) against a served app: it sees a page's figure,
and it reports a page that raises or shows ``st.error`` as an error (the load test counts them)."""

from __future__ import annotations

import asyncio

import pytest

from bench.app_server import running_app
from posenc.serve.stream_client import open_link, run, split_link

APP = """
import time

import plotly.graph_objects as go
import streamlit as st


def figure():
    st.markdown("a page with a figure")
    st.plotly_chart(go.Figure(go.Scatter(y=[1, 3, 2])))


def boom():
    raise RuntimeError("this page raises")


def alert():
    st.error("a value out of range")
    st.plotly_chart(go.Figure(go.Bar(y=[1, 2])))


def replaced():
    slot = st.empty()
    slot.plotly_chart(go.Figure(), key="frame")  # a placeholder, as the app sends before building a figure
    time.sleep(0.3)  # the build: Streamlit usually sends the placeholder meanwhile
    slot.plotly_chart(go.Figure(go.Scatter(y=[2, 1])), key="drawn")
    st.caption("under the figure")


st.navigation(
    [st.Page(figure, url_path="figure", default=True), st.Page(boom, url_path="boom"),
     st.Page(alert, url_path="alert"), st.Page(replaced, url_path="replaced")]
).run()
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    script = tmp_path_factory.mktemp("stream_app") / "three_pages.py"
    script.write_text(APP)
    with running_app(script=str(script)) as url:
        yield url


def _open(url: str, link: str):
    return run(open_link(url, link, timeout=60))


def test_a_page_with_a_figure_is_served(served):
    result = _open(served, "/figure?x=1")
    assert result.served, result.errors
    assert result.figures == 1 and result.elements == ["markdown", "plotly_chart"]
    assert 0 < result.first_figure_s <= result.finished_s
    assert result.session_id and "_streamlit_xsrf" in result.cookies


def test_the_page_is_chosen_by_its_url_path(served):
    assert _open(served, "/alert").elements == ["alert", "plotly_chart"]
    assert _open(served, "/").elements == ["markdown", "plotly_chart"]  # the default page


def test_what_the_page_shows_at_the_end_leaves_out_a_placeholder_replaced_in_its_slot(served):
    result = _open(served, "/replaced")
    assert result.drawn == ["plotly_chart", "markdown"]  # what the page shows (a caption is markdown)
    # (whether the placeholder was sent at all depends on when Streamlit flushed: ``elements`` may hold it)
    assert result.elements[-1] == "markdown" and result.elements.count("plotly_chart") in (1, 2)


def test_a_page_that_raises_is_an_error(served):
    result = _open(served, "/boom")
    assert not result.served and result.figures == 0
    assert any(error.startswith("exception") for error in result.errors), result.errors


def test_st_error_counts_as_an_error(served):
    result = _open(served, "/alert")
    assert result.figures == 1 and not result.served
    assert result.errors == ["st.error: a value out of range"]


def test_a_server_that_does_not_answer_is_an_error_not_an_exception():
    from bench.app_server import free_port

    result = _open(f"http://127.0.0.1:{free_port()}", "/figure")
    assert not result.served and result.figures == 0
    assert len(result.errors) == 1 and "Connect" in result.errors[0], result.errors


def test_split_link():
    assert split_link("/rope?seq_len=64&base=10") == ("rope", "seq_len=64&base=10")
    assert split_link("/") == ("", "")


def test_run_works_where_an_event_loop_is_already_running():
    async def inside_a_loop():
        return run(asyncio.sleep(0, result=7))  # asyncio.run would refuse here

    assert run(inside_a_loop()) == 7  # (run, not asyncio.run: a test before may have left this thread a loop)
