"""Figures follow Streamlit's light or dark theme in a real Chromium: a reader whose system prefers dark (Streamlit's
default theme follows it) sees figures on the app's own dark background with light text from the first load, one on
an app served with the dark theme (`--theme.base dark`) from the first rerun on; a slide style stays as chosen.
Screenshots go to build/screenshots/ to look at."""

from __future__ import annotations

import pytest

from bench.app_server import running_app
from tests.browser.conftest import SCREENSHOTS, _require_browser
from tests.browser.helpers import exceptions_on_page, runs, wait_until_drawn

pytestmark = pytest.mark.browser

# The colours every drawn figure has, and the app's background behind them, as "rgb(r, g, b)".
COLOURS = """() => {
  const rgb = colour => {
    const probe = document.createElement('div');
    probe.style.color = colour;
    document.body.appendChild(probe);
    const value = getComputedStyle(probe).color;
    probe.remove();
    return value;
  };
  const app = getComputedStyle(document.querySelector("[data-testid='stApp']")).backgroundColor;
  const figures = [...document.querySelectorAll('.js-plotly-plot')].map(gd => ({
    paper: rgb(gd._fullLayout.paper_bgcolor), text: rgb(gd._fullLayout.font.color),
  }));
  return {app, figures};
}"""


def brightness(rgb: str) -> float:
    """0 (black) to 1 (white): the mean channel of 'rgb(r, g, b)'."""
    channels = [int(part) for part in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
    return sum(channels) / (3 * 255)


def colours_on(page, url: str, scheme: str) -> dict:
    page.emulate_media(color_scheme=scheme)
    page.goto(url)
    wait_until_drawn(page)
    assert exceptions_on_page(page) == []
    return page.evaluate(COLOURS)


def test_a_reader_who_prefers_dark_sees_figures_on_the_apps_dark_background(app_url, tab):
    seen = colours_on(tab, f"{app_url}/rope", "dark")
    assert brightness(seen["app"]) < 0.2, f"the app itself is not dark: {seen['app']}"
    assert seen["figures"], "no figure drawn"
    for figure in seen["figures"]:
        assert figure["paper"] == seen["app"], "the figure's background is not the app's"
        assert brightness(figure["text"]) > 0.8
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / "dark-theme-rope.png"))


def test_a_reader_who_prefers_light_sees_white_figures(app_url, tab):
    seen = colours_on(tab, f"{app_url}/rope", "light")
    assert brightness(seen["app"]) > 0.9
    assert all(figure["paper"] == "rgb(255, 255, 255)" for figure in seen["figures"]) and seen["figures"]


def test_a_slide_style_stays_as_chosen_under_the_dark_theme(app_url, tab):
    seen = colours_on(tab, f"{app_url}/alibi?theme=slides-light", "dark")
    assert brightness(seen["app"]) < 0.2
    assert all(figure["paper"] == "rgb(255, 255, 255)" for figure in seen["figures"]) and seen["figures"]


@pytest.fixture(scope="module")
def dark_app_url():
    """The app served with the dark theme set (`--theme.base dark`, as the environment variable Streamlit reads)."""
    _require_browser()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STREAMLIT_THEME_BASE", "dark")
        with running_app() as url:
            patch.delenv("STREAMLIT_THEME_BASE")
            yield url  # started: the apps other tests start get no dark theme


def test_an_app_served_dark_draws_dark_figures_from_the_first_rerun_whatever_the_reader_prefers(dark_app_url, tab):
    """On a session's first run Streamlit reports the reader's system preference, not the theme the app is served
    with (streamlit/streamlit#11920); from the next run on it reports the app's theme, and the figures follow."""
    colours_on(tab, f"{dark_app_url}/rope", "light")
    box = tab.locator("[data-testid='stMain'] [data-testid='stNumberInput'] input:visible").first
    url_before, runs_before = tab.url, runs(tab)
    box.fill("64")
    box.press("Enter")
    tab.wait_for_function("(old) => window.location.href !== old", arg=url_before, timeout=60_000)
    wait_until_drawn(tab, after=runs_before)
    tab.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot')].every(gd => gd._fullLayout.paper_bgcolor !== 'white')",
        timeout=60_000,
    )
    seen = tab.evaluate(COLOURS)
    assert brightness(seen["app"]) < 0.2, f"--theme.base dark did not darken the app: {seen['app']}"
    assert seen["figures"] and all(figure["paper"] == seen["app"] for figure in seen["figures"])
    assert all(brightness(figure["text"]) > 0.8 for figure in seen["figures"])
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / "dark-theme-served-dark.png"))
