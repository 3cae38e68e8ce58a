"""Start the real app (`streamlit run app.py`) on a free loopback port, for the benchmark and the browser tests."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_app(timeout: float = 60.0, script: str = "app.py") -> Iterator[str]:
    """Yield the base URL of a freshly started app (``streamlit run script``); stop it afterwards."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        script,
        "--server.headless",
        "true",
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    log_path = ROOT / "build" / f"streamlit-{port}.log"
    log_path.parent.mkdir(exist_ok=True)
    base_url = f"http://127.0.0.1:{port}"
    with log_path.open("w") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ})
        try:
            wait_healthy(base_url, process, timeout)
            yield base_url
        finally:
            stop(process)


def stop(process: subprocess.Popen) -> None:
    """Ask a server to stop (SIGTERM), and kill it if it has not within 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


def wait_healthy(base_url: str, process: subprocess.Popen, timeout: float) -> None:
    """Return once ``base_url/_stcore/health`` answers ok; RuntimeError if ``process`` exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with status {process.returncode} before answering")
        with contextlib.suppress(OSError), urllib.request.urlopen(f"{base_url}/_stcore/health", timeout=2) as answer:
            if answer.read().strip() == b"ok":
                return
        time.sleep(0.2)
    raise RuntimeError(f"streamlit did not answer on {base_url} within {timeout:.0f} s")
