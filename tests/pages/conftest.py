"""Page tests: the AppTest driver (bench.app_test) and the helpers every page test shares."""

from __future__ import annotations

import base64
import re
from typing import Any

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from bench.app_test import ROOT, TIMEOUT, chart_specs, open_page, payload_bytes

__all__ = [
    "ROOT",
    "TIMEOUT",
    "assert_healthy",
    "caption_text",
    "chart_array",
    "chart_specs",
    "control",
    "elements_by_key",
    "open_page",
    "payload_bytes",
    "titles",
    "warning_text",
]


def assert_healthy(at: AppTest) -> None:
    """No exception and no error box on the page."""
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def elements_by_key(at: AppTest) -> dict[str, Any]:
    """Every element of the page with a key (widgets, charts, download buttons), main area then sidebar."""
    found: dict[str, Any] = {}

    def visit(node) -> None:
        for child in getattr(node, "children", {}).values():
            key = getattr(child, "key", None)
            if key is not None:
                found.setdefault(key, child)
            visit(child)

    visit(at.main)
    visit(at.sidebar)
    return found


def control(at: AppTest, key: str):
    """The widget with this key, whatever its kind: an int's range picks a slider or a number box, and a range that
    follows another parameter (start < seq_len) can change it."""
    found = elements_by_key(at)
    assert key in found, f"no widget with key {key!r} on the page"
    return found[key]


def titles(at: AppTest) -> list[str]:
    """The title of every figure on the page, in page order."""
    return [spec["layout"]["title"]["text"] for spec in chart_specs(at)]


def caption_text(at: AppTest) -> str:
    """Every caption on the page, one per line, as read (``as_read``)."""
    return "\n".join(as_read(caption.value) for caption in at.caption)


def as_read(text: str) -> str:
    """The text a reader sees of markdown the app escaped (``ui.echo.plain``): backslash escapes and the invisible
    breaks taken out."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text).replace("\u200b", "")


def warning_text(at: AppTest) -> str:
    """Every warning box on the page, one per line, as read."""
    return "\n".join(as_read(warning.value) for warning in at.warning)


def error_texts(at: AppTest) -> list[str]:
    """Every error box on the page, as read."""
    return [as_read(error.value) for error in at.error]


def chart_array(array) -> np.ndarray:
    """A data array of the figure JSON: a plain list, or Plotly's typed array ``{"dtype", "bdata"[, "shape"]}``
    (Plotly >= 6 sends numpy arrays base64-encoded, a 2-D one with its shape)."""
    if isinstance(array, dict):
        values = np.frombuffer(base64.b64decode(array["bdata"]), dtype=np.dtype(array["dtype"]))
        return values.reshape([int(n) for n in array["shape"].split(",")]) if "shape" in array else values
    return np.asarray(array)


@pytest.fixture
def page():
    return open_page
