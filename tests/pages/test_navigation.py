"""Going from page to page as a learner clicks the sidebar: every control keeps the session's value (drawn on an
earlier page) or, when no earlier page drew it, the value this page opens with; no page shows an error.

A control is a new widget to Streamlit on each page (its identity includes the page), so a page's first visit in a
session is the case that matters: ``ui.controls`` hands the held value to the new widget (before, such a visit
drew every shared control at its minimum). Every ordered pair of pages is tried with the custom preset, each pair
in a fresh session; the sidebar walked in order and back with a named preset and with a pasted config.json.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from posenc.drawing.params import PARAMS
from posenc.ui import config_link
from posenc.ui.navigation import PAGE_NAMES
from tests.pages.conftest import assert_healthy, elements_by_key, open_page
from tests.ui.test_config_reader import CONFIGS

NAMED = {"preset": "llama-3.1-8b"}
PASTED = {"preset": "config", "config": config_link.encode((CONFIGS / "llama-3.1-8b.json").read_text())}
SETTINGS = {"custom": {}, "named": NAMED, "pasted": PASTED}


def control_values(at) -> dict[str, Any]:
    """The value every parameter control on the page shows."""
    return {key: element.value for key, element in elements_by_key(at).items() if key in PARAMS}


@functools.cache
def opened_with(query: tuple[tuple[str, str], ...], page: str) -> dict[str, Any]:
    """The controls of ``page`` opened afresh (a new session) from a link holding ``query`` (the sidebar's)."""
    at = open_page(page, dict(query), section=None)
    assert_healthy(at)
    return control_values(at)


def switch(at, page: str, settings: str) -> None:
    """Click ``page`` in the sidebar: the browser goes to the page's address, which holds only the sidebar's link
    (the preset and a pasted config), none of the previous page's controls."""
    for name in list(at.query_params):
        if name not in SETTINGS[settings]:
            del at.query_params[name]
    at.switch_page(f"pages/{page}.py").run()


def walk(order, settings: str) -> None:
    """Visit ``order`` in one session; each page's controls hold the session's values or the page's own."""
    at = open_page(order[0], SETTINGS[settings], section=None)
    held: dict[str, Any] = {}
    for number, page in enumerate(order):
        if number:
            switch(at, page, settings)
        assert_healthy(at)
        shown, fresh = control_values(at), opened_with(tuple(sorted(SETTINGS[settings].items())), page)
        expected = {name: held.get(name, fresh[name]) for name in shown}
        came_from = order[number - 1] if number else "a fresh link"
        assert shown == expected, f"{page} (coming from {came_from}): {shown} != {expected}"
        held |= shown


@pytest.mark.parametrize("first", PAGE_NAMES)
def test_every_page_opened_from_this_one_keeps_the_sessions_values(first):
    for page in PAGE_NAMES:
        if page != first:
            walk([first, page], "custom")


@pytest.mark.parametrize("settings", ["named", "pasted"])
def test_the_sidebar_walked_in_order_and_back_keeps_every_value(settings):
    walk(PAGE_NAMES, settings)
    walk(PAGE_NAMES[::-1], settings)


def test_a_held_value_reaches_a_page_that_shares_the_control():
    """The reported case: RoPE's values reach Context extension on its first visit (not head_dim 4, base 1.0001)."""
    at = open_page("rope", section=None)
    at.number_input(key="head_dim").set_value(64).run()
    at.number_input(key="base").set_value(500000.0).run()
    switch(at, "context_extension", "custom")
    assert_healthy(at)
    shown = control_values(at)
    assert (shown["head_dim"], shown["base"], shown["seq_len"]) == (64, 500000.0, 1024)
