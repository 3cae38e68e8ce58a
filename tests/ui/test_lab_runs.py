"""Train your own's background runs (posenc.ui.lab_runs): a 3-step run in its own process reports its steps and
its evaluation, the server-wide limit refuses a further run with a message instead of waiting, and Cancel ends
the process. Every wait is on the run's state (its messages), with a bound, never a sleep."""

from __future__ import annotations

import queue
import sys
import threading
import types
from concurrent.futures import ThreadPoolExecutor

import pytest

from posenc.ui import lab_runs

BOUND = 300  # seconds: a spawned interpreter importing torch on a busy machine, then 8 copy evaluations


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


def test_a_short_run_reports_its_steps_and_rows_and_the_limit_refuses_another():
    run = lab_runs.start("alibi", "copy", 3, 7, limit=1)
    with pytest.raises(lab_runs.Busy, match="busy: 1 runs in progress, try again shortly"):
        lab_runs.start("nope", "copy", 3, 0, limit=1)
    assert lab_runs.active_count() == 1
    run.wait(BOUND)
    assert run.state == "done", run.error
    assert run.step == 3 and run.loss is not None and run.label == "alibi (seed 7)"
    assert [row["letters"] for row in run.rows["copy"]] == [10, 20, 30, 40, 60, 80]  # trained up to 20
    assert lab_runs.active_count() == 0 and not run.process.is_alive()


def test_cancel_ends_the_process_and_frees_the_place():
    run = lab_runs.start("rope", "lm", lab_runs.MAX_STEPS, 0, limit=1)
    run.cancel()
    assert run.state == "cancelled" and not run.process.is_alive()
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
    assert messages.get_nowait() == ("error", "ValueError: task must be one of lm, copy (got 'sort')")


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
