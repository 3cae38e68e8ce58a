"""Time from opening a page (at the largest parameters) to every Plotly figure drawn, in headless Chromium."""

from __future__ import annotations

import time
from urllib.parse import urlencode

from tests.browser.server import CHROMIUM_ARGS, running_app

DRAWN = "div[data-testid='stPlotlyChart'] .main-svg"
TIMEOUT_S = 60


def run(pages, query: dict) -> list[dict]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    rows = []
    with running_app() as base_url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_browser(), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        warm = context.new_page()
        warm.goto(f"{base_url}/?{urlencode(query)}")
        warm.wait_for_selector(DRAWN, state="attached", timeout=120_000)  # plotly bundle cached, server warm
        for page in pages:
            tab = context.new_page()
            path = "" if page == "why_position" else page
            started = time.perf_counter()
            try:
                _open_and_wait(tab, f"{base_url}/{path}?{urlencode(query)}")
            except PlaywrightTimeout:
                rows.append({"page": page, "first_draw_s": None, "error": f"not drawn within {TIMEOUT_S} s"})
                tab.close()
                continue
            rows.append({"page": page, "first_draw_s": round(time.perf_counter() - started, 2)})
            tab.close()
        browser.close()
    return rows


def _open_and_wait(tab, url: str) -> None:
    tab.goto(url)
    tab.wait_for_selector(DRAWN, state="attached", timeout=TIMEOUT_S * 1000)
    tab.wait_for_function(
        "() => { const charts = document.querySelectorAll(\"div[data-testid='stPlotlyChart']\");"
        " return charts.length > 0 && [...charts].every(c => c.querySelector('.main-svg'))"
        " && !document.querySelector('[data-testid=\"stStatusWidget\"]'); }",
        timeout=TIMEOUT_S * 1000,
    )


def _browser() -> str:
    from figures.export import find_browser

    return find_browser()
