"""posenc.serve.open_files_log: out of file handles, a server logs the condition once and then a count, not a
traceback per refused connection (issue 24: 75 MB of log a minute). The records are made by asyncio's own
exception handler with the context its accept loop passes, so they have the shape a served app logs; the served
test floods a real ``posenc app`` whose file-handle limit is lowered."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from bench.app_server import ROOT, free_port, wait_healthy
from posenc.serve.open_files_log import RETRY_CALLBACK, RepeatFilter, install

EMFILE = OSError(errno.EMFILE, "Too many open files")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def asyncio_log():
    """(records the ``asyncio`` logger emits, a fresh filter on it with a hand-moved clock)."""
    clock, records = Clock(), []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger("asyncio")
    repeat = RepeatFilter(interval_s=60, clock=clock)
    logger.addFilter(repeat)
    logger.addHandler(handler)
    try:
        yield records, repeat, clock
    finally:
        logger.removeHandler(handler)
        logger.removeFilter(repeat)


def refused_accept(loop: asyncio.AbstractEventLoop) -> None:
    """What BaseSelectorEventLoop._accept_connection does when accept() fails with EMFILE."""
    with socket.socket() as listener:
        loop.call_exception_handler(
            {"message": "socket.accept() out of system resource", "exception": EMFILE, "socket": listener}
        )


def test_a_storm_of_refused_accepts_logs_the_first_whole_then_one_count_a_minute(asyncio_log):
    records, repeat, clock = asyncio_log
    loop = asyncio.new_event_loop()
    try:
        for _ in range(2048):  # one loop tick: the backlog's worth of failed accepts
            refused_accept(loop)
        assert len(records) == 1 and records[0].exc_info[1] is EMFILE  # the first, with its traceback
        assert "socket.accept() out of system resource" in records[0].getMessage()
        clock.now += 61
        refused_accept(loop)
        assert len(records) == 2
        assert records[1].getMessage().startswith("2048 more connection attempts refused: too many open files")
        assert records[1].levelno == logging.WARNING and not records[1].exc_info
        refused_accept(loop)  # counted for the next minute's line
        repeat.flush()  # at exit, the tail is summarised
        assert len(records) == 3 and records[2].getMessage().startswith("1 more connection attempts refused")
    finally:
        loop.close()


def test_the_shutdowns_retry_callbacks_after_a_storm_are_counted_with_it(asyncio_log):
    records, _, _ = asyncio_log
    loop = asyncio.new_event_loop()
    try:
        refused_accept(loop)
        closed = ValueError("Invalid file descriptor: -1")
        for _ in range(100):
            loop.call_exception_handler({"message": f"{RETRY_CALLBACK}(...)", "exception": closed})
        assert len(records) == 1
    finally:
        loop.close()


def test_other_records_pass_unchanged_and_a_storm_after_a_quiet_minute_is_told_again(asyncio_log):
    records, _, clock = asyncio_log
    logger = logging.getLogger("asyncio")
    logger.error("Task exception was never retrieved", exc_info=(ValueError, ValueError("x"), None))
    logger.error(f"{RETRY_CALLBACK}(...)")  # no storm before it: not ours to hide
    loop = asyncio.new_event_loop()
    try:
        refused_accept(loop)
        clock.now += 120  # the storm ended with nothing counted; a new one is told whole
        refused_accept(loop)
    finally:
        loop.close()
    assert [r.getMessage().split("(")[0].strip() for r in records[:2]] == [
        "Task exception was never retrieved",
        RETRY_CALLBACK,
    ]
    assert len(records) == 4 and all(r.exc_info[1] is EMFILE for r in records[2:])


def test_install_puts_one_filter_on_the_loggers_that_log_refused_accepts():
    first = install()
    assert install() is first
    for name in ("asyncio", "uvicorn.error", "tornado.general", "tornado.application"):
        assert first in logging.getLogger(name).filters


def _limit_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


def test_a_served_app_out_of_file_handles_logs_one_error_and_one_count(tmp_path):
    """``posenc app`` with 256 file handles, then 600 idle connections: one traceback and one summary in the log
    (before the filter: a traceback per failed accept, megabytes within seconds)."""
    port, log_path = free_port(), tmp_path / "app.log"
    environment = {**os.environ, "POSENC_WARMUP": "off"}
    command = [sys.executable, "-m", "posenc", "app", "--port", str(port)]
    with log_path.open("w") as log:
        server = subprocess.Popen(
            command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=environment, preexec_fn=_limit_files
        )
    clients: list[socket.socket] = []
    try:
        wait_healthy(f"http://127.0.0.1:{port}", server, 60)
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))  # this side needs 600
        for _ in range(600):
            clients.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        deadline = time.monotonic() + 60
        while "Too many open files" not in log_path.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)  # polls the signal itself: the server's first refused accept in its log
        with contextlib.suppress(OSError):  # and a normal request while out of handles is not answered
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
    finally:
        for client in clients:
            client.close()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    text = log_path.read_text()
    assert text.count("Too many open files") == 1, text[-3000:]
    assert text.count("Traceback") == 1
    summaries = [line for line in text.splitlines() if "more connection attempts refused" in line]
    assert len(summaries) == 1 and int(summaries[0].split()[0]) > 1, summaries
    assert len(text) < 20_000
