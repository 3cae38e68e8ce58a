"""Train your own's background runs (posenc.ui.lab_runs): a 3-step run in its own process reports its steps and
its evaluation, the server-wide limit refuses a further run with a message instead of waiting, and Cancel ends
the process. What a run holds is given back: a finished run's process and handles, a closed session's runs (their
processes ended, their places freed), and a run whose server dies exits. Processes are counted as this process's
children (/proc/self/task/*/children) and handles as /proc/self/fd. Every wait is on the run's state (its
messages), on the session's end or on the process's own exit, with a bound, never a sleep."""

from __future__ import annotations

import multiprocessing.resource_tracker
import os
import queue
import select
import subprocess
import sys
import threading
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from posenc.ui import lab_runs, lab_training, session_end

BOUND = 300  # seconds: a spawned interpreter importing torch on a busy machine, then 8 copy evaluations
EXIT_BOUND = 60  # seconds for a run's process to exit once its server is gone (it exits at once: a thread waits)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_runs_left(monkeypatch):
    """No runs from another test, and the worker's own ``__main__``: a spawned process re-runs the parent's main
    script, and in a pytest worker an earlier AppTest may have left its temporary page script there (a server's
    main is Streamlit's, which runs nothing when imported)."""
    monkeypatch.setattr(lab_runs, "RUNS", {})
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    yield
    for run in lab_runs.RUNS.values():
        run.cancel()


def _children() -> set[int]:
    """This process's child processes, as the kernel lists them (every thread's children)."""
    tasks = Path("/proc/self/task")
    return {int(pid) for task in tasks.iterdir() for pid in (task / "children").read_text().split()}


def _open_handles() -> dict[int, str]:
    """This process's open file descriptors and what each is (``pipe:[123]``, a path, ...)."""
    handles = {}
    for fd in os.listdir("/proc/self/fd"):
        try:
            handles[int(fd)] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed meanwhile (the listing's own descriptor among them)
            continue
    return handles


def _what_is_new(before: tuple[set[int], dict[int, str]]) -> tuple[set[int], list[str]]:
    """(children, pipes) this process holds now and did not before: what a run holds of its server (a run's
    handles are pipes: its queue's and its process's sentinel), whatever other threads of the test process open."""
    children, handles = before
    pipes = [kind for fd, kind in _open_handles().items() if handles.get(fd) != kind and kind.startswith("pipe:")]
    return _children() - children, pipes


@pytest.fixture
def before() -> tuple[set[int], dict[int, str]]:
    """(children, open handles) before the test's runs; multiprocessing's resource tracker, one helper process the
    server starts with its first run and keeps, is started first so that it counts as already there."""
    multiprocessing.resource_tracker.ensure_running()
    return _children(), _open_handles()


def test_a_short_run_reports_its_steps_and_rows_and_the_limit_refuses_another(before):
    run = lab_runs.start("alibi", "copy", 3, 7, limit=1)
    pid = run.process.pid
    assert pid in _what_is_new(before)[0] and _what_is_new(before)[1]  # what the run holds is seen
    with pytest.raises(lab_runs.Busy, match="busy: 1 runs in progress, try again shortly"):
        lab_runs.start("nope", "copy", 3, 0, limit=1)
    assert lab_runs.active_count() == 1
    run.wait(BOUND)
    assert run.state == "done", run.error
    assert run.step == 3 and run.loss is not None and run.label == "alibi (seed 7)"
    assert [row["letters"] for row in run.rows["copy"]] == [10, 20, 30, 40, 60, 80]  # trained up to 20
    assert lab_runs.active_count() == 0 and run.process is None and run.messages is None
    assert _what_is_new(before) == (set(), [])  # the finished run's process reaped, its pipes closed


def test_cancel_ends_the_process_and_frees_the_place():
    run = lab_runs.start("rope", "lm", lab_runs.MAX_STEPS, 0, limit=1)
    pid = run.process.pid
    run.cancel()
    assert run.state == "cancelled" and run.process is None and pid not in _children()
    assert lab_runs.active_count() == 0
    lab_runs.start("rope", "lm", 5, 0, limit=1).cancel()  # the place is free again


def test_bad_arguments_are_refused_before_a_process_starts():
    with pytest.raises(ValueError, match="steps must be a whole number from 1 to 2000"):
        lab_runs.start("rope", "lm", 0, 0)
    with pytest.raises(ValueError, match="scheme must be one of nope, sinusoidal"):
        lab_runs.start("xpos", "lm", 5, 0)
    with pytest.raises(ValueError, match="task must be one of"):
        lab_runs.start("rope", "poetry", 5, 0)
    assert lab_runs.RUNS == {}


def test_the_runs_work_reports_every_step_then_its_rows_and_an_error_as_a_message():
    """What the spawned process runs, called here: the messages the page reads, in order."""
    messages = queue.Queue()
    lab_runs.work("alibi", "lm", 2, 0, messages)
    sent = [messages.get_nowait() for _ in range(messages.qsize())]
    assert [kind for kind, *_ in sent] == ["step", "step", "done"]
    assert sent[1][1:3] == (2, 2) and set(sent[-1][1]) == {"sliding", "nonoverlapping"}
    lab_runs.work("alibi", "sort", 2, 0, messages)
    assert messages.get_nowait() == ("error", "ValueError: task must be one of lm, copy, passkey (got 'sort')")


def test_a_class_pressing_train_at_once_starts_the_limit_and_hears_busy_while_pages_keep_drawing():
    """Fifty readers press Train in the same instant: the server starts MAX_RUNS runs and tells everyone else it is
    busy, at once and in words; while those runs train, a page still opens and draws."""
    from tests.pages.conftest import assert_healthy, open_page

    barrier = threading.Barrier(50)

    def press(seed: int):
        barrier.wait()
        try:
            return lab_runs.start("alibi", "lm", lab_runs.MAX_STEPS, seed)
        except lab_runs.Busy as busy:
            return str(busy)

    with ThreadPoolExecutor(max_workers=50) as pool:
        answers = list(pool.map(press, range(50)))
    started = [answer for answer in answers if isinstance(answer, lab_runs.Run)]
    assert len(started) == lab_runs.MAX_RUNS and lab_runs.active_count() == lab_runs.MAX_RUNS
    refused = [answer for answer in answers if isinstance(answer, str)]
    assert len(refused) == 50 - lab_runs.MAX_RUNS
    assert set(refused) == {f"busy: {lab_runs.MAX_RUNS} runs in progress, try again shortly"}
    assert_healthy(open_page("alibi"))  # the page a learner opens meanwhile draws
    for run in started:
        run.cancel()
    assert lab_runs.active_count() == 0


class _Runtime:
    """What posenc.ui.session_end wraps in a served app: the runtime's disconnect and close of a session."""

    def __init__(self, sessions):
        self.active = set(sessions)

    def is_active_session(self, session_id):
        return session_id in self.active

    def disconnect_session(self, session_id, client=None):  # a closed tab, or the old session of a reload
        self.active.discard(session_id)

    def close_session(self, session_id):
        self.active.discard(session_id)


def test_runs_end_with_their_sessions_and_every_process_and_handle_comes_back(before, monkeypatch):
    """Two readers start a run each (registered as the page registers them), the runs train, both tabs close: the
    runs are cancelled and forgotten, the limit is free, and the processes and handles are back to where they
    were."""
    runtime, session = _Runtime({"reader-a", "reader-b"}), types.SimpleNamespace(session_id="")
    monkeypatch.setattr(
        session_end, "runtime", types.SimpleNamespace(exists=lambda: True, get_instance=lambda: runtime)
    )
    monkeypatch.setattr(session_end, "get_script_run_ctx", lambda: session)
    runs = []
    for seed, reader in enumerate(("reader-a", "reader-b")):
        session.session_id = reader
        runs.append(lab_runs.start("alibi", "lm", lab_runs.MAX_STEPS, seed))
        assert session_end.close_at_end(lab_training.RUN, runs[-1])
    for run in runs:
        assert run.wait(BOUND, until=lambda run: run.step >= 1).step >= 1, run.error  # training, mid-run
    children, pipes = _what_is_new(before)
    assert len(children) == 2 and len(pipes) >= 4 and lab_runs.active_count() == 2
    runtime.disconnect_session("reader-a", client=object())
    assert runs[0].state == "cancelled" and runs[1].active and lab_runs.active_count() == 1
    runtime.close_session("reader-b")
    assert [run.state for run in runs] == ["cancelled", "cancelled"] and lab_runs.RUNS == {}
    assert lab_runs.active_count() == 0
    assert _what_is_new(before) == (set(), [])


SERVER = """
import sys
from posenc.ui import lab_runs
run = lab_runs.start("alibi", "lm", lab_runs.MAX_STEPS, 0)
run.wait({bound}, until=lambda run: run.step >= 1)
print(run.process.pid, run.step, flush=True)
sys.stdin.read()
"""


def test_a_runs_process_exits_when_its_server_is_killed():
    """A server (a Python process standing in for Streamlit) starts a run and is killed with SIGKILL mid-run: the
    run's process, orphaned, exits by itself. Waited on through a pidfd (the kernel says when the process exits)."""
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER.format(bound=BOUND)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
    )
    try:
        line = server.stdout.readline()  # the server's script waits at most BOUND for the first step
        pid, step = map(int, line.split())
        run_process = os.pidfd_open(pid)
    finally:
        server.kill()
        server.wait(timeout=EXIT_BOUND)
    exited = False
    try:
        assert step >= 1  # it was training when its server died
        exited = bool(select.select([run_process], [], [], EXIT_BOUND)[0])
        assert exited, f"the run's process {pid} still runs {EXIT_BOUND} s after its server was killed"
    finally:
        os.close(run_process)
        if not exited:
            os.kill(pid, 9)
