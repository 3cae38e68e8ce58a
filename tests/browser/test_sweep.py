"""A sweep in a real browser: a link's sweep opens playing at frame 1, ⏸ stops it, the slider moves the data, and
the link opened in a fresh browser plays it again, where in presenter mode the space bar pauses and plays it. Waits
on the app's end-of-run mark and on Plotly's own state (the slider's active step), never on a fixed delay."""

from __future__ import annotations

import pytest

from tests.browser.helpers import wait_until_drawn

pytestmark = pytest.mark.browser

QUERY = "sweep=base:10000..1000000:12&section=Rotation+angles+and+wavelengths"
SWEPT = "[class*='st-key-chart-'] .updatemenu-button"
# the swept chart's Plotly state: its slider's active step, its title, and its first trace's data fingerprint
STATE = f"""() => {{
  const gd = document.querySelector("{SWEPT}").closest(".js-plotly-plot");
  const values = gd.data[0].z || gd.data[0].y;  // the heatmap's angles (a curve's y)
  const read = (v) => v && v.bdata !== undefined ? v.bdata : JSON.stringify(v);
  return {{active: gd.layout.sliders[0].active, title: gd.layout.title.text, data: read(values)}};
}}"""
# Plotly's own animation state: no frame queued and none scheduled, so the sweep is standing still
STOPPED = f"""() => {{
  const gd = document.querySelector("{SWEPT}").closest(".js-plotly-plot");
  const queue = gd._transitionData && gd._transitionData._frameQueue;
  return !gd._transitionData._animationRaf && (!queue || queue.length === 0);
}}"""
ACTIVE_AT_LEAST = f"""(step) => {{
  const button = document.querySelector("{SWEPT}");
  const gd = button && button.closest(".js-plotly-plot");
  return gd && gd.layout.sliders && gd.layout.sliders[0].active >= step;
}}"""


def test_a_sweep_link_plays_pauses_the_slider_moves_the_data_and_a_fresh_browser_replays_it(app_url, tab, browser):
    tab.goto(f"{app_url}/rope?{QUERY}")
    wait_until_drawn(tab, where="rope")
    tab.wait_for_function(ACTIVE_AT_LEAST, arg=2, timeout=60_000)  # it plays on its own, from frame 1
    tab.locator(SWEPT).nth(1).click()  # ⏸
    paused = tab.evaluate(STATE)
    tab.wait_for_function(STOPPED, timeout=10_000)
    assert tab.evaluate(STATE)["active"] <= paused["active"] + 1  # stopped where it was (a frame in flight at most)

    rail = tab.locator("[class*='st-key-chart-'] .slider-rail-rect").first
    rail.scroll_into_view_if_needed()
    box = rail.bounding_box()
    tab.mouse.click(box["x"] + 0.02 * box["width"], box["y"] + box["height"] / 2)  # the slider's first step
    back = f"() => {{ const s = ({STATE})(); return s.active === 0 && s.title.includes('base=10000,'); }}"
    tab.wait_for_function(back, timeout=30_000)
    assert tab.evaluate(STATE)["data"] != paused["data"]  # the data moved back with the slider

    assert "sweep=base" in tab.url
    fresh = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        again = fresh.new_page()
        again.goto(f"{tab.url}&present=1")  # on a projector: the space bar plays and pauses
        wait_until_drawn(again, where="rope")
        again.wait_for_function(ACTIVE_AT_LEAST, arg=1, timeout=60_000)
        again.keyboard.press(" ")
        stopped = again.evaluate(STATE)["active"]
        again.wait_for_function(STOPPED, timeout=10_000)
        assert again.evaluate(STATE)["active"] <= stopped + 1
        again.keyboard.press(" ")
        again.wait_for_function(ACTIVE_AT_LEAST, arg=stopped + 2, timeout=30_000)  # playing again
    finally:
        fresh.close()
