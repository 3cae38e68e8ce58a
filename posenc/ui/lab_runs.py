"""Training a lab model in the background, for the *Train your own* box of the Length lab page (no Streamlit here).

A run is a separate process (``multiprocessing``'s spawn start: a fresh interpreter, so its torch thread count
and memory are its own, and Cancel ends it at once with ``terminate``). It trains one scheme with
``posenc_lab.train.train_checkpoint`` (the GPU when there is one), reports every step through a queue, then
evaluates the model at the lab's lengths and sends the rows. At most :data:`MAX_RUNS` run at once in a server: a
further start is refused with :class:`Busy`, whose message says how many are running, so nobody waits on a hang.

What a run holds is given back, whichever way it ends: when it finishes, fails or is cancelled, its process is
reaped and its handles closed (:meth:`Run.release`: the process's sentinel, the queue's pipe); the page registers
:meth:`Run.close` to run when its session ends (a closed tab, a reload: :mod:`posenc.ui.session_end`), which ends
the process, frees its place under the limit and forgets the run. A run's process watches the server in turn
(:func:`exit_with_parent`): if the server dies, however (SIGKILL included), its runs exit rather than train on for
no one.
"""

from __future__ import annotations

import itertools
import multiprocessing
import multiprocessing.connection
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_RUNS = 2  # runs training at once in this server (each takes a core)
MIN_STEPS, MAX_STEPS = 1, 2000  # the page offers 50 and up; the tests train 3 steps
CHILD_THREADS = 1  # torch threads in a run: the server's other readers keep the rest
REAP_SECONDS = 5.0  # how long a terminated run's process is given to exit before it is killed
KEEP_SECONDS = 3600  # a finished run's rows (no process, no handles) are kept this long for its page
RUNS: dict[int, Run] = {}
_LOCK = threading.Lock()
_IDS = itertools.count(1)


class Busy(ValueError):
    """The server is training as many models as it allows."""


@dataclass
class Run:
    """One background training: what it trains, how far it is, and its evaluation when done."""

    id: int
    scheme: str
    task: str
    steps: int
    seed: int
    process: Any = None
    messages: Any = None
    state: str = "running"  # running, done, failed, cancelled
    step: int = 0
    loss: float | None = None
    rows: dict = field(default_factory=dict)  # {"sliding": [...], "nonoverlapping": [...]} or {"copy": [...]}
    error: str = ""
    started: float = field(default_factory=time.monotonic)
    _releasing: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def label(self) -> str:
        return f"{self.scheme} (seed {self.seed})"

    @property
    def active(self) -> bool:
        return self.state == "running"

    def poll(self) -> Run:
        """Take in what the process reported; a process gone without its result is a failed run."""
        while self.active and (messages := self.messages) is not None:
            try:
                kind, *payload = messages.get_nowait()
            except (queue.Empty, OSError, ValueError):  # nothing yet, or released by another thread meanwhile
                process = self.process
                if process is not None and not process.is_alive() and messages.empty():
                    self._end("failed", "the training process ended without a result")
                break
            self._take(kind, payload)
        return self

    def wait(self, timeout: float, until: Callable[[Run], bool] = lambda run: not run.active) -> Run:
        """Block until ``until(run)`` holds (by default: the run has ended), its messages read as they come, or
        ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        while not until(self) and self.active and (messages := self.messages) is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                kind, *payload = messages.get(timeout=min(1.0, left))
            except (queue.Empty, OSError, ValueError):
                self.poll()
                continue
            self._take(kind, payload)
        return self

    def cancel(self) -> None:
        if self.active:
            self._end("cancelled")
        self.release()

    def close(self) -> None:
        """End the run with its session: cancelled if still going, its process and handles returned, and the run
        forgotten (its session, the only one that knew its id, is gone)."""
        self.cancel()
        with _LOCK:
            RUNS.pop(self.id, None)

    def release(self) -> None:
        """Return what the run holds of the server: its process terminated if alive and reaped (killed if it does
        not exit within :data:`REAP_SECONDS`), the Process object closed (its sentinel pipe), and the queue let go
        (its pipe closes when the last reference goes: it is the run's alone). Safe to call more than once."""
        with self._releasing:  # the page's poll and the session's end may both get here
            process, messages = self.process, self.messages
            self.process = self.messages = None
        if process is not None:
            if process.is_alive():
                process.terminate()
            process.join(timeout=REAP_SECONDS)
            if process.exitcode is None:
                process.kill()
                process.join()
            process.close()
        if messages is not None and hasattr(messages, "cancel_join_thread"):
            messages.cancel_join_thread()  # nothing of ours waits in it; the process that wrote to it is gone
            messages.close()

    def _take(self, kind: str, payload: list) -> None:
        if kind == "step":
            self.step, _total, self.loss = payload
        elif kind == "done":
            self.rows = payload[0]
            self._end("done")
        elif kind == "error":
            self._end("failed", payload[0])

    def _end(self, state: str, error: str = "") -> None:
        self.state, self.error = state, error
        self.release()


def active_count() -> int:
    with _LOCK:
        return sum(run.poll().active for run in RUNS.values())


def start(scheme: str, task: str, steps: int, seed: int, *, limit: int | None = None) -> Run:
    """Start training ``scheme`` on ``task``; :class:`Busy` when ``limit`` (default :data:`MAX_RUNS`) runs are
    going, ValueError naming a bad argument."""
    from posenc_lab.schemes import SCHEMES
    from posenc_lab.train import TrainSettings  # checks task, steps and seed

    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)} (got {scheme!r})")
    if not isinstance(steps, int) or not MIN_STEPS <= steps <= MAX_STEPS:
        raise ValueError(f"steps must be a whole number from {MIN_STEPS} to {MAX_STEPS} (got {steps!r})")
    TrainSettings(task=task, steps=steps, seed=seed)
    limit = MAX_RUNS if limit is None else limit
    context = multiprocessing.get_context("spawn")
    with _LOCK:
        running = sum(run.poll().active for run in RUNS.values())
        if running >= limit:
            raise Busy(f"busy: {running} runs in progress, try again shortly")
        run = Run(next(_IDS), scheme, task, steps, seed, messages=context.Queue())
        run.process = context.Process(target=work, args=(scheme, task, steps, seed, run.messages), daemon=True)
        run.process.start()
        RUNS[run.id] = run
        for old in [r for r in RUNS.values() if not r.active and time.monotonic() - r.started > KEEP_SECONDS]:
            del RUNS[old.id]
    return run


def exit_with_parent() -> bool:
    """In a run's process: exit the moment the server that started it is gone (a thread waits on the pipe the
    server holds open for its children, ``multiprocessing.parent_process().sentinel``, which reads as closed when
    the server dies, however it dies). False where there is no parent process (``work`` called in-process)."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return False

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)  # no cleanup to wait for: the server, the only reader of this run, is gone

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
    return True


def work(scheme: str, task: str, steps: int, seed: int, messages) -> None:
    """The run's process: train, report each step, evaluate at the lab's lengths, send the rows."""
    exit_with_parent()
    try:
        import torch

        torch.set_num_threads(CHILD_THREADS)
        from posenc_lab import results
        from posenc_lab.evaluate import MODES
        from posenc_lab.train import COPY_LETTERS, TrainSettings, train_checkpoint

        settings = TrainSettings(task=task, steps=steps, seed=seed)
        report = lambda step, total, loss: messages.put(("step", step, total, float(loss)))  # noqa: E731
        checkpoint = train_checkpoint(scheme, settings, device="auto", on_step=report)
        if task == "copy":
            letters = min(COPY_LETTERS, (checkpoint.config.max_len - 1) // 2)
            rows = {"copy": results.rows(checkpoint, "copy", results.copy_lengths_for(letters))}
        else:
            lengths = results.lengths_for(checkpoint.config.max_len)
            rows = {mode: results.rows(checkpoint, "lm", lengths, mode) for mode in MODES}
        messages.put(("done", rows))
    except Exception as error:  # the page shows the message; the server goes on
        messages.put(("error", f"{type(error).__name__}: {error}"))
