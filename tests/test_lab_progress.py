"""The progress bar of ``posenc lab train`` (posenc/commands/lab_progress.py): one rewritten line on a terminal, a
line every tenth of the run elsewhere, with the step, rate, loss and time left."""

from __future__ import annotations

import io
import itertools

import pytest

from posenc.commands.lab_progress import Progress, duration


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _ticking(seconds_per_step: float):
    """A clock that advances ``seconds_per_step`` at each reading after the first."""
    counter = itertools.count()
    return lambda: next(counter) * seconds_per_step


def test_a_terminal_gets_one_line_rewritten_then_ended():
    stream = _Terminal()
    progress = Progress("rope-lm", stream, clock=_ticking(0.5))
    for step in range(1, 5):
        progress(step, 4, 2.0 / step)
    text = stream.getvalue()
    assert text.count("\r") == 4 and text.count("\n") == 1 and text.endswith("0s left\n")
    last = text.split("\r")[-1]
    assert last == "rope-lm [####################] 4/4  2.0 steps/s  loss 0.500  0s left\n"


def test_a_log_gets_a_line_every_tenth():
    stream = io.StringIO()
    progress = Progress("t5-copy", stream, clock=_ticking(0.01))
    for step in range(1, 101):
        progress(step, 100, 1.0)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 10 and "\r" not in stream.getvalue()
    assert lines[0].startswith("t5-copy [##------------------]  10/100  ") and "loss 1.000" in lines[0]
    assert lines[-1].startswith("t5-copy [####################] 100/100  ")


def test_time_left_is_the_steps_left_at_the_rate_so_far():
    progress = Progress("x", io.StringIO(), clock=iter([0.0, 10.0]).__next__)
    assert progress.line(20, 100, 1.0).endswith("2.0 steps/s  loss 1.000  40s left")


def test_closing_an_interrupted_bar_ends_its_line_once():
    stream = _Terminal()
    progress = Progress("x", stream, clock=_ticking(1.0))
    progress(1, 10, 1.0)
    progress.close()
    progress.close()
    assert stream.getvalue().count("\n") == 1


@pytest.mark.parametrize(("seconds", "text"), [(4.4, "4s"), (59.6, "1m00s"), (185, "3m05s"), (3725, "1h02m")])
def test_durations_read_as_people_write_them(seconds, text):
    assert duration(seconds) == text
