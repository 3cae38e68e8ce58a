"""Every explorer page's link round trip: a changed number control changes the figures and the page's link, and the
page opened from that link alone (a fresh session) draws the same figures. The same walk in a real browser, on one
page of each kind, is tests/browser/test_app_in_browser.py's."""

from __future__ import annotations

import pytest

from bench.scenarios import PAGES
from posenc.drawing.params import PARAMS
from tests.pages.conftest import assert_healthy, chart_specs, elements_by_key, open_page


def _first_number_control(at):
    """The first number box of the main area whose key is a registered parameter: (key, widget)."""
    for key, widget in elements_by_key(at).items():
        if key in PARAMS and PARAMS[key].kind in ("int", "float") and type(widget).__name__ == "NumberInput":
            return key, widget
    raise AssertionError("the page shows no number box")


def _another_value(spec, value):
    """A value of the control's range other than ``value``: doubled where it can be, else halved."""
    changed = value * 2 if value else 1
    if changed > spec.maximum:
        changed = value / 2
    return int(changed) if spec.kind == "int" else float(changed)


def _figures(at) -> list:
    """What the page drew: each figure's data and title, and any message in place of a figure (mrope's head_dim
    doubled no longer matches its mrope_section: the page says so, and the link must say it again)."""
    drawn = [(spec["data"], spec["layout"].get("title")) for spec in chart_specs(at)]
    return drawn + [error.value for error in at.error]


@pytest.mark.parametrize("page", PAGES)
def test_a_changed_control_goes_into_the_link_and_the_link_redraws_the_page(page):
    at = open_page(page)
    assert_healthy(at)
    before = _figures(at)
    name, box = _first_number_control(at)
    value = _another_value(PARAMS[name], box.value)
    box.set_value(value).run()
    assert not at.exception, [e.message for e in at.exception]
    after = _figures(at)
    assert after != before, f"changing {name} did not change any figure"
    link = {key: at.query_params[key] for key in at.query_params}
    assert PARAMS[name].coerce(link[name])[0] == value, f"the link does not carry {name}={value}"
    again = open_page(page, {key: ",".join(raw) if isinstance(raw, list) else raw for key, raw in link.items()})
    assert not again.exception, [e.message for e in again.exception]
    assert _figures(again) == after, "the link did not reproduce the page"
