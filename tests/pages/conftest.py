"""AppTest helpers: open a page of the real app (optionally from a URL's query string) and read its figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120


def open_page(page: str, query: dict[str, str] | None = None) -> AppTest:
    """Run app.py on ``pages/<page>.py`` as a browser opening ``/<page>?<query>`` would."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for name, value in (query or {}).items():
        at.query_params[name] = str(value)
    at.run()
    if page != "why_position":
        at.switch_page(f"pages/{page}.py")
        for name, value in (query or {}).items():
            at.query_params[name] = str(value)
        at.run()
    return at


def chart_specs(at: AppTest) -> list[dict]:
    """The Plotly figures of the page, as the JSON sent to the browser."""
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def payload_bytes(at: AppTest) -> int:
    """Bytes of figure JSON the page sends."""
    return sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))


def assert_healthy(at: AppTest) -> None:
    """No exception and no error box on the page."""
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.fixture
def page():
    return open_page
