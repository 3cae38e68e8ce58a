"""A lesson as a teacher presents it: opened from its link in presenter mode, in Korean and in Chinese, stepped
through with the keyboard; its screenshots are the README's."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import exceptions_on_page, wait_until_drawn
from tests.prose import cjk_share, english_runs

pytestmark = pytest.mark.browser
PROJECTOR = {"width": 1280, "height": 800}  # a common projector resolution (WXGA)
BUTTONS = {"ArrowRight": "lesson-next", "ArrowLeft": "lesson-previous"}  # the keys of the buttons with the shortcuts


def _step(page) -> int:
    return int(re.search(r"[?&]step=(\d+)", page.url).group(1))


def _settled(page) -> None:
    """No script run in progress (a key pressed during one may reach a button about to be redrawn)."""
    page.wait_for_selector("[data-testid='stStatusWidget']", state="detached", timeout=60_000)


def _press_and_wait(page, key: str, number: int, title_before: str) -> str:
    """Press ``key`` and wait for step ``number``: its title drawn and its link in the address bar. The key goes to
    its button once the button is drawn enabled (Previous is disabled on step 1 until the page shows step 2)."""
    _settled(page)
    button = BUTTONS[key]
    page.wait_for_selector(f".st-key-{button} button:not([disabled])", timeout=60_000)
    page.keyboard.press(key)
    page.wait_for_function(
        "before => { const h = document.querySelector('h2'); return h && h.innerText !== before; }",
        arg=title_before,
        timeout=60_000,
    )
    page.wait_for_function(f"() => /[?&]step={number}(&|$)/.test(location.search)", timeout=60_000)
    _settled(page)
    return page.locator("h2").first.inner_text()


@pytest.mark.parametrize("code", ["ko", "zh-CN"])
def test_a_lesson_presents_in_the_learners_language_and_steps_with_the_keyboard(app_url, browser, code):
    context = browser.new_context(viewport=PROJECTOR)
    page = context.new_page()
    try:
        page.goto(f"{app_url}/?lesson=absolute&lang={code}&present=1")  # the link a teacher is given
        wait_until_drawn(page)
        assert not page.locator("[data-testid='stSidebar']").is_visible(), "presenter mode shows the sidebar"
        first_title = page.locator("h2").first.inner_text()
        chart = page.locator("div[data-testid='stPlotlyChart']").first.bounding_box()
        assert chart["y"] < PROJECTOR["height"], "the step's figure starts below the projected screen"
        page.screenshot(path=str(SCREENSHOTS / f"lesson_{code}.png"))

        text = page.locator("[data-testid='stMain']").inner_text()
        assert cjk_share([text]) > 0.5, text[:300]
        assert not [run for run in english_runs(text)], english_runs(text)[:10]

        page.wait_for_function("() => /[?&]step=1(&|$)/.test(location.search)", timeout=60_000)  # the lesson ran
        _settled(page)
        page.locator("h2").first.click()  # the keyboard goes to the page, not to a widget
        second_title = _press_and_wait(page, "ArrowRight", 2, first_title)
        assert _step(page) == 2 and cjk_share([second_title]) > 0.5
        assert _press_and_wait(page, "ArrowLeft", 1, second_title) == first_title and _step(page) == 1
        assert not exceptions_on_page(page)
    finally:
        context.close()
