"""The load test's soak (``python -m bench.loadtest --soak MINUTES``, ``make loadtest SOAK=60``): a few sessions at a
time open links with parameter sets never seen before (the RoPE and sinusoidal pages at distinct ``seq_len``,
``base`` and ``d_model``), for MINUTES, and the servers' memory is sampled as they go. Every run misses the figure
cache, so the caches' bounds, not their hit rate, decide the memory: it must stay under the budget.

Each run is a new session on its link, as a learner opening a new link: a rerun inside one session with another
query string keeps that session's widget values (Streamlit's widget state wins over the changed URL), so it would
not compute the new parameters."""

from __future__ import annotations

import asyncio
import itertools
import time

from bench import procstat
from bench.replicas import find_haproxy, running_replicas
from posenc.serve.stream_client import open_link

BUDGET_MB = 1536  # per replica: bench/run.py's memory target for one server process
WORKERS = 4
SAMPLE_EVERY_S = 10.0


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
    from bench.loadtest import log_errors, log_offsets

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
