"""Server CPU per new session, page by page, at each page's defaults with warm caches (issue: a class opening one
link at once; target 50 ms).

    python -m bench.session_cost [--sessions 20] [--pages rope,alibi]

One Streamlit process (the serving settings of .streamlit/config.toml) with one idle session connected throughout,
as in a class (Streamlit forgets its compiled scripts when the last session leaves). Each page's link is opened
three times to warm its figures, then ``--sessions`` times one after another; the server process's CPU time over
those sessions (/proc) divided by their number is the page's cost. Writes bench/session_cost.md.

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
from bench.replicas import running_replicas
from posenc.serve.stream_client import StreamSession, fetch_page, open_link
from posenc.ui.navigation import PAGES

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 50


def link_of(page: str) -> str:
    return "/" + next(entry.url_path for entry in PAGES if entry.name == page)


async def measure(base_url: str, pid: int, pages: list[str], sessions: int) -> list[dict]:
    """Per page: server CPU ms per new session, and the median seconds to its first figure."""
    rows = []
    cookies = await fetch_page(base_url + "/", {})
    async with StreamSession(base_url, cookies, 60) as idle:  # one learner stays connected
        await idle.send(b"")  # nothing: the session just exists
        for page in pages:
            link = link_of(page)
            for _ in range(3):
                await open_link(base_url, link, timeout=120)
            before = procstat.cpu_seconds(pid)
            firsts = []
            for _ in range(sessions):
                result = await open_link(base_url, link, timeout=120)
                if result.finished_s is None or result.errors:
                    raise RuntimeError(f"{link}: {result.errors}")
                firsts.append(result.first_figure_s or 0.0)
            cpu_ms = 1000 * (procstat.cpu_seconds(pid) - before) / sessions
            rows.append({"page": page, "cpu_ms": round(cpu_ms, 1), "first_figure_s": statistics.median(firsts)})
            print(f"{page:20s} {cpu_ms:6.1f} ms of server CPU per session", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--pages", default=",".join(page.name for page in PAGES))
    args = parser.parse_args(argv)
    pages = [name.strip() for name in args.pages.split(",") if name.strip()]
    os.environ["POSENC_WARMUP"] = "off"  # each page warms its own figures here; a warm-up would run alongside
    with running_replicas(1, balancer=False) as cluster:
        (pid,) = cluster.server_pids()
        rows = asyncio.run(measure(cluster.url, pid, pages, args.sessions))
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        f"Measured {when} on {platform.machine()}, {len(os.sched_getaffinity(0))} threads, "
        f"{args.sessions} sessions per page, one after another, caches warm (`python -m bench.session_cost`).",
        "",
        "| page | server CPU per new session | first figure (median) |",
        "|---|---|---|",
    ]
    for row in rows:
        mark = "✅" if row["cpu_ms"] <= TARGET_MS else "❌"
        lines.append(f"| {row['page']} | {row['cpu_ms']:.0f} ms {mark} | {row['first_figure_s'] * 1000:.0f} ms |")
    (ROOT / "bench" / "session_cost.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(row["cpu_ms"] <= TARGET_MS for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
