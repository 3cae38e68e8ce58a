"""The progress bar of ``posenc lab train``: step/steps, rate, loss and time left, on stderr, without tqdm.

On a terminal it is one line rewritten in place with ``\\r``; into a file or a pipe (a CI log) it is one line
every tenth of the run, so a log shows progress without thousands of lines.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 20  # characters of the bar itself
TENTHS = 10  # lines written when stderr is not a terminal


class Progress:
    """``on_step(step, steps, loss)`` for :func:`posenc_lab.train.train_checkpoint`, drawing on ``stream``."""

    def __init__(self, label: str, stream: TextIO | None = None, clock=time.perf_counter):
        self.label, self.stream, self.clock = label, stream or sys.stderr, clock
        self.started = clock()
        self.rewriting = bool(getattr(self.stream, "isatty", lambda: False)())
        self.drawn = False  # a rewritten line is on screen and needs its newline
        self.tenth = 0

    def __call__(self, step: int, steps: int, loss: float) -> None:
        if self.rewriting:
            self.stream.write("\r" + self.line(step, steps, loss))
            self.drawn = True
            if step == steps:
                self.close()
        elif step * TENTHS // steps > self.tenth or step == steps:
            self.tenth = step * TENTHS // steps
            self.stream.write(self.line(step, steps, loss) + "\n")
        self.stream.flush()

    def line(self, step: int, steps: int, loss: float) -> str:
        """``label [######----]  120/400  35.2 steps/s  loss 2.314  1m05s left``."""
        elapsed = max(self.clock() - self.started, 1e-9)
        rate = step / elapsed
        filled = WIDTH * step // steps
        bar = "#" * filled + "-" * (WIDTH - filled)
        left = (steps - step) / rate if rate > 0 else 0.0
        return (
            f"{self.label} [{bar}] {step:>{len(str(steps))}}/{steps}  {rate:.1f} steps/s  loss {loss:.3f}  "
            f"{duration(left)} left"
        )

    def close(self) -> None:
        """End a rewritten line (after the last step, or before a message when interrupted)."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False


def duration(seconds: float) -> str:
    """``42s``, ``3m05s`` or ``1h02m``: a time for people."""
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
