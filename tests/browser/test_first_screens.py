"""Every page opens on its first figure: at 1440 x 900 the first chart starts on the first screen, without scrolling,
and at phone width (390 x 844) within about a screen and a fifth. Every page draws its figures with no exception and
no console error on the way (the ``tab`` fixture). Each page's first screen at 1440 x 900 is saved for a reader to
look at (``make screenshots`` puts them in docs/screenshots/, which the README shows). One browser tab visits every
page once; the phone check resizes the same tab, which lays the page out as a phone does (controls and columns one
under another). How the figures themselves read on a phone, laid out for one by its User-Agent, is
test_phone_width's."""

from __future__ import annotations

import pytest

from posenc.ui.navigation import PAGES
from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import CHART, exceptions_on_page, wait_until_drawn

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}  # an iPhone 14's CSS viewport
SEEN = 150  # px of the first figure at least on the desktop's first screen: its title and the top of its plot
PHONE_SCREENS = 1.2  # on a phone the first figure starts within this many screens
FIGURELESS = ("glossary",)  # the course's terms in a table: no figure to find

FIRST_CHART_TOP = f"""() => {{
  const chart = document.querySelector("{CHART}");
  return chart === null ? null : chart.getBoundingClientRect().top;
}}"""
# the first chart's plot redrawn at the chart's new width (Plotly follows a resized window on its own)
FIRST_CHART_FITS = f"""() => {{
  const chart = document.querySelector("{CHART}"), svg = chart && chart.querySelector(".main-svg");
  return svg !== null && svg.getBoundingClientRect().width <= chart.getBoundingClientRect().width + 1;
}}"""


def _next_frame(tab) -> None:
    tab.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")


def test_every_page_opens_on_its_first_figure(app_url, tab):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    too_low = []
    for page in PAGES:
        tab.set_viewport_size(DESKTOP)
        tab.goto(f"{app_url}/{page.url_path}")
        wait_until_drawn(tab, where=page.url_path or "home")
        assert exceptions_on_page(tab) == [], page.name
        tab.screenshot(path=str(SCREENSHOTS / f"{page.name}.png"))  # the README shows these (make screenshots)
        top = tab.evaluate(FIRST_CHART_TOP)
        if page.name in FIGURELESS:
            assert top is None, f"{page.name} draws a figure: check it like the others"
            continue
        assert top is not None, f"{page.name}: no figure drawn"
        if top > DESKTOP["height"] - SEEN:
            too_low.append(f"{page.name}: the first figure starts {top:.0f} px down a {DESKTOP['height']} px screen")

        tab.set_viewport_size(PHONE)  # the same page, laid out for a phone: controls and columns one under another
        tab.wait_for_function(FIRST_CHART_FITS, timeout=30_000)
        _next_frame(tab)
        top = tab.evaluate(FIRST_CHART_TOP)
        if top > PHONE_SCREENS * PHONE["height"]:
            screens = top / PHONE["height"]
            too_low.append(f"{page.name}: on a phone the first figure starts {top:.0f} px down ({screens:.2f} screens)")
    assert not too_low, "\n".join(too_low)
