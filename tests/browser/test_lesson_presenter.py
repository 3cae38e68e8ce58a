"""A lesson as a teacher presents it: opened from its link in presenter mode, in Korean and in Chinese, stepped
through with the keyboard; its screenshots are the README's."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from posenc.lessons.reader import load_lessons
from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import exceptions_on_page, runs, wait_until_drawn
from tests.prose import cjk_share, english_runs

pytestmark = pytest.mark.browser
PROJECTOR = {"width": 1280, "height": 800}  # a common projector resolution (WXGA)
BUTTONS = {"ArrowRight": "lesson-next", "ArrowLeft": "lesson-previous"}  # the keys of the buttons with the shortcuts
LESSONS = load_lessons()


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


SCREEN = {"width": 1280, "height": 720}  # the smallest common projector picture (720p)
STEP_STATE = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const title = document.querySelector('h2');
  return {
    overflow: main.scrollHeight - main.clientHeight,
    scrollTop: main.scrollTop,
    titleTop: title ? title.getBoundingClientRect().top : null,
    open: [...document.querySelectorAll('[data-testid="stExpander"] details')].filter(box => box.open).length,
    chosen: [...document.querySelectorAll('input[type="radio"]')].filter(option => option.checked).length,
  };
}"""
FITS = f"() => ({STEP_STATE})().overflow <= 0"  # nothing to scroll in the main area
# What stands in the page's main block, top to bottom (its test id, its key, where it starts and how tall it is): said
# when a step does not fit, so that the failure names what took the room.
MAIN_BLOCK = """() => [...document.querySelectorAll(
    '[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"] > *')].map(element => {
  const box = element.getBoundingClientRect();
  const key = [...element.classList].find(name => name.startsWith("st-key-")) || "";
  const inner = element.querySelector("[data-testid]");
  const id = element.dataset.testid + (inner ? "/" + inner.dataset.testid : "");
  return `${id} ${key} top=${Math.round(box.top)} h=${Math.round(box.height)} ${getComputedStyle(element).position}`;
})"""
FIGURE_IN_VIEW = """() => {
  const chart = document.querySelector('.st-key-lesson-picture [data-testid="stPlotlyChart"]');
  if (!chart) return false;
  const box = chart.getBoundingClientRect();
  return box.top >= -1 && box.bottom <= window.innerHeight + 1;  // within a pixel: layout has fractions of one
}"""

ANSWER_IN_VIEW = """() => {
  const answer = document.querySelector('[class*="st-key-answer-"] details[open]');
  const text = answer && answer.querySelector('[data-testid="stExpanderDetails"] [data-testid="stMarkdownContainer"]');
  if (!text || !text.getBoundingClientRect().height) return false;  // open, its answer drawn
  const box = answer.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight;
}"""


def _open_step(page, step, code: str, after: int = 0) -> None:
    """Wait for ``step`` to be shown: its number in the link, its title, the run over (a run later than ``after``),
    its figure drawn (when it shows one before Check)."""
    page.wait_for_function(f"() => /[?&]step={step.number}(&|$)/.test(location.search)", timeout=60_000)
    page.wait_for_function(
        "title => { const h = document.querySelector('h2'); return h && h.innerText.trim() === title; }",
        arg=step.title[code],
        timeout=60_000,
    )
    _settled(page)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=60_000)
    wait_until_drawn(page, after=after)  # the run over: its charts drawn (none while a prediction hides the figure)
    page.evaluate("() => document.fonts.ready.then(() => true)")  # text laid out in its own font, not a fallback


def _fits(page, where: str) -> None:
    """The step fits the screen: nothing to scroll in the page's main area, waited for up to 10 s, and when it does
    not fit, the failure lists what stands in the page, top to bottom. Under the flake check a lesson's first step read
    61 px too tall once in about 30 runs of the whole suite (at 094822b): exactly the room the "Leave presenter mode"
    button takes when it stands in the page's flow (54 px and the gap above it; measured by making it static), which
    presenter mode's style takes out of the flow (``position: fixed``). Whether that was a moment's layout or a state
    that stays is not known; a moment's passes this wait, a state that stays fails it and names the element."""
    try:
        page.wait_for_function(FITS, timeout=10_000)
    except PlaywrightTimeout:
        state = page.evaluate(STEP_STATE)
        parts = "\n".join(page.evaluate(MAIN_BLOCK))
        pytest.fail(f"{where} is {state['overflow']} px taller than the screen; the page, top to bottom:\n{parts}")


def _in_view(page, failure: str) -> None:
    """The revealed figure comes into view: the lesson's script keeps it there while the chart is laid out (a chart
    drawn after the script ran changes the picture's height), so this waits for the layout, not for a time."""
    try:
        page.wait_for_function(FIGURE_IN_VIEW, timeout=10_000)
    except PlaywrightTimeout:
        pytest.fail(failure)


def _check(page, step) -> None:
    """Pick the right prediction, press Check, wait for the figure that Check reveals."""
    page.locator("[data-testid='stRadio'] [role='radiogroup'] label").nth(step.predict.correct).click()
    _settled(page)
    before = runs(page)
    page.locator("[class*='st-key-check-'] button").click()
    page.wait_for_selector("[class*='st-key-check-']", state="detached", timeout=60_000)
    _settled(page)
    wait_until_drawn(page, after=before)


def test_a_lesson_in_presenter_mode_fits_a_720p_screen_step_by_step(app_url, browser):
    """Two lessons stepped through in presenter mode at 1280 x 720 (the first, absolute, in English; the newest,
    long_context, in Korean; a third would cost ~15 s): every step fits the screen, opens at its top with nothing
    revealed (the answer opened on the step before is closed), → moves on with a prediction option focused; Check on
    every other prediction shows the figure in view, the step still fitting, and the answer opened there is brought
    into view. Then on a desktop screen, where a step is taller than the window: Check scrolls to the figure and Next
    opens the next step at its top."""
    context = browser.new_context(viewport=SCREEN)
    page = context.new_page()
    try:
        checked = 0
        for lesson_id, code in (("absolute", "en"), ("long_context", "ko")):
            lesson = LESSONS[lesson_id]
            page.goto(f"{app_url}/?lesson={lesson_id}&lang={code}&present=1")
            before = 0  # a page opened afresh counts its runs from 1
            for step in lesson.steps:
                _open_step(page, step, code, after=before)
                where = f"{lesson_id} step {step.number} ({code})"
                _fits(page, where)
                state = page.evaluate(STEP_STATE)
                assert state["scrollTop"] == 0 and 0 <= state["titleTop"] < 200, f"{where} opens scrolled: {state}"
                assert state["open"] == 0 and state["chosen"] == 0, f"{where} opens with something revealed: {state}"
                last = step.number == len(lesson.steps)
                if step.predict is not None and checked % 2 == 0:
                    _check(page, step)
                    _fits(page, f"{where}, checked,")
                    _in_view(page, f"{where}: Check left the figure out of view")
                if step.predict is not None:
                    checked += 1
                page.screenshot(path=str(SCREENSHOTS / f"lesson_720p_{lesson_id}_{step.number}_{code}.png"))
                if last:
                    break
                answer = page.locator("[class*='st-key-answer-'] summary")
                if answer.count():  # the answer (in presenter mode, once Check was pressed), left open
                    answer.click()
                    page.wait_for_function(ANSWER_IN_VIEW, timeout=10_000)
                page.wait_for_selector(".st-key-lesson-next button:not([disabled])")
                option = page.locator("[data-testid='stRadio'] input[type='radio']")
                if option.count():  # a prediction not checked: → leaves it, choosing nothing
                    option.first.focus()
                    assert page.evaluate("() => document.activeElement.type") == "radio"
                before = runs(page)
                page.keyboard.press("ArrowRight")
        assert not exceptions_on_page(page)

        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(f"{app_url}/?lesson=absolute&step=3&lang=en")  # a desktop screen: one thing under another
        step = LESSONS["absolute"].steps[2]
        _open_step(page, step, "en")
        assert not page.evaluate(FIGURE_IN_VIEW)
        _check(page, step)
        page.wait_for_function(FIGURE_IN_VIEW, timeout=10_000)  # Check brought the figure into view
        assert page.evaluate(STEP_STATE)["scrollTop"] > 0
        before = runs(page)
        page.locator(".st-key-lesson-next button").click()
        _open_step(page, LESSONS["absolute"].steps[3], "en", after=before)
        state = page.evaluate(STEP_STATE)
        assert state["scrollTop"] == 0 and state["open"] == 0, state
    finally:
        context.close()
