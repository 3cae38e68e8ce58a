"""What concurrent table uploads cost the server's memory, and whether it comes back when their sessions end.

    python -m bench.upload_memory [--sessions 20] [--mb 60]

Starts the app (``streamlit run app.py``, no warm-up), then N protocol-level sessions at once
(:mod:`posenc.serve.stream_client`) each open the Learned page's upload, upload a distinct float64 ``.npy`` table of
about ``--mb`` MB through Streamlit's own upload endpoint and run the page on it, as a class uploading its own
checkpoints would. The server's resident memory (``/proc/PID/status`` VmRSS, sampled every 0.1 s, and VmHWM, its
peak) is read before, while every session holds its table, and after the sessions close: at once and 30 s later.
The upload budget's own count (held tables, bytes) is read from the uploader's help text of a fresh session. The
served-app test (tests/serve/test_upload_release.py) drives the same functions. Results: bench/upload_memory.md.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import re
import time
from pathlib import Path
from urllib.parse import urlparse

import numpy as np

from posenc.serve.stream_client import SessionResult, StreamSession, fetch_page, upload_file

LINK = "/learned?table_source=upload"
HELD = re.compile(r"Uploaded tables held by this server now: ([\d,]+) \(([\d,]+) MiB of its ([\d,]+) MiB")
ROOT = Path(__file__).resolve().parents[1]


def table_bytes(mb: float, seed: int) -> bytes:
    """A distinct float64 .npy table of about ``mb`` MB: 1024 positions, as many channels as fit."""
    channels = max(1, int(mb * 1e6) // (1024 * 8))
    buffer = io.BytesIO()
    np.save(buffer, np.random.default_rng(seed).standard_normal((1024, channels)))
    return buffer.getvalue()


def server_pid(url: str) -> int:
    """The process serving ``url``: the ``streamlit`` whose command line names its port."""
    port = str(urlparse(url).port).encode()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                argv = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"streamlit" in b" ".join(argv) and port in argv:
                return int(proc.name)
    raise LookupError(f"no streamlit process serves port {port.decode()}")


def rss_mib(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


def _uploader(session: StreamSession):
    return next(
        m.delta.new_element.file_uploader
        for m in session.forward
        if m.WhichOneof("type") == "delta" and m.delta.new_element.WhichOneof("type") == "file_uploader"
    )


async def held_tables(url: str, timeout: float = 60) -> tuple[int, int] | None:
    """(tables, MiB) the server's upload budget holds now, from the uploader's help in a fresh session (None when
    the help does not say: a server without the budget)."""
    cookies = await fetch_page(url + LINK, {})
    async with StreamSession(url, cookies, timeout) as session:
        await session.run(LINK, SessionResult(url=url + LINK), time.monotonic())
        found = HELD.search(_uploader(session).help)
    return (int(found.group(1).replace(",", "")), int(found.group(2).replace(",", ""))) if found else None


async def upload_and_hold(
    url: str, name: str, data: bytes, release: asyncio.Event, ready: asyncio.Queue, timeout: float
) -> SessionResult:
    """One reader: open the upload, upload ``data`` as ``name``, run the page on it, put its result on ``ready``,
    keep the session open until ``release`` is set, then close it."""
    cookies = await fetch_page(url + LINK, {})
    async with StreamSession(url, cookies, timeout) as session:
        await session.run(LINK, SessionResult(url=url + LINK), time.monotonic())
        states = await upload_file(session, name, data, _uploader(session).id)
        result = await session.run(LINK, SessionResult(url=url + LINK), time.monotonic(), widget_states=states)
        ready.put_nowait(result)
        await release.wait()
    return result


async def measure(url: str, sessions: int, mb: float, timeout: float = 300) -> dict:
    pid = server_pid(url)
    await held_tables(url)  # the page opened once: the app's imports and the page's own figures are in memory
    await held_tables(url)
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM starts again from now
    figures = {"before_mib": rss_mib(pid), "sessions": sessions, "upload_mb": mb}
    peak = figures["before_mib"]
    release, done = asyncio.Event(), asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_mib(pid))
            await asyncio.sleep(0.1)

    sampler = asyncio.create_task(sample())
    ready: asyncio.Queue = asyncio.Queue()
    tasks = [
        asyncio.create_task(upload_and_hold(url, f"table{i}.npy", table_bytes(mb, i), release, ready, timeout))
        for i in range(sessions)
    ]
    for _ in range(sessions):  # every session has run the page on its table (or failed)
        getter = asyncio.create_task(ready.get())
        await asyncio.wait([getter, *[t for t in tasks if not t.done()]], return_when=asyncio.FIRST_COMPLETED)
        if not getter.done():
            getter.cancel()
            if all(t.done() for t in tasks):
                break
    figures["holding_mib"] = rss_mib(pid)
    figures["held"] = await held_tables(url)
    release.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    figures["served"] = sum(1 for r in results if isinstance(r, SessionResult) and r.figures and not r.errors)
    figures["refused"] = [a[:160] for r in results if isinstance(r, SessionResult) for a in r.alerts if "error" in a]
    figures["failed"] = [repr(r)[:200] for r in results if isinstance(r, BaseException)]
    done.set()
    await sampler
    figures["peak_mib"] = max(peak, rss_mib(pid, "VmHWM"))
    figures["closed_mib"] = rss_mib(pid)
    await asyncio.sleep(float(os.environ.get("BENCH_SETTLE_S", "30")))  # a reading over time, not a wait
    figures["after_30s_mib"] = rss_mib(pid)
    figures["held_after"] = await held_tables(url)
    return figures


def main(argv: list[str] | None = None) -> int:
    from bench.app_server import running_app

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--mb", type=float, default=60)
    parser.add_argument("--label", default="")
    args = parser.parse_args(argv)
    os.environ["POSENC_WARMUP"] = "off"
    with running_app(timeout=120) as url:
        figures = asyncio.run(measure(url, args.sessions, args.mb))
    print(args.label, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
