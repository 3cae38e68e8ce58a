"""Training a lab model in the background, for the *Train your own* box of the Length lab page (no Streamlit here).

A run is a separate process (``multiprocessing``'s spawn start: a fresh interpreter, so its torch thread count
and memory are its own, and Cancel ends it at once with ``terminate``). It trains one scheme with
``posenc_lab.train.train_checkpoint`` (the GPU when there is one), reports every step through a queue, then
evaluates the model at the lab's lengths and sends the rows. At most :data:`MAX_RUNS` run at once in a server: a
further start is refused with :class:`Busy`, whose message says how many are running, so nobody waits on a hang.
"""

from __future__ import annotations

import itertools
import multiprocessing
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

MAX_RUNS = 2  # runs training at once in this server (each takes a core)
MIN_STEPS, MAX_STEPS = 1, 2000  # the page offers 50 and up; the tests train 3 steps
CHILD_THREADS = 1  # torch threads in a run: the server's other readers keep the rest
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

    @property
    def label(self) -> str:
        return f"{self.scheme} (seed {self.seed})"

    @property
    def active(self) -> bool:
        return self.state == "running"

    def poll(self) -> Run:
        """Take in what the process reported; a process gone without its result is a failed run."""
        while self.active:
            try:
                kind, *payload = self.messages.get_nowait()
            except queue.Empty:
                if self.process is not None and not self.process.is_alive() and self.messages.empty():
                    self._end("failed", "the training process ended without a result")
                break
            self._take(kind, payload)
        return self

    def wait(self, timeout: float) -> Run:
        """Block until the run ends (its messages arrive) or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        while self.active and time.monotonic() < deadline:
            try:
                kind, *payload = self.messages.get(timeout=min(1.0, max(deadline - time.monotonic(), 0.01)))
            except queue.Empty:
                self.poll()
                continue
            self._take(kind, payload)
        return self

    def cancel(self) -> None:
        if self.active:
            self._end("cancelled")

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
        if self.process is not None:
            if self.process.is_alive():
                self.process.terminate()
            self.process.join(timeout=5)


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
        for old in [r for r in RUNS.values() if not r.active and time.monotonic() - r.started > 3600]:
            del RUNS[old.id]
    return run


def work(scheme: str, task: str, steps: int, seed: int, messages) -> None:
    """The run's process: train, report each step, evaluate at the lab's lengths, send the rows."""
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
