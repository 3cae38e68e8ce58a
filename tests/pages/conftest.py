"""Page tests: the AppTest driver (bench.app_test) and what every page test checks."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from bench.app_test import ROOT, TIMEOUT, chart_specs, open_page, payload_bytes

__all__ = ["ROOT", "TIMEOUT", "assert_healthy", "chart_specs", "open_page", "payload_bytes"]


def assert_healthy(at: AppTest) -> None:
    """No exception and no error box on the page."""
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.fixture
def page():
    return open_page
