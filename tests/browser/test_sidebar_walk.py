"""A learner clicks down the sidebar, page after page, changing nothing: in English with the custom preset, in
Korean with a named model, in Chinese with a config.json pasted into the sidebar. Every page draws with no error,
and every control holds the value it held on the page before or, where no earlier page drew it, the value the page
opens with (AppTest opens each page afresh for that). Each click waits on the app's own end-of-run mark."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from posenc.drawing.params import PARAMS
from posenc.ui.navigation import PAGES
from tests.browser.helpers import exceptions_on_page, runs, wait_until_drawn
from tests.pages.test_navigation import NAMED, PASTED
from tests.pages.test_navigation import opened_with as opened_in_apptest
from tests.ui.test_config_reader import CONFIGS

pytestmark = pytest.mark.browser
WALKS = {"en": {}, "ko": NAMED, "zh-CN": {"preset": PASTED["preset"]}}  # zh-CN: the config is pasted in the browser
ERRORS = "[data-testid='stAlertContentError'], [data-testid='stException']"


def _controls_in_link(url: str) -> dict[str, str]:
    """The controls' values the address bar holds (the app mirrors every control into it)."""
    query = parse_qs(urlsplit(url).query)
    return {name: values[-1] for name, values in query.items() if name in PARAMS}


def _same(name: str, shown: str, expected) -> bool:
    spec = PARAMS[name]
    return spec.coerce(shown)[0] == spec.coerce(expected)[0]


def _paste_config(page) -> None:
    before = runs(page)
    box = page.locator("[data-testid='stSidebar'] textarea")
    box.fill((CONFIGS / "llama-3.1-8b.json").read_text())
    box.press("Control+Enter")
    wait_until_drawn(page, before)
    page.wait_for_function("() => location.search.includes('config=')", timeout=90_000)  # read and put in the link


@pytest.mark.parametrize("code", WALKS)
def test_clicking_down_the_sidebar_keeps_every_page_right(app_url, tab, code):
    settings = WALKS[code]
    query = "&".join(f"{name}={value}" for name, value in {"lang": code, **settings}.items())
    tab.set_viewport_size({"width": 1440, "height": 900})
    tab.goto(f"{app_url}/?{query}")
    wait_until_drawn(tab, 0)
    if code == "zh-CN":
        _paste_config(tab)
    links = tab.locator("[data-testid='stSidebarNav'] a")
    paths = [urlsplit(links.nth(i).get_attribute("href")).path.strip("/") for i in range(links.count())]
    assert len(paths) == len(PAGES), paths
    apptest_query = {"lang": code, **(NAMED if code == "ko" else PASTED if code == "zh-CN" else {})}
    held: dict[str, str] = _controls_in_link(tab.url)
    for path in paths:
        before = runs(tab)
        tab.locator(f"[data-testid='stSidebarNav'] a[href$='/{path}']").click()
        wait_until_drawn(tab, before, path or "home")
        where = f"/{path} ({code})"
        assert tab.locator(ERRORS).count() == 0, f"{where}: {tab.locator(ERRORS).all_inner_texts()}"
        assert exceptions_on_page(tab) == [], where
        shown = _controls_in_link(tab.url)
        fresh = opened_in_apptest(tuple(sorted(apptest_query.items())), path or "why_position")
        wrong = {
            name: (value, held.get(name, fresh.get(name)))
            for name, value in shown.items()
            if not _same(name, value, held.get(name, fresh.get(name)))
        }
        assert not wrong, f"{where}: control (shown, expected) {wrong}"
        held |= shown
