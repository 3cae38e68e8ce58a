"""Each page's first figure drawn alone by plotly.js, against three points: what the figure itself costs to draw.

    python -m bench.figure_alone [--contexts 5] [--pages rope,sinusoidal]

Opens every page once at its defaults on a fresh ``streamlit run app.py`` and keeps the first figure the server
sends (the first ``plotly_chart`` message that is not a "Computing…" frame, whose config is ``staticPlot``). Then
each figure is drawn in a blank page holding only plotly.js (the copy in the Python ``plotly`` package; Streamlit's
frontend bundles its own build of a close version), in ``--contexts`` fresh browser contexts, after one tiny plot
so that plotly.js's own start-up is not counted: ``Plotly.newPlot``'s time until its promise resolves, median over
the contexts, beside the same for a three-point line (bench/reference_app.py's chart). bench/first_figure.py
measures the same pages inside Streamlit; this leaves out everything but the figure.
"""

from __future__ import annotations

import argparse
import base64
import json
import statistics
import sys
from pathlib import Path

from bench.app_server import CHROMIUM_ARGS, running_app
from bench.first_figure import DRAWN
from bench.server_clock import is_figure

CONTEXTS = 5
THREE_POINTS = {"data": [{"type": "scatter", "y": [1, 3, 2]}], "layout": {"height": 450}}
# a figure drawn, or the run's end mark (ui.run_marker) saying it drew none (the glossary)
DRAWN_OR_NONE = """drawn => document.querySelector(drawn) !== null
  || document.querySelector("div.posenc-ran[data-charts='0']") !== null"""
DRAW = """async ([spec, config]) => {
  const figure = JSON.parse(spec);
  const started = performance.now();
  await Plotly.newPlot("g", figure.data, figure.layout || {}, JSON.parse(config || "{}"));
  return performance.now() - started;
}"""


def first_figure(frames: list[bytes]) -> dict[str, str] | None:
    """The first figure among a run's messages (each a ``ForwardMsg``'s bytes): its ``spec`` and ``config`` (JSON),
    leaving out a placeholder frame (``staticPlot`` in its config); None without one."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    for raw in frames:
        msg = ForwardMsg()
        msg.ParseFromString(raw)
        chart = msg.delta.new_element.plotly_chart if is_figure(msg) else None
        if chart is not None and not json.loads(chart.config or "{}").get("staticPlot"):
            return {"spec": chart.spec, "config": chart.config}
    return None


def grab(browser, base_url: str, pages: list[str]) -> dict[str, dict[str, str]]:
    """Each page's first figure, as its first visit receives it."""
    from posenc.ui.navigation import URL_PATHS

    figures = {}
    for page_name in pages:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        frames: list[bytes] = []

        def received(event, frames=frames) -> None:
            if event["response"].get("opcode") == 2:  # binary: a ForwardMsg
                frames.append(base64.b64decode(event["response"]["payloadData"]))

        cdp.on("Network.webSocketFrameReceived", received)
        cdp.send("Network.enable")
        page.goto(f"{base_url}/{URL_PATHS[page_name]}")
        page.wait_for_function(DRAWN_OR_NONE, arg=DRAWN, timeout=60_000)
        context.close()
        found = first_figure(frames)
        if found is not None:
            figures[page_name] = found
    return figures


def draw_ms(browser, plotly_js: str, figure: dict[str, str], contexts: int) -> float:
    """Median ms of ``Plotly.newPlot`` drawing ``figure`` in a blank page, over ``contexts`` fresh contexts."""
    times = []
    for _ in range(contexts):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_content("<div id='g' style='width:1200px'></div>")
        page.add_script_tag(content=plotly_js)
        page.evaluate("() => Plotly.newPlot('g', [{y: [0, 1]}]).then(() => Plotly.purge('g'))")  # plotly.js warm
        times.append(page.evaluate(DRAW, [figure["spec"], figure.get("config") or "{}"]))
        context.close()
    return statistics.median(times)


def table(times: dict[str, float], sizes: dict[str, int]) -> str:
    """Markdown: page, the figure's JSON in kB, its draw time, and the difference to three points (the row
    ``three points``)."""
    base = times["three points"]
    lines = ["| page | figure kB | drawn alone (ms) | vs three points (ms) |", "|---|---|---|---|"]
    for name, ms in sorted(times.items(), key=lambda item: item[1]):
        lines.append(f"| {name} | {sizes[name] / 1000:.1f} | {ms:.0f} | {ms - base:+.0f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    import plotly
    from playwright.sync_api import sync_playwright

    from posenc.drawing.export import find_browser
    from posenc.ui.navigation import PAGE_NAMES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=CONTEXTS)
    parser.add_argument("--pages", default=",".join(PAGE_NAMES), help="comma-separated page names")
    args = parser.parse_args(argv)
    pages = [p for p in args.pages.split(",") if p]
    unknown = sorted(set(pages) - set(PAGE_NAMES))
    if unknown or args.contexts < 1:
        parser.error(f"--pages: one of {', '.join(PAGE_NAMES)}; --contexts: 1 or more")
    plotly_js = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text()
    with running_app() as base_url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_browser(), args=CHROMIUM_ARGS)
        figures = grab(browser, base_url, pages) | {"three points": {"spec": json.dumps(THREE_POINTS), "config": ""}}
        times = {name: draw_ms(browser, plotly_js, figure, args.contexts) for name, figure in figures.items()}
        browser.close()
    print(table(times, {name: len(figure["spec"]) for name, figure in figures.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
