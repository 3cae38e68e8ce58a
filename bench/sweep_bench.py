"""Sweeps, measured: the frame switch in Chromium against the server round trip it replaces, the cost of building
the frames, the payload of a swept figure, and the time to write a GIF.

    python -m bench.sweep_bench            # prints the tables and writes bench/sweep_results.md

- *frame switch*: a click on the slider's rail to the frame drawn (Plotly's ``plotly_animated`` event, then the
  next painted frame), read from the page's own clock; median over the sweep's steps.
- *round trip*: the same figure's parameter changed in its control (typed, Enter) to the chart redrawn with the new
  value in its title: a script run on the server and the figure sent again. Median over a few changes.
- *build*: ``drawing.animate.animate`` for 12 frames at the page's defaults against one still figure
  (``registry.build``), per frame; *payload*: the animated figure's JSON.
- *GIF*: 12 frames at the slide size (1920 x 1080) through the Plotly export and imageio.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from bench.app_server import CHROMIUM_ARGS, running_app

CASES = [  # (page, section, figure, sweep, control key, values typed for the round trip)
    ("rope", "Rotation angles and wavelengths", "rope-wavelengths", "base:10000..1000000:12", "base", (20001, 40001)),
    ("rope", "Rotation angles and wavelengths", "rope-angles", "base:10000..1000000:12", "base", (30001, 50001)),
    ("context_extension", "Frequencies", "context-wavelengths", "factor:1..32:12", "factor", (5.5, 13.25)),
    ("sinusoidal", None, "sinusoidal-heatmap", "base:100..100000:12", "base", (2001, 5001)),
]
SWEPT = "[class*='st-key-chart-'] .updatemenu-button"
# Arms the measure of one slider step: the time from the next mousedown to the frame drawn lands in window.__switch;
# returns where to click on the rail for the step at ``fraction`` of its length.
ARM = f"""([fraction]) => {{
  const gd = document.querySelector("{SWEPT}").closest(".js-plotly-plot");
  gd.querySelector(".slider-rail-rect").scrollIntoView({{block: "center"}});
  const rail = gd.querySelector(".slider-rail-rect").getBoundingClientRect();
  window.__switch = null;
  let start = null;
  document.addEventListener("mousedown", () => {{ start = performance.now(); }}, {{capture: true, once: true}});
  gd.once("plotly_animated", () => requestAnimationFrame(() => {{ window.__switch = performance.now() - start; }}));
  return [rail.x + fraction * rail.width, rail.y + rail.height / 2];
}}"""


def _frame_switches(page) -> list[float]:
    """Milliseconds per slider step, over the steps 1..11 (each a click on the rail)."""
    times = []
    for step in range(1, 12):
        x, y = page.evaluate(ARM, [0.02 + 0.96 * step / 11])
        page.mouse.click(x, y)
        times.append(float(page.wait_for_function("() => window.__switch", timeout=30_000).json_value()))
    return times


def _round_trips(page, key: str, values) -> list[float]:
    """Milliseconds from Enter in the control to the chart redrawn with the value in its title."""
    times = []
    for value in values:
        box = page.locator(f".st-key-{key} input").first
        box.fill(str(value))
        start = time.perf_counter()
        box.press("Enter")
        page.wait_for_function(
            "(v) => [...document.querySelectorAll('.js-plotly-plot')].some(g => (g.layout.title.text || '')"
            ".replace(/,/g, '').includes(String(v)))",
            arg=value,
            timeout=60_000,
        )
        page.evaluate("() => new Promise((done) => requestAnimationFrame(done))")
        times.append((time.perf_counter() - start) * 1000)
    return times


def browser_rows() -> list[dict]:
    from playwright.sync_api import sync_playwright

    rows = []
    with running_app() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for page_name, section, figure_id, sweep, key, values in CASES:
            query = f"sweep={sweep}&sweep_figure={figure_id}" + (f"&section={section}" if section else "")
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/{page_name}?{query}")
            page.wait_for_function(
                f"() => {{ const b = document.querySelector(\"{SWEPT}\"); const g = b && b.closest('.js-plotly-plot');"
                " return g && g.layout.sliders[0].active === g.layout.sliders[0].steps.length - 1; }",
                timeout=120_000,
            )  # played through once: every frame has been drawn
            switches = _frame_switches(page)
            page.goto(f"{url}/{page_name}" + (f"?section={section}" if section else ""))
            page.wait_for_selector("div.posenc-ran", state="attached", timeout=120_000)
            trips = _round_trips(page, key, values)
            rows.append(
                {
                    "figure": figure_id,
                    "sweep": sweep,
                    "frame_switch_ms": statistics.median(switches),
                    "frame_switch_max_ms": max(switches),
                    "round_trip_ms": statistics.median(trips),
                }
            )
            page.close()
        browser.close()
    return rows


def build_rows() -> list[dict]:
    from posenc import figures  # noqa: F401
    from posenc.drawing import export, registry
    from posenc.drawing.animate import animate
    from posenc.drawing.export_sweep import export_sweep
    from posenc.drawing.sweep import parse_sweep

    rows = []
    export.start_browser_server()
    try:
        for _page, _section, figure_id, sweep, _key, _values in CASES:
            params, _ = registry.resolve_params(figure_id, {})
            registry.build(figure_id, params)  # imports and caches warmed
            start = time.perf_counter()
            registry.build(figure_id, params)
            still = time.perf_counter() - start
            start = time.perf_counter()
            swept = animate(figure_id, params, parse_sweep(sweep))
            frames = (time.perf_counter() - start) / len(parse_sweep(sweep).values())  # every frame is built
            start = time.perf_counter()
            gif = export_sweep(swept, "gif", size="slide")
            rows.append(
                {
                    "figure": figure_id,
                    "still_s": still,
                    "per_frame_s": frames,
                    "ratio": frames / still,
                    "payload_mb": len(swept.figure.to_json()) / 1e6,
                    "frames_sent": len(swept.values),
                    "gif_s": time.perf_counter() - start,
                    "gif_mb": len(gif.content) / 1e6,
                }
            )
    finally:
        export.stop_browser_server()
    return rows


def main() -> int:
    built = build_rows()
    lines = [
        "| figure | one still (s) | per frame of 12 (s) | frame / still | payload (MB), frames sent | GIF, slide (s) |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['figure']} | {r['still_s']:.3f} | {r['per_frame_s']:.3f} | {r['ratio']:.2f} "
        f"| {r['payload_mb']:.2f}, {r['frames_sent']} "
        f"| {r['gif_s']:.1f} ({r['gif_mb']:.2f} MB) |"
        for r in built
    ]
    switched = browser_rows()
    lines += [
        "",
        "| figure | sweep | frame switch, median (max) ms | server round trip, median ms |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {r['figure']} | `{r['sweep']}` | {r['frame_switch_ms']:.0f} ({r['frame_switch_max_ms']:.0f}) "
        f"| {r['round_trip_ms']:.0f} |"
        for r in switched
    ]
    text = "\n".join(lines)
    print(text)
    Path(__file__).with_name("sweep_results.md").write_text(
        "# Sweeps, measured (python -m bench.sweep_bench; CPU only, 2 cores, headless Chromium)\n\n" + text + "\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
