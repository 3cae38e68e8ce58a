"""The report of bench/first_figure.py: the headline (page, floor, first figure, difference), the breakdown, the
main thread's CPU table, and where they are written (bench/first_figure.md, keeping the reading written by hand
below :data:`KEEP`, and the same tables in bench/results.md between markers)."""

from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path

from bench.app_server import ROOT

KEEP = "<!-- kept: written by hand, below the measured tables -->"


def _fmt(value, digits: int = 0) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def report(floor: dict, rows: dict[str, dict], contexts: int, shared_machine: bool = False) -> str:
    """The markdown tables: the headline (page, floor, first figure, difference) and the breakdown."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    shared = (
        " The machine was **shared with other work** at the time (other sessions building and testing on the same "
        "cores), so absolute times are inflated and noisy; the floor was opened in the same rounds, so the "
        "differences and ratios within this run are what to read."
        if shared_machine
        else ""
    )
    lines = [
        f"Measured {now} on {platform.machine()}, {os.cpu_count()} CPU cores, Python {platform.python_version()}, "
        f"headless Chromium; 1-minute load average {load:.1f} at the end.{shared}",
        "",
        f"Median of {contexts} fresh browser contexts per page (no HTTP cache), each page at its defaults as a "
        "learner's link opens it, on a warmed `posenc app`; floor = bench/reference_app.py (one three-point "
        "chart) opened once per round in the same minutes; *floor + widgets* = the same app and chart behind what "
        "a page sends first, in Streamlit's own elements with nothing computed (`?widgets=1`: a sidebar of four "
        "select boxes, a title, a closed expander with text and formulas, five number inputs and sliders, tabs). "
        "✅: within floor + 0.3 s. *Three-point figures*: the same page, in the same rounds, from a second warmed "
        "server whose figures are each one three-point line of the same height (bench/three_point_figures.py): "
        "its difference to the floor is what the page's first screen costs (Streamlit's elements, the script); "
        "*its figure* = first figure − three-point figures, what the page's own figure costs (its bytes, "
        "plotly.js drawing it).",
        "",
        "| page | floor (s) | first figure (s) | difference (s) | ratio | three-point figures (s) "
        "| first screen (s) | its figure (s) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for page, row in rows.items():
        first, base = row["first_figure"], floor["first_figure"]
        diff = None if first is None else (first - base) / 1000
        ratio = None if first is None else first / base
        mark = "" if diff is None else (" ✅" if diff <= 0.3 else " ❌")
        three = (row.get("three_point") or {}).get("first_figure")
        screen = None if three is None else (three - base) / 1000
        own = None if first is None or three is None else (first - three) / 1000
        lines.append(
            f"| {page} | {_fmt(base / 1000, 2)} | {_fmt(first and first / 1000, 2)} | {_fmt(diff, 2)}{mark} "
            f"| {_fmt(ratio, 2)} | {_fmt(three and three / 1000, 2)} | {_fmt(screen, 2)} | {_fmt(own, 2)} |"
        )
    lines += [
        "",
        "Breakdown (ms from navigation start unless said; kB decompressed; the floor's row first):",
        "",
        "| page | html | static | ws open | 1st msg | fig msg | run→fig | server run→fig | fig→drawn | late static "
        "| drawn | done | kB before | fig kB | kB run | elements before (sb/main, blocks) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for page, row in {"floor": floor, **rows}.items():
        lines.append(
            f"| {page} | {_fmt(row['html'])} | {_fmt(row['static'])} | {_fmt(row['ws'])} | {_fmt(row['msg1'])} "
            f"| {_fmt(row['fig_msg'])} | {_fmt(row['run_to_fig'])} | {_fmt(row.get('server_fig'))} "
            f"| {_fmt(row['fig_to_draw'])} "
            f"| {_fmt(row['late_static'])} | {_fmt(row['first_figure'])} | {_fmt(row['done'])} "
            f"| {_fmt(row['kB_before'], 1)} | {_fmt(row['fig_kB'], 1)} | {_fmt(row['kB_run'], 1)} "
            f"| {_fmt(row['elements'])} ({_fmt(row['sb'])}/{_fmt(row['main'])}, {_fmt(row['blocks'])}) |"
        )
    lines += cpu_table(floor, rows)
    errors = {page: row["errors"] for page, row in {"floor": floor, **rows}.items() if row["errors"]}
    if errors:
        lines += ["", "Contexts that did not draw a figure: " + "; ".join(f"{p}: {e[0]}" for p, e in errors.items())]
    return "\n".join(lines) + "\n"


CPU_HEADINGS = {
    "scripts": "scripts evaluated",
    "react": "React",
    "other_js": "other JS",
    "layout": "style, layout",
    "network": "network",
    "other": "other",
}


def cpu_table(floor: dict, rows: dict[str, dict]) -> list[str]:
    """The main thread's CPU time until the first figure, by kind of work, against the floor's (no lines when no
    round was traced)."""
    base = floor.get("cpu")
    if base is None:
        return []
    lines = [
        "",
        "The browser's main thread until the first figure is drawn, in CPU time (ms; Chromium's trace, thread time "
        "of each task, median of the traced contexts; bench/main_thread.py): *scripts evaluated* is JavaScript run "
        "as it arrives (Streamlit's bundle, each element's chunk, plotly.js's 4.7 MB), *React* Streamlit drawing "
        "its elements, *other JS* callbacks and promise jobs (plotly.js drawing the figure among them). *Three-point "
        "figures*: the same page with its figures as three points (above); *its figure*: the CPU the page's own "
        "figure adds to that.",
        "",
        "| page | CPU (ms) | vs floor | " + " | ".join(CPU_HEADINGS.values()) + " | three-point figures | its figure |",
        "|---|---|---|" + "---|" * len(CPU_HEADINGS) + "---|---|",
    ]
    for page, row in {"floor": floor, **rows}.items():
        cpu = row.get("cpu")
        three = ((row.get("three_point") or {}).get("cpu") or {}).get("total")
        if cpu is None:
            lines.append(f"| {page} | – | – |" + " – |" * len(CPU_HEADINGS) + f" {_fmt(three)} | – |")
            continue
        kinds = " | ".join(_fmt(cpu[kind]) for kind in CPU_HEADINGS)
        own = "–" if three is None else f"{cpu['total'] - three:+.0f}"
        lines.append(
            f"| {page} | {_fmt(cpu['total'])} | {cpu['total'] - base['total']:+.0f} | {kinds} | {_fmt(three)} | {own} |"
        )
    return lines


def write(path: Path, tables: str) -> None:
    """Write ``tables`` to ``path``, keeping what follows :data:`KEEP` in the file (the reading of the numbers,
    written by hand)."""
    kept = ""
    if path.exists() and KEEP in path.read_text():
        kept = "\n" + path.read_text()[path.read_text().index(KEEP) :]
    path.write_text(f"# A new learner's first figure against Streamlit's floor\n\n{tables}{kept}")


SECTION = "first-figure"  # bench/results.md holds the same tables between <!-- first-figure:start/end --> lines
RESULTS_MD = ROOT / "bench" / "results.md"


def put_section(path: Path, tables: str, marker: str = SECTION) -> None:
    """``tables`` between ``path``'s ``<!-- MARKER:start -->`` and ``<!-- MARKER:end -->`` lines (appended with
    them if the file has none): the first figure's breakdown beside the rest of the bench's results."""
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    text = path.read_text() if path.exists() else ""
    heading = "## A new learner's first figure beside Streamlit's floor (bench/first_figure.py)"
    section = f"{start}\n{heading}\n\n{tables}{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + section + "\n"
    path.write_text(text)
