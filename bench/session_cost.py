"""Server CPU per new session, page by page, at each page's defaults with warm caches (issue: a class opening one
link at once; target 50 ms).

    python -m bench.session_cost [--sessions 20] [--rounds 3] [--pages rope,alibi]

One Streamlit process (the serving settings of .streamlit/config.toml), measured once its start-up warm-up of the
pages' defaults is done (``POSENC_WARMUP=pages``), with one idle session connected throughout, as in a class
(Streamlit forgets its compiled scripts when the last session leaves). Each page's link is opened three times to
warm its figures; then, ``--rounds`` times, each page's link ``--sessions`` times one after another. The server
process's CPU time over a page's sessions (/proc) divided by their number is its cost in that round; the median of
the rounds is the page's cost. Writes bench/session_cost.md.

Where the time goes inside a session is a sampling profiler's job: ``py-spy record -p SERVER_PID -f raw`` while
this runs (docs/SESSION_COST.md says what it found).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import time
from pathlib import Path

from bench import procstat
from bench.replicas import running_replicas, wait_warmed
from posenc.serve.stream_client import StreamSession, fetch_page, open_link
from posenc.ui.navigation import PAGES, URL_PATHS

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 50


def link_of(page: str) -> str:
    return "/" + URL_PATHS[page]


async def measure(
    base_url: str, pid: int, pages: list[str], sessions: int, rounds: int = 3, pause: float = 0.1
) -> list[dict]:
    """Per page: server CPU ms per new session in each round (the pages taken in turn, ``rounds`` times, so that a
    burst of load on the machine lands in one round, not in one page), and the median seconds to its first figure."""
    cpu: dict[str, list[float]] = {page: [] for page in pages}
    firsts: dict[str, list[float]] = {page: [] for page in pages}
    links = {page: link_of(page) for page in pages}
    cookies = await fetch_page(base_url + "/", {})
    async with StreamSession(base_url, cookies, 60) as idle:  # one learner stays connected
        await idle.send(b"")  # nothing: the session just exists
        for page in pages:
            for _ in range(3):
                await open_link(base_url, links[page], timeout=120)
        for round_number in range(1, rounds + 1):
            for page in pages:
                before = procstat.cpu_seconds(pid)
                for _ in range(sessions):
                    result = await open_link(base_url, links[page], timeout=120)
                    if result.finished_s is None or result.errors:
                        raise RuntimeError(f"{links[page]}: {result.errors}")
                    firsts[page].append(result.first_figure_s or 0.0)
                    await asyncio.sleep(pause)  # the server alone: the client's own work is not on its cores
                cpu[page].append(1000 * (procstat.cpu_seconds(pid) - before) / sessions)
                print(f"round {round_number}: {page:20s} {cpu[page][-1]:6.1f} ms of server CPU per session", flush=True)
    return [
        {
            "page": page,
            "cpu_ms": round(statistics.median(cpu[page]), 1),
            "cpu_ms_rounds": [round(value, 1) for value in cpu[page]],
            "first_figure_s": statistics.median(firsts[page]),
        }
        for page in pages
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=20, help="sessions per page in each round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pause", type=float, default=0.1, help="seconds between sessions")
    parser.add_argument("--pages", default=",".join(page.name for page in PAGES))
    args = parser.parse_args(argv)
    pages = [name.strip() for name in args.pages.split(",") if name.strip()]
    os.environ["POSENC_WARMUP"] = "pages"  # as served: the pages' defaults warmed, then the heap settled
    with running_replicas(1, balancer=False) as cluster:
        (pid,) = cluster.server_pids()
        wait_warmed(cluster)
        rows = asyncio.run(measure(cluster.url, pid, pages, args.sessions, args.rounds, args.pause))
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        f"Measured {when} on {platform.machine()}, {len(os.sched_getaffinity(0))} threads, after the server's warm-up: "
        f"{args.rounds} rounds of {args.sessions} sessions per page, one after another, caches warm "
        "(`python -m bench.session_cost`). The cost is the median of the rounds.",
        "",
        "| page | server CPU per new session | each round | first figure (median) |",
        "|---|---|---|---|",
    ]
    for row in rows:
        mark = "✅" if row["cpu_ms"] <= TARGET_MS else "❌"
        each = ", ".join(f"{value:.0f}" for value in row["cpu_ms_rounds"])
        lines.append(
            f"| {row['page']} | {row['cpu_ms']:.0f} ms {mark} | {each} | {row['first_figure_s'] * 1000:.0f} ms |"
        )
    (ROOT / "bench" / "session_cost.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(row["cpu_ms"] <= TARGET_MS for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
