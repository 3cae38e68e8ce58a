"""The load test's soak (``python -m bench.loadtest --soak MINUTES``, ``make loadtest SOAK=60``): a few sessions at a
time open links with parameter sets never seen before (the RoPE and sinusoidal pages at distinct ``seq_len``,
``base`` and ``d_model``), for MINUTES, and the servers' memory is sampled as they go. Every run misses the figure
cache, so the caches' bounds, not their hit rate, decide the memory: it must stay under the budget.

Each run is a new session on its link, as a learner opening a new link: a rerun inside one session with another
query string keeps that session's widget values (Streamlit's widget state wins over the changed URL), so it would
not compute the new parameters.

``python -m bench.soak --links 300`` is the memory bound's check (docs/SESSION_COST.md, "Memory"): one warmed
``posenc app``, that many distinct links, and its resident memory against :func:`bound_mb`; it prints the figures
and exits 1 when the bound is broken."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import sys
import time

from bench import procstat
from bench.replicas import find_haproxy, running_replicas, wait_warmed
from bench.server_logs import log_errors, log_offsets
from posenc.drawing.cache import budget_from_environment
from posenc.serve.stream_client import open_link

BUDGET_MB = 1536  # per replica: bench/run.py's memory target for one server process
WORKERS = 4
SAMPLE_EVERY_S = 10.0
ALLOCATOR_SHARE = 1.5
"""Resident bytes per byte the figure cache counts (its arrays' buffers, the Python objects around them, and the
allocator's own rounding): 1.4 measured, posenc.drawing.cache; a little over, as a bound."""
OTHER_MB = 64
"""The other caches at their bounds (code snippets 8 MiB, config readings 16 x at most 1 MB, model ids), 128
disconnected sessions kept for two minutes (Streamlit's session storage: about 4 MB), and the allocator's slack."""


def bound_mb(warmed_rss_mb: float, budget_bytes: int) -> float:
    """The most resident memory one server process holds: what it held warmed (its modules, the pinned figures),
    plus the figure cache's budget as resident bytes (pinned figures count twice here: a generous bound), plus
    :data:`OTHER_MB`."""
    return warmed_rss_mb + ALLOCATOR_SHARE * budget_bytes / 1e6 + OTHER_MB


def distinct_links():
    """Links that never repeat (for far more runs than a soak makes): RoPE and sinusoidal at distinct sizes."""
    for i in itertools.count():
        seq_len = 64 + (i * 97) % 8000
        if i % 2:
            yield f"/sinusoidal?seq_len={seq_len}&d_model={16 + 2 * (i // 2 % 500)}"
        else:
            yield f"/rope?seq_len={seq_len}&base={10000 + 10 * (i // 2)}"


async def _soak(cluster, minutes: float, timeout: float, workers: int) -> dict:
    pids = cluster.server_pids()
    links = distinct_links()
    stop_at = time.monotonic() + 60 * minutes
    state = {"runs": 0, "served": 0, "errors": [], "distinct": set()}
    samples = []
    started = time.monotonic()

    def sample() -> None:
        memory = procstat.memory(pids)
        per_replica = [procstat.memory_mb(pid)["rss"] for pid in pids]
        samples.append(
            {
                "t_s": round(time.monotonic() - started, 1),
                "runs": state["runs"],
                **memory,
                "rss_largest_mb": round(max(per_replica), 1),
            }
        )

    async def worker() -> None:
        while time.monotonic() < stop_at:
            each = next(links)
            state["distinct"].add(each)
            result = await open_link(cluster.url, each, timeout=timeout)
            state["runs"] += 1
            state["served"] += result.served
            state["errors"] += result.errors

    async def sampler() -> None:
        while time.monotonic() < stop_at:
            sample()
            await asyncio.sleep(min(SAMPLE_EVERY_S, max(0.1, stop_at - time.monotonic())))

    await asyncio.gather(sampler(), *(worker() for _ in range(workers)))
    sample()
    return {
        "runs": state["runs"],
        "served": state["served"],
        "errors": len(state["errors"]),
        "error_examples": sorted(set(state["errors"]))[:5],
        "distinct_links": len(state["distinct"]),
        "memory": samples,
    }


def run_soak(
    minutes: float, replicas: int, timeout: float, workers: int = WORKERS, budget_mb: float = BUDGET_MB
) -> dict:
    """Soak the load-balanced replicas (one process if HAProxy is missing) for ``minutes``."""
    balancer = find_haproxy() is not None and replicas > 1
    with running_replicas(replicas if balancer else 1, balancer=balancer, timeout=timeout) as cluster:
        for page in ("/rope", "/sinusoidal"):  # warm: each replica has imported the pages before the first sample
            asyncio.run(_warm(cluster.url, page, replicas, timeout))
        offsets = log_offsets(cluster.logs)
        soak = asyncio.run(_soak(cluster, minutes, timeout, workers))
        soak["log_errors"] = log_errors(cluster.logs, offsets)[:20]
    soak.update(
        minutes=minutes,
        workers=workers,
        budget_mb=budget_mb,
        mode=f"HAProxy, {replicas} replicas" if balancer else "one process",
    )
    samples = soak["memory"]
    soak["within_budget"] = max(s["rss_largest_mb"] for s in samples) <= budget_mb
    soak["growth_second_half_mb"] = round(samples[-1]["rss_mb"] - samples[len(samples) // 2]["rss_mb"], 1)
    return soak


async def _warm(url: str, link: str, count: int, timeout: float) -> None:
    await asyncio.gather(*(open_link(url, link, timeout=timeout) for _ in range(count)))


async def _open_links(url: str, count: int, workers: int, timeout: float, pid: int) -> dict:
    links, opened, errors, samples = distinct_links(), [0], [], []

    async def worker() -> None:
        while opened[0] < count:
            opened[0] += 1
            result = await open_link(url, next(links), timeout=timeout)
            errors.extend(result.errors)
            if opened[0] % 50 == 0:
                samples.append((opened[0], round(procstat.memory_mb(pid)["rss"], 1)))

    await asyncio.gather(*(worker() for _ in range(workers)))
    return {"errors": len(errors), "error_examples": sorted(set(errors))[:5], "rss_by_links": samples}


def memory_bound(links: int, workers: int = WORKERS, timeout: float = 120.0) -> dict:
    """One warmed ``posenc app`` (POSENC_WARMUP and POSENC_FIGURE_CACHE_MB as set), ``links`` distinct links
    ``workers`` at a time; its resident memory warmed, after each 50 links and at the end, against the bound."""
    with running_replicas(1, balancer=False, timeout=timeout) as cluster:
        pid = cluster.server_pids()[0]
        warmup_s = wait_warmed(cluster)
        for page in ("/rope", "/sinusoidal"):  # the pages' modules imported, as in the soak
            asyncio.run(open_link(cluster.url, page, timeout=timeout))
        warmed = procstat.memory_mb(pid)["rss"]
        cpu = procstat.cpu_seconds(pid)
        run = asyncio.run(_open_links(cluster.url, links, workers, timeout, pid))
        end = procstat.memory_mb(pid)
        cpu = procstat.cpu_seconds(pid) - cpu
    limit = bound_mb(warmed, budget_from_environment())
    return {
        "links": links,
        "warmup": os.environ.get("POSENC_WARMUP", "all"),
        "warmup_s": warmup_s,
        "figure_cache_mib": budget_from_environment() // 2**20,
        "warmed_rss_mb": round(warmed, 1),
        "end_rss_mb": round(end["rss"], 1),
        "peak_rss_mb": round(end["hwm"], 1),
        "growth_mb": round(end["rss"] - warmed, 1),
        "bound_mb": round(limit, 1),
        "within_bound": end["hwm"] <= limit,
        "server_cpu_ms_per_link": round(1000 * cpu / links, 1),
        **run,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n\n")[-1])
    parser.add_argument("--links", type=int, default=300, help="distinct links to open (default 300)")
    parser.add_argument("--workers", type=int, default=WORKERS, help="sessions at a time")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds one session may take")
    args = parser.parse_args(argv)
    result = memory_bound(args.links, args.workers, args.timeout)
    print(json.dumps(result, indent=1))
    return 0 if result["within_bound"] and not result["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
