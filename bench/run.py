"""`make bench`: measure every page (default and largest parameters), the full-tensor core functions against
seed-style NumPy, and the first draw in headless Chromium; write bench/results.json, bench/results.md and the
README's table.

    python -m bench.run [--skip-browser] [--pages rope,alibi]
    python -m bench.run --lab-only    # the length lab's part only (bench/lab_bench.py), added to the results
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import torch

from bench import core_bench, lab_bench
from bench.browser_draw import ROUNDS, TIMEOUT_S
from bench.scenarios import PAGES, SCENARIOS
from posenc.ui.sections import ALL

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"default_ms": 150, "largest_ms": 600, "bytes": 3_000_000, "memory_mb": 1536, "draw_s": 3.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skip-browser", action="store_true")
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--lab-only", action="store_true", help="measure the length lab only, keep the rest")
    args = parser.parse_args(argv)
    if args.lab_only:
        return _lab_only()
    pages = [page for page in args.pages.split(",") if page]
    results = {"machine": _machine(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    results["pages"] = [_probe(page, scenario) for page in pages for scenario in SCENARIOS]
    results["core"] = core_bench.run()
    results["lab"] = lab_bench.run()
    _save(results)
    if not args.skip_browser:
        from bench import browser_draw

        results["first_draw"] = browser_draw.run(pages, SCENARIOS["largest"])
        results["first_draw_all_sections"] = browser_draw.run(pages, SCENARIOS["largest"], section=ALL)
        results["first_draw_reference"] = browser_draw.reference()
    _save(results)
    table = render_markdown(results)
    _write_results_md(table)
    _update_readme(table)
    print(table)
    return 0


def _lab_only() -> int:
    """The lab's measures put into the saved results (the pages' and the core's are kept as they were)."""
    saved = ROOT / "bench" / "results.json"
    results = json.loads(saved.read_text()) if saved.is_file() else {}
    results["lab"] = lab_bench.run()
    _save(results)
    if "pages" in results and "core" in results:
        table = render_markdown(results)
        _write_results_md(table)
        _update_readme(table)
    print("\n".join(lab_bench.render_markdown(results["lab"])))
    return 0


def _write_results_md(table: str, path: Path | None = None) -> None:
    """``table`` as bench/results.md, keeping the first figure's section (bench/first_figure.py writes it)."""
    path = path or ROOT / "bench" / "results.md"
    start, end = "<!-- first-figure:start -->", "<!-- first-figure:end -->"
    old = path.read_text() if path.exists() else ""
    kept = old[old.index(start) : old.index(end) + len(end)] if start in old and end in old else ""
    path.write_text(table.rstrip("\n") + ("\n\n" + kept + "\n" if kept else "\n"))


def _save(results: dict) -> None:
    (ROOT / "bench" / "results.json").write_text(json.dumps(results, indent=2) + "\n")


def _probe(page: str, scenario: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "bench.page_probe", page, scenario], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        return {"page": page, "scenario": scenario, "errors": [done.stderr.strip().splitlines()[-1]]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _machine() -> dict:
    return {
        "cpu": platform.processor() or platform.machine(),
        "cores": torch.get_num_threads(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
    }


def render_markdown(results: dict) -> str:
    machine = results["machine"]
    lines = [
        f"Measured {results['when']} on {machine['cpu']}, {machine['cores']} threads, Python {machine['python']}, "
        f"torch {machine['torch']}, {'GPU ' + machine['gpu'] if machine['gpu'] else 'no GPU'}.",
        "",
        "| page | scenario | rerun ms (median / min / max) | figure JSON | peak memory | first figure drawn "
        "| all figures drawn | first figure, all sections |",
        "|---|---|---|---|---|---|---|---|",
    ]
    draws = {row["page"]: row for row in results.get("first_draw", [])}
    floor = (results.get("first_draw_reference") or {}).get("first_figure_s")
    all_sections = {row["page"]: row for row in results.get("first_draw_all_sections", [])}
    for row in results["pages"]:
        if row.get("errors"):
            lines.append(f"| {row['page']} | {row['scenario']} | error: {row['errors'][0][:80]} | | | | | |")
            continue
        target = TARGETS["default_ms" if row["scenario"] == "default" else "largest_ms"]
        draw = draws.get(row["page"]) if row["scenario"] == "largest" else None
        everything = all_sections.get(row["page"]) if row["scenario"] == "largest" else None
        lines.append(
            f"| {row['page']} | {row['scenario']} | {row['rerun_ms_median']:.0f} / {row['rerun_ms_min']:.0f} / "
            f"{row['rerun_ms_max']:.0f} {_mark(row['rerun_ms_median'] <= target)} | "
            f"{row['figure_bytes'] / 1e6:.2f} MB {_mark(row['figure_bytes'] <= TARGETS['bytes'])} | "
            f"{row['peak_memory_mb']:.0f} MB {_mark(row['peak_memory_mb'] <= TARGETS['memory_mb'])} | "
            f"{_draw_cell(draw, 'first_figure_s', floor=floor)} | {_draw_cell(draw, 'first_draw_s')} | "
            f"{_draw_cell(everything, 'first_figure_s', marked=False)} |"
        )
    reference = results.get("first_draw_reference")
    if reference:
        lines += [
            "",
            f"Floor on this machine: a Streamlit app with a title and one three-point Plotly chart "
            f"(bench/reference_app.py), opened the same way, draws it after {reference['first_figure_s']:.2f} s "
            "(Streamlit's and plotly.js's start-up in the browser); "
            "*floor +* is how far a page's first figure is above it.",
        ]
    core = results["core"]
    lines += [
        "",
        f"Full-tensor core functions on {core['device']} vs seed-style NumPy (float64) on the same machine:",
        "",
        "| function | ours (s) | NumPy (s) | speed-up |" + (" vs GPU copy |" if core["device"] == "cuda" else ""),
        "|---|---|---|---|" + ("---|" if core["device"] == "cuda" else ""),
    ]
    for row in core["functions"]:
        extra = f" {row['vs_copy']}x |" if "vs_copy" in row else ""
        lines.append(f"| {row['function']} | {row['ours_s']} | {row['numpy_s']} | {row['speedup']}x |{extra}")
    targets = TARGETS
    lines += [
        "",
        f"Targets: rerun <= {targets['default_ms']} ms at defaults and <= {targets['largest_ms']} ms at the largest "
        f"parameters; <= 3 MB of figure JSON per page; <= 1.5 GB peak memory; first draw <= {targets['draw_s']} s. "
        "Rerun = one AppTest run of app.py and the page with nothing changed (what the server does per rerun), "
        "with every section of the page drawn (its *All sections* tab: the most a page computes and sends). "
        "Drawn = seconds from navigation start in headless Chromium on the same machine as the server, median of "
        f"{ROUNDS} fresh servers (the page's figures computed each time), for the page as its link opens it (its "
        "first section); *first figure* is the first figure on screen with its data, *all figures* every figure "
        "of that section drawn and the script run finished. The last column opens the *All sections* tab instead "
        "(no target: a reader asks for every figure at once there).",
        "",
    ]
    if results.get("lab"):
        lines += lab_bench.render_markdown(results["lab"])
    return "\n".join(lines)


def _draw_cell(draw: dict | None, key: str, *, marked: bool = True, floor: float | None = None) -> str:
    """A drawn time, its mark against the target, and (given ``floor``) how far above the floor it is."""
    if draw is None:
        return ""
    if draw.get(key) is None:
        return f"not drawn in {TIMEOUT_S} s" + (" ❌" if marked else "")
    above = f" (floor +{draw[key] - floor:.2f})" if floor is not None else ""
    return f"{draw[key]:.2f} s{above}" + (f" {_mark(draw[key] <= TARGETS['draw_s'])}" if marked else "")


def _mark(ok: bool) -> str:
    return "✅" if ok else "❌"


def _update_readme(table: str, marker: str = "bench") -> None:
    """Put ``table`` between the README's ``<!-- MARKER:start -->`` and ``<!-- MARKER:end -->`` lines."""
    readme = ROOT / "README.md"
    text = readme.read_text()
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1]
        readme.write_text(f"{before}{start}\n{table}\n{end}{after}")


if __name__ == "__main__":
    sys.exit(main())
