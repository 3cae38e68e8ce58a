"""The app in a real Chromium: a control changes its figures and the address bar, a fresh browser opening that link
draws the same figures, the modebar and the export menu download real images, and no console error or Python
exception appears. (That every page opens and draws its figures is test_first_screens', which visits them all.)

The link round trip is one mechanism (posenc.ui's query parameters) shared by every page, and each page's own round
trip is its AppTest's (tests/pages/test_<page>.py: a link restores every parameter). In the browser it runs on one
page of each kind: a number box in the first section (rope), a first section of sliders only, so that the test
opens every section to find a box (mrope), controls inside an expander over the heaviest figures
(context_extension), and a page whose figures read a table (learned)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from posenc.ui.navigation import URL_PATHS
from posenc.ui.sections import ALL
from tests.browser.helpers import CHART, fingerprint, png_size, runs, wait_until_drawn

pytestmark = pytest.mark.browser


ROUND_TRIP_PAGES = ("rope", "mrope", "context_extension", "learned")


@pytest.mark.parametrize("page_name", ROUND_TRIP_PAGES)
def test_a_control_changes_the_figure_and_the_link_restores_it(app_url, browser, tab, page_name):
    tab.goto(f"{app_url}/{URL_PATHS[page_name]}")  # as a link opens it: its first section (AppTest covers the rest)
    wait_until_drawn(tab)
    boxes = tab.locator("[data-testid='stMain'] [data-testid='stNumberInput'] input:visible")
    if boxes.count() == 0:  # the first section has sliders only: every section, to find a number box
        tab.goto(f"{app_url}/{URL_PATHS[page_name]}?section={quote(ALL)}")
        wait_until_drawn(tab)
    before = fingerprint(tab)
    box = boxes.first
    url_before, runs_before = tab.url, runs(tab)
    box.fill(str(_another_value(box.input_value())))
    box.press("Enter")
    tab.wait_for_function("(old) => window.location.href !== old", arg=url_before, timeout=60_000)
    wait_until_drawn(tab, after=runs_before)
    after = fingerprint(tab)
    assert after != before, "changing the first number control did not change any figure"
    shared = tab.url
    assert "preset=" in shared
    other = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    other.goto(shared)
    wait_until_drawn(other)
    assert fingerprint(other) == after, "the shared link did not reproduce the view"
    other.context.close()


def _another_value(current: str) -> int | float:
    value = float(current)
    changed = value * 2 if value else 1
    return int(changed) if value.is_integer() else changed


def test_a_tab_draws_its_section_and_its_link_opens_it(app_url, browser, tab):
    tab.goto(f"{app_url}/rope")
    wait_until_drawn(tab)
    assert tab.locator(CHART).count() == 1  # only the first section ("Which channels rotate together")
    url_before, runs_before = tab.url, runs(tab)
    tab.get_by_role("tab", name="Rotation angles and wavelengths").click()
    tab.wait_for_function("(old) => window.location.href !== old", arg=url_before, timeout=60_000)
    wait_until_drawn(tab, after=runs_before)
    assert "section=Rotation" in tab.url
    shown = fingerprint(tab)
    assert len(shown) == 2 and "RoPE angle" in shown[0] and "wavelength" in shown[1]
    other = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    other.goto(tab.url)
    wait_until_drawn(other)
    assert fingerprint(other) == shown, "the link did not open the same section"
    other.context.close()


def test_modebar_and_export_menu_download_real_pngs(app_url, tab):
    tab.goto(f"{app_url}/rope")
    wait_until_drawn(tab)
    chart = tab.locator("div[data-testid='stPlotlyChart']").first
    chart.hover()
    with tab.expect_download() as modebar:
        chart.locator(".modebar-btn[data-title='Download plot as a PNG']").click()
    download = modebar.value
    assert download.suggested_filename.startswith("rope-") and download.suggested_filename.endswith(".png")
    width, _ = png_size(Path(download.path()).read_bytes())
    assert width >= 2 * 600, "the modebar PNG is exported at 2x"

    runs_before = runs(tab)
    tab.get_by_role("button", name="⬇️ Export").first.click()  # opening the menu reruns the page to draw it:
    wait_until_drawn(tab, after=runs_before)  # a click during that run may land on a button about to be replaced
    with tab.expect_download(timeout=60_000) as exported:
        tab.get_by_role("button", name="PNG (2x) (.png)").first.click()
    content = Path(exported.value.path()).read_bytes()
    assert png_size(content) == (2400, png_size(content)[1])
    assert exported.value.suggested_filename.startswith("rope-")
