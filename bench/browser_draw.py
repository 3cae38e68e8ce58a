"""Time from opening a page (at the largest parameters) to its figures drawn, in headless Chromium.

Two times per page, read from the page's own clock (milliseconds since navigation start):
- first figure: the first Plotly figure is on screen with its data (a "Computing…" placeholder does not count);
- all figures: every figure on the page is drawn and the script run has finished (no status widget).
A page opens as a visitor's link opens it: on its first section (ui.sections). ``run(..., section=ALL)`` opens
"All sections" instead, every figure of the page.
Each page opens in a new tab of one browser whose HTTP cache is warm (a returning visitor), against a server
that has already run the app once, but never these pages at these parameters (so their figures are computed).
The reference app (bench/reference_app.py: one tiny chart) is measured the same way: the floor on this machine.
"""

from __future__ import annotations

import statistics
from urllib.parse import urlencode

from bench.app_server import CHROMIUM_ARGS, running_app

TIMEOUT_S = 60
ROUNDS = 3  # each with a fresh server, so every page's figures are computed in every round
CHARTS = "div[data-testid='stPlotlyChart']"
DRAWN_TRACE = ".main-svg g.trace, .main-svg g.hm"  # a trace group or heatmap image: not a placeholder
# Polls every 10 ms from navigation start; records when the first figure and when every figure was drawn.
RECORDER = f"""
window.__draw = {{first: null, all: null}};
const poll = setInterval(() => {{
  const charts = [...document.querySelectorAll("{CHARTS}")];
  const drawn = charts.filter(c => c.querySelector("{DRAWN_TRACE}")).length;
  if (drawn > 0 && window.__draw.first === null) window.__draw.first = performance.now();
  if (charts.length > 0 && drawn === charts.length && !document.querySelector('[data-testid="stStatusWidget"]')) {{
    window.__draw.all = performance.now();
    clearInterval(poll);
  }}
}}, 10);
"""


def run(pages, query: dict, rounds: int = ROUNDS, section: str | None = None) -> list[dict]:
    """One row per page: median "first_figure_s" and "first_draw_s" (all figures) of ``rounds`` fresh servers,
    with every round's times; None where a figure was not drawn. ``section``: the tab to open (default: first)."""
    query = {**query, "section": section} if section else query
    urls = {page: f"/{'' if page == 'why_position' else page}?{urlencode(query)}" for page in pages}
    measured = [_measure("app.py", "/mrope", urls) for _ in range(rounds)]  # warm-up: mrope at its defaults
    return [_median_of([round_rows[i] for round_rows in measured]) for i in range(len(urls))]


def reference(rounds: int = ROUNDS) -> dict:
    """The same measure for bench/reference_app.py (a title and one tiny chart)."""
    return _median_of([_measure("bench/reference_app.py", "/", {"reference": "/"})[0] for _ in range(rounds)])


def _median_of(rows: list[dict]) -> dict:
    merged = {"page": rows[0]["page"], "rounds": rows}
    for name in ("first_figure_s", "first_draw_s"):
        values = [row[name] for row in rows]
        merged[name] = None if None in values else statistics.median(values)
    return merged


def _measure(script: str, warm_path: str, urls: dict[str, str]) -> list[dict]:
    from playwright.sync_api import sync_playwright

    rows = []
    with running_app(script=script) as base_url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_browser(), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        warm = context.new_page()  # the app's code and plotly.js in the HTTP cache; server imports done
        warm.goto(base_url + warm_path)
        warm.wait_for_selector(f"{CHARTS} .main-svg", state="attached", timeout=120_000)
        warm.close()
        for name, url in urls.items():
            rows.append({"page": name, **_open(context, base_url + url)})
        browser.close()
    return rows


def _open(context, url: str) -> dict:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    tab = context.new_page()
    tab.add_init_script(RECORDER)
    row = {}
    try:
        tab.goto(url)
        tab.wait_for_function("() => window.__draw.all !== null", timeout=TIMEOUT_S * 1000)
    except PlaywrightTimeout:
        row["error"] = f"not every figure drawn within {TIMEOUT_S} s"
    times = tab.evaluate("() => window.__draw")
    tab.close()
    for key, name in (("first", "first_figure_s"), ("all", "first_draw_s")):
        row[name] = round(times[key] / 1000, 2) if times[key] is not None else None
    return row


def _browser() -> str:
    from posenc.drawing.export import find_browser

    return find_browser()
