"""Measure one page in one scenario in a fresh process (so peak memory is this page's alone).

    python -m bench.page_probe PAGE SCENARIO   -> prints one JSON line
Server time is an AppTest run of app.py + the page (what the server does per rerun, without the browser):
one cold run, then the median/min/max of 5 warm reruns with nothing changed.
"""

from __future__ import annotations

import json
import resource
import statistics
import sys
import time

from bench.app_test import open_page, payload_bytes
from bench.scenarios import SCENARIOS

RERUNS = 5


def probe(page: str, scenario: str) -> dict:
    started = time.perf_counter()
    at = open_page(page, SCENARIOS[scenario])
    cold_ms = (time.perf_counter() - started) * 1000
    errors = [e.message for e in at.exception] + [e.value for e in at.error]
    timings = []
    for _ in range(RERUNS):
        started = time.perf_counter()
        at.run()
        timings.append((time.perf_counter() - started) * 1000)
    return {
        "page": page,
        "scenario": scenario,
        "cold_ms": round(cold_ms, 1),
        "rerun_ms_median": round(statistics.median(timings), 1),
        "rerun_ms_min": round(min(timings), 1),
        "rerun_ms_max": round(max(timings), 1),
        "figure_bytes": payload_bytes(at),
        "figures": len(at.get("plotly_chart")),
        "peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "errors": errors,
    }


if __name__ == "__main__":
    print(json.dumps(probe(sys.argv[1], sys.argv[2])))
