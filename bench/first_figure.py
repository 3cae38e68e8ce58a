"""Where a new learner's first figure spends its time: every page against Streamlit's floor, in one run.

    python -m bench.first_figure [--contexts 5] [--cpu-contexts 3] [--pages rope,sinusoidal]
        [--out bench/first_figure.md]

Two servers start in the same run: a warmed ``posenc app`` (its warm-up, ``POSENC_WARMUP=pages``, has opened every
page at its defaults in every language before anything is measured) and the floor, bench/reference_app.py (a
title and one three-point chart). Each page opens at its defaults, as a learner's link opens it, in a fresh
Chromium context (no HTTP cache, no cookies: a new visitor), ``--contexts`` times; the floor is opened once per
round in the same minutes, so the two meet the same load on the machine. A third server, warmed the same way,
serves every page with its figures swapped for three points (bench/three_point_figures.py), opened in the same
rounds: the same first screen and script with the floor's figure, which splits a page's difference into its
first screen's and its own figure's. Every number is a median over the contexts.

The time until the first figure is drawn is split with the browser's own clocks (all in ms from navigation
start; the Chrome DevTools Protocol's network timestamps are taken from the document's request):
- ``html``: the page's HTML received (Navigation Timing ``responseEnd``);
- ``static``: the last static file asked for before the websocket opened has arrived (Resource Timing);
- ``ws``: the websocket's handshake answered (CDP ``Network.webSocketHandshakeResponseReceived``);
- ``msg1``: Streamlit's first message of the run received; ``fig_msg``: the message holding the first
  ``plotly_chart`` received; ``done``: ``script_finished`` received (CDP ``Network.webSocketFrameReceived``,
  each frame decoded as a ``ForwardMsg``);
- ``run_to_fig``: ``fig_msg - msg1``, as the page took the two messages in (the browser reports a websocket
  message when its main thread handles it, so a busy page takes its messages in late);
- ``server_fig``: the same two messages handed to the websocket on the server, ms apart (bench/server_clock.py):
  the script's work until its first figure, and Streamlit's sending;
- ``fig_to_draw``: the first figure drawn (a ``g.trace`` or heatmap in its ``.main-svg``, seen by a
  MutationObserver) minus ``fig_msg``: React, plotly.js's chunk if not loaded yet, its parse and layout;
- ``kB_before`` / ``fig_kB`` / ``kB_run``: the messages' bytes (decompressed) before the figure's message, that
  message, the whole run; ``elements``: what Streamlit was sent before the first figure (elements and blocks:
  sidebar ``sb``, main ``main``) and ``blocks`` the containers among them (expanders, tabs, columns).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from bench import main_thread
from bench.app_server import CHROMIUM_ARGS, ROOT, free_port, running_app, stop, wait_healthy
from bench.first_figure_report import RESULTS_MD, put_section, report, write

CONTEXTS = 5
CPU_CONTEXTS = 3
OUT = ROOT / "bench" / "first_figure.md"
TIMEOUT_S = 60
DRAWN = "div[data-testid='stPlotlyChart'] .main-svg g.trace, div[data-testid='stPlotlyChart'] .main-svg g.hm"
# Records, from navigation start, when the first chart container, its main svg and its first drawn trace appear.
OBSERVER = f"""
window.__ff = {{chart: null, svg: null, drawn: null}};
const __ffCheck = () => {{
  const f = window.__ff;
  if (f.chart === null && document.querySelector("div[data-testid='stPlotlyChart']")) f.chart = performance.now();
  if (f.svg === null && document.querySelector("div[data-testid='stPlotlyChart'] .main-svg")) f.svg = performance.now();
  if (f.drawn === null && document.querySelector("{DRAWN}")) {{ f.drawn = performance.now(); __ffObs.disconnect(); }}
}};
const __ffObs = new MutationObserver(__ffCheck);
document.addEventListener("DOMContentLoaded", () => {{
  __ffObs.observe(document.body, {{childList: true, subtree: true}});
  __ffCheck();
}});
"""
# The first figure drawn, or the run finished without a chart (the glossary: ui.run_marker's mark says 0 charts).
DRAWN_OR_NONE = """() => window.__ff && (window.__ff.drawn !== null
  || document.querySelector("div.posenc-ran[data-charts='0']") !== null)"""
TIMING = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const res = performance.getEntriesByType("resource").map(r => ({
    name: r.name, start: r.startTime, end: r.responseEnd, bytes: r.encodedBodySize, type: r.initiatorType}));
  return {html: nav.responseEnd, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, res, ff: window.__ff};
}"""
PARTS = (
    "first_figure",
    "html",
    "static",
    "ws",
    "msg1",
    "fig_msg",
    "done",
    "run_to_fig",
    "server_fig",
    "fig_to_draw",
    "late_static",
    "kB_before",
    "fig_kB",
    "kB_run",
    "elements",
    "blocks",
    "sb",
    "main",
)


@contextlib.contextmanager
def warmed_app(level: str = "pages", timeout: float = 600.0, three_point: bool = False) -> Iterator[tuple[str, Path]]:
    """``posenc app`` on a free loopback port, with the server's clock of bench/server_clock.py, yielded (its URL,
    the clock's log) once its warm-up has finished (its log says so). ``three_point``: every page's figures
    swapped for three points (bench/three_point_figures.py)."""
    port = free_port()
    log_path = ROOT / "build" / f"posenc-app-{port}.log"
    log_path.parent.mkdir(exist_ok=True)
    clock_path = log_path.with_suffix(".clock.jsonl")
    clock_path.unlink(missing_ok=True)
    swap = ["--three-point-figures"] if three_point else []
    command = [sys.executable, "-m", "bench.server_clock", str(clock_path), *swap, "--port", str(port)]
    with log_path.open("w") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "POSENC_WARMUP": level}
        )
        try:
            base_url = f"http://127.0.0.1:{port}"
            wait_healthy(base_url, process, 60)
            deadline = time.monotonic() + timeout
            while "figure cache warmed" not in log_path.read_text():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"posenc app did not finish its warm-up (see {log_path})")
                time.sleep(1)
            yield base_url, clock_path
        finally:
            stop(process)


def messages(frames: list[tuple[float, bytes]]) -> dict:
    """Streamlit's messages of one run, as received (time in ms, the ForwardMsg's bytes): when the first arrived
    (``msg1``), the first ``plotly_chart`` (``fig_msg``, its ``fig_kB``, ``kB_before`` it) and ``script_finished``
    (``done``, ``kB_run`` until then); the elements and blocks sent before the figure, in the sidebar (``sb``) and
    the main area (``main``), ``blocks`` among them, and ``kinds`` by type."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    row: dict = {}
    counts: Counter = Counter()
    seen_bytes = run_bytes = 0
    for at, raw in frames:
        msg = ForwardMsg()
        msg.ParseFromString(raw)
        size = len(raw)
        kind = msg.WhichOneof("type")
        row.setdefault("msg1", at)
        run_bytes += size
        if kind == "script_finished" and "done" not in row:
            row["done"] = at
            row["kB_run"] = run_bytes / 1000
        if "fig_msg" in row:
            continue
        if kind == "delta":
            delta = msg.delta
            what = delta.WhichOneof("type")
            element = delta.new_element.WhichOneof("type") if what == "new_element" else None
            if element == "plotly_chart":
                row |= {"fig_msg": at, "fig_kB": size / 1000, "kB_before": seen_bytes / 1000}
                continue
            root = msg.metadata.delta_path[0] if msg.metadata.delta_path else 0
            counts["sb" if root == 1 else "main"] += 1
            counts["blocks"] += what == "add_block"
            counts[f"{what}:{element or delta.add_block.WhichOneof('type')}"] += 1
        seen_bytes += size
    row["elements"] = counts["sb"] + counts["main"]
    row.update({key: counts[key] for key in ("sb", "main", "blocks")})
    row["kinds"] = dict(counts)
    return row


def open_once(browser, url: str, clock: Path | None = None) -> dict:
    """Open ``url`` in a fresh context; the breakdown of its first figure (ms, kB, counts), with the server's side
    (``server_fig``: its first figure's message handed to the websocket, ms after the run's first) when ``clock``
    names the log of the server's clock (bench/server_clock.py)."""
    clocked = len(clock.read_text().splitlines()) if clock and clock.exists() else 0
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.add_init_script(OBSERVER)
    cdp = context.new_cdp_session(page)
    events: dict = {"doc": None, "ws": None, "frames": []}

    def request(event):
        if event.get("type") == "Document" and events["doc"] is None:
            events["doc"] = event["timestamp"]

    def handshake(event):
        if events["ws"] is None:
            events["ws"] = event["timestamp"]

    def frame(event):
        response = event["response"]
        if response.get("opcode") == 2:
            events["frames"].append((event["timestamp"], response["payloadData"]))

    cdp.on("Network.requestWillBeSent", request)
    cdp.on("Network.webSocketHandshakeResponseReceived", handshake)
    cdp.on("Network.webSocketFrameReceived", frame)
    cdp.send("Network.enable")
    row: dict = {}
    try:
        page.goto(url)
        page.wait_for_function(DRAWN_OR_NONE, timeout=TIMEOUT_S * 1000)
        page.wait_for_timeout(300)  # the run's last messages (script_finished) arrive after the figure's
    except Exception as error:  # a page without a figure, or one that failed: recorded, not fatal
        row["error"] = str(error).splitlines()[0]
    timing = page.evaluate(TIMING)
    context.close()
    if clock is not None and clock.exists():
        fresh = clock.read_text().splitlines()[clocked:]
        row["server_fig"] = json.loads(fresh[0])["figure_ms"] if fresh else None

    doc = events["doc"]
    ms = lambda ts: (ts - doc) * 1000  # noqa: E731
    row["html"] = timing["html"]
    row["first_figure"] = timing["ff"]["drawn"]
    row["ws"] = ms(events["ws"]) if events["ws"] else None
    before_ws = [r for r in timing["res"] if row["ws"] is None or r["start"] < row["ws"]]
    row["static"] = max((r["end"] for r in before_ws), default=timing["html"])
    row |= messages([(ms(ts), base64.b64decode(payload)) for ts, payload in events["frames"]])
    if "fig_msg" in row:
        row["run_to_fig"] = row["fig_msg"] - row["msg1"]
        late = [r for r in timing["res"] if r["start"] >= row["ws"]]
        row["late"] = [(r["name"].rsplit("/", 1)[-1], round(r["start"]), round(r["end"]), r["bytes"]) for r in late]
        row["late_static"] = max((r["end"] for r in late), default=row["fig_msg"]) - row["fig_msg"] if late else 0.0
        if row["first_figure"] is not None:
            row["fig_to_draw"] = row["first_figure"] - row["fig_msg"]
    return row


def cpu_once(browser, url: str) -> dict[str, float] | None:
    """Open ``url`` in a fresh context under Chromium's trace: the main thread's CPU time (ms) until the first figure
    is drawn, by kind of work (:func:`bench.main_thread.split`); None for a page without a figure or one that did
    not draw."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.add_init_script(OBSERVER)
    browser.start_tracing(page=page, categories=list(main_thread.CATEGORIES))
    drawn = None
    try:
        page.goto(url)
        page.wait_for_function(DRAWN_OR_NONE, timeout=TIMEOUT_S * 1000)
        drawn = page.evaluate("() => window.__ff.drawn")
    except Exception as error:  # a page that failed to draw is left out of the medians, as open_once records it
        print(f"traced {url}: {str(error).splitlines()[0]}", flush=True)
    finally:
        trace = json.loads(browser.stop_tracing())
        context.close()
    if drawn is None:
        return None
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    return main_thread.split(events, drawn)


def median_cpu(rows: list[dict[str, float] | None]) -> dict[str, float] | None:
    """Each kind's median over the contexts that drew a figure."""
    rows = [row for row in rows if row is not None]
    return {key: statistics.median(row[key] for row in rows) for key in rows[0]} if rows else None


def median_row(rows: list[dict]) -> dict:
    merged: dict = {"n": len(rows), "errors": [r["error"] for r in rows if "error" in r]}
    for part in PARTS:
        values = [r[part] for r in rows if r.get(part) is not None]
        merged[part] = statistics.median(values) if values else None
    merged["kinds"] = rows[-1].get("kinds", {})
    merged["late"] = rows[-1].get("late", [])
    return merged


def measure(pages: list[str], contexts: int, cpu_contexts: int = 0) -> tuple[dict, dict[str, dict]]:
    """(floor, {page: breakdown}): medians over ``contexts`` fresh contexts, the floor opened once per round, and
    once per round the floor behind a page's kind of controls ("floor + widgets": bench/reference_app.py). Each
    page is opened as well on a second warmed server whose figures are three points
    (bench/three_point_figures.py): its breakdown's ``three_point`` is that breakdown. Then, ``cpu_contexts``
    rounds more under Chromium's trace: each breakdown's ``cpu`` is the main thread's CPU time until the first
    figure, by kind of work (medians; None without a figure or a traced round)."""
    from playwright.sync_api import sync_playwright

    from posenc.drawing.export import find_browser
    from posenc.ui.navigation import URL_PATHS

    floor_rows: list[dict] = []
    widget_rows: list[dict] = []
    page_rows: dict[str, list[dict]] = {page: [] for page in pages}
    three_rows: dict[str, list[dict]] = {page: [] for page in pages}
    with (
        warmed_app() as (app_url, clock),
        warmed_app(three_point=True) as (three_url, three_clock),
        running_app(script="bench/reference_app.py") as floor_url,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path=find_browser(), args=CHROMIUM_ARGS)
        for url in (floor_url, app_url, three_url):  # each server's first session (imports, scripts) not timed
            open_once(browser, url + "/")
        for round_ in range(contexts):
            floor_rows.append(open_once(browser, floor_url + "/"))
            widget_rows.append(open_once(browser, floor_url + "/?widgets=1"))
            for page in pages:
                page_rows[page].append(open_once(browser, f"{app_url}/{URL_PATHS[page]}", clock))
                three_rows[page].append(open_once(browser, f"{three_url}/{URL_PATHS[page]}", three_clock))
                print(f"round {round_ + 1}: {page} {page_rows[page][-1].get('first_figure')}", flush=True)
        urls = {"floor": floor_url + "/", "floor + widgets": floor_url + "/?widgets=1"}
        urls |= {page: f"{app_url}/{URL_PATHS[page]}" for page in pages}
        urls |= {f"{page}:three": f"{three_url}/{URL_PATHS[page]}" for page in pages}
        traced: dict[str, list] = {name: [] for name in urls}
        for round_ in range(cpu_contexts):
            for name, url in urls.items():
                traced[name].append(cpu_once(browser, url))
            print(f"traced round {round_ + 1} of {cpu_contexts}", flush=True)
        browser.close()
    rows = {"floor + widgets": median_row(widget_rows)} | {page: median_row(rows) for page, rows in page_rows.items()}
    floor = median_row(floor_rows)
    for name, row in {"floor": floor, **rows}.items():
        row["cpu"] = median_cpu(traced[name])
    for page in pages:
        rows[page]["three_point"] = median_row(three_rows[page]) | {"cpu": median_cpu(traced[f"{page}:three"])}
    return floor, rows


def main(argv: list[str] | None = None) -> int:
    from posenc.ui.navigation import PAGE_NAMES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=CONTEXTS)
    parser.add_argument(
        "--cpu-contexts",
        type=int,
        default=CPU_CONTEXTS,
        help=f"rounds more under Chromium's trace, for the main thread's CPU time (default {CPU_CONTEXTS}; 0: none)",
    )
    parser.add_argument("--pages", default=",".join(PAGE_NAMES), help="comma-separated page names")
    parser.add_argument("--shared-machine", action="store_true", help="say that other work shared the machine")
    parser.add_argument("--out", default=str(OUT), help="the markdown file the tables go to ('' for none)")
    args = parser.parse_args(argv)
    pages = [p for p in args.pages.split(",") if p]
    unknown = sorted(set(pages) - set(PAGE_NAMES))
    if unknown:
        parser.error(f"--pages: unknown page(s) {', '.join(unknown)}; one of {', '.join(PAGE_NAMES)}")
    if args.contexts < 1 or args.cpu_contexts < 0:
        parser.error("--contexts must be 1 or more and --cpu-contexts 0 or more")
    floor, rows = measure(pages, args.contexts, args.cpu_contexts)
    text = report(floor, rows, args.contexts, args.shared_machine)
    print(text)
    if args.out:
        write(Path(args.out), text)
        Path(args.out).with_suffix(".json").write_text(json.dumps({"floor": floor, "pages": rows}, indent=1))
        if Path(args.out).resolve() == OUT.resolve():  # the project's own run: its results page shows it too
            put_section(RESULTS_MD, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
