"""`make loadtest`: a class opening the app at once, measured with protocol-level clients
(posenc/serve/stream_client.py).

    python -m bench.loadtest [--short] [--sizes 1,10,50,100] [--replicas N] [--soak MINUTES]

Everything runs on 127.0.0.1 and is bounded: each session has a timeout (``--timeout``), the whole run a cap
(``--max-minutes``, the steps left when it is reached are recorded as skipped). For each serving mode (one
Streamlit process; N replicas behind HAProxy, bench/replicas.py) and each workload (everyone opening one link;
the explorer pages round robin at their default and largest parameters, bench/scenarios.py), N sessions open at
once on a warm server (every link opened once first). Per N: sessions served, time to first figure (p50, p95,
max), server CPU per session (the replicas' CPU time over the step, from /proc, divided by N), peak memory of the
servers (VmHWM), errors seen by the clients, error lines in the servers' logs. ``--soak`` reruns distinct
parameter sets for MINUTES and records the servers' memory over time (bench/soak.py).
Writes bench/loadtest.json and bench/loadtest.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import signal
import sys
import time
import urllib.parse
from pathlib import Path

from bench import procstat
from bench.loadtest_report import readme_block, render_markdown
from bench.replicas import Cluster, running_replicas, wait_warmed
from bench.run import _update_readme
from bench.scenarios import PAGES, SCENARIOS
from bench.server_logs import log_errors, log_offsets
from posenc.serve.stream_client import open_link
from posenc.ui.navigation import URL_PATHS

ROOT = Path(__file__).resolve().parents[1]
SIZES = (1, 10, 50, 100)
SHORT_SIZES = (1, 5)
ONE_LINK = "/rope"


def link(page: str, scenario: str) -> str:
    """The link a learner opens: the page's URL path and the scenario's parameters as its query string."""
    path = URL_PATHS[page]
    query = urllib.parse.urlencode(SCENARIOS[scenario])
    return f"/{path}" + (f"?{query}" if query else "")


def mixed_links() -> list[str]:
    """Every explorer page at every scenario, ordered so that the first few already mix pages and scenarios: the
    i-th link is page ``i mod P`` (sidebar order) at scenario ``(i mod P + i div P) mod S``."""
    scenarios, count = list(SCENARIOS), len(PAGES) * len(SCENARIOS)
    return [
        link(PAGES[i % len(PAGES)], scenarios[(i % len(PAGES) + i // len(PAGES)) % len(scenarios)])
        for i in range(count)
    ]


WORKLOADS = {"one link": lambda: [ONE_LINK], "mixed pages": mixed_links}


def percentile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) by the nearest rank; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]  # rank ceil(q n), from 1


async def _sessions(url: str, links: list[str], count: int, timeout: float) -> list:
    return await asyncio.gather(*(open_link(url, links[i % len(links)], timeout=timeout) for i in range(count)))


def run_step(cluster: Cluster, links: list[str], count: int, timeout: float) -> dict:
    """Open ``count`` sessions at once (links round robin) and measure them and the servers."""
    pids = cluster.server_pids()
    offsets = log_offsets(cluster.logs)
    cpu_before = procstat.total_cpu(pids)
    started = time.monotonic()
    results = asyncio.run(_sessions(cluster.url, links, count, timeout))
    wall = time.monotonic() - started
    cpu = procstat.total_cpu(pids) - cpu_before
    firsts = [r.first_figure_s for r in results if r.first_figure_s is not None]
    errors = [error for r in results for error in r.errors]
    return {
        "sessions": count,
        "served": sum(r.served for r in results),
        "first_figure_p50_s": _round(percentile(firsts, 0.50)),
        "first_figure_p95_s": _round(percentile(firsts, 0.95)),
        "first_figure_max_s": _round(max(firsts, default=None)),
        "wall_s": round(wall, 2),
        "cpu_per_session_ms": round(1000 * cpu / count),
        **procstat.memory(pids),
        "errors": len(errors),
        "error_examples": sorted(set(errors))[:5],
        "log_errors": log_errors(cluster.logs, offsets)[:20],
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def run_mode(name: str, replicas: int, balancer: bool, sizes: tuple[int, ...], args, deadline: float) -> dict:
    """Every workload at every size against one serving mode (started once, warmed once per workload)."""
    mode = {"mode": name, "replicas": replicas, "balancer": balancer, "workloads": {}}
    late = [{"sessions": count, "skipped": "the run's time cap was reached"} for count in sizes]
    if time.monotonic() > deadline:
        mode["workloads"] = {workload: late for workload in WORKLOADS}
        return mode
    with running_replicas(replicas, balancer=balancer, timeout=args.timeout) as cluster:
        mode["warmup_s"] = wait_warmed(cluster)
        mode["start_memory"] = procstat.memory(cluster.server_pids())
        for workload, make_links in WORKLOADS.items():
            links = make_links()
            steps = mode["workloads"][workload] = []
            if time.monotonic() > deadline:
                steps += late
                continue
            for each in links:  # warm: every link opened once, on every replica (affinity spreads new sessions)
                asyncio.run(_sessions(cluster.url, [each], replicas, args.timeout))
            for count in sizes:
                if time.monotonic() > deadline:
                    steps.append(late[sizes.index(count)])
                    continue
                steps.append(run_step(cluster, links, count, args.timeout))
                print(f"{name} | {workload} | {json.dumps(steps[-1])}", flush=True)
    return mode


def machine() -> dict:
    """The machine the numbers were taken on."""
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        model = next(
            (line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if "model name" in line), ""
        )
    return {"cpu": model or platform.machine(), "cores": os.cpu_count(), "python": platform.python_version()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.loadtest", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="concurrent sessions per step")
    parser.add_argument("--short", action="store_true", help=f"sizes {SHORT_SIZES}: a quick check of the harness")
    parser.add_argument("--replicas", type=int, default=os.cpu_count() or 1, help="behind HAProxy (default: cores)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds one session may take")
    parser.add_argument("--max-minutes", type=float, default=40.0, help="cap on the whole run")
    parser.add_argument("--modes", default="single,balanced", help="single (one process), balanced (HAProxy)")
    parser.add_argument("--soak", type=float, default=0.0, metavar="MINUTES", help="also a soak of this length")
    parser.add_argument("--out", default=str(ROOT / "bench" / "loadtest"), help="path stem of the .json and .md")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # `kill` unwinds: the servers are stopped on the way out
    sizes = SHORT_SIZES if args.short else tuple(int(n) for n in args.sizes.split(",") if n)
    deadline = time.monotonic() + 60 * args.max_minutes
    results = {"machine": machine(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "modes": []}
    results["settings"] = {"sizes": sizes, "timeout_s": args.timeout, "one_link": ONE_LINK, "mixed": mixed_links()}
    chosen = args.modes.split(",")
    if "single" in chosen:
        results["modes"].append(run_mode("one process", 1, False, sizes, args, deadline))
    if "balanced" in chosen:
        name = f"HAProxy, {args.replicas} replicas"
        results["modes"].append(run_mode(name, args.replicas, True, sizes, args, deadline))
    if args.soak:
        from bench.soak import run_soak

        results["soak"] = run_soak(args.soak, args.replicas, args.timeout)
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n")
    out.with_suffix(".md").write_text(render_markdown(results))
    if results["modes"] and out == ROOT / "bench" / "loadtest":  # the README's table is the default run's
        _update_readme(readme_block(results).split("\n\n`make loadtest`")[0], marker="loadtest")
    print(render_markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
