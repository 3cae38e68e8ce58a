"""Sweeps: one numeric parameter of a figure stepped through a range, every step built by the figure's own builder.

A sweep is written ``base:10000..1000000:12`` in a link (``name=from..to:frames`` on the exporter's command line):
the parameter, its first and last value, and the number of frames. Frames are spaced as the parameter's own scale
is: geometric for a parameter that spans decades (``ParamSpec.log``: the base, the factor), even otherwise; a whole
number parameter is rounded and a value repeated by rounding is dropped (ALiBi's heads 1..8 in 12 frames: 8).

:func:`check_sweep` refuses, with a ValueError naming what is allowed, a parameter the figure does not take, one
that is not a number, a range outside the parameter's bounds, and fewer than 2 or more than :data:`MAX_FRAMES` frames.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from posenc.drawing.params import PARAMS, ParamSpec
from posenc.drawing.registry import get_spec

DEFAULT_FRAMES = 12
MIN_FRAMES = 2
MAX_FRAMES = 60
"""Most frames a sweep takes: a minute of slides at one frame a second, and a payload a page can hold."""
NUMERIC_KINDS = ("int", "float")
_FORM = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*[:=](.*)$", re.DOTALL)


@dataclass(frozen=True)
class Sweep:
    """A parameter, its first and last value, and the number of frames."""

    param: str
    start: float
    stop: float
    frames: int = DEFAULT_FRAMES

    @property
    def spec(self) -> ParamSpec:
        return PARAMS[self.param]

    @property
    def spacing(self) -> str:
        """ "log" for a parameter that spans decades (geometric steps), else "linear"."""
        return "log" if self.spec.log and self.start > 0 and self.stop > 0 else "linear"

    def values(self) -> list[float | int]:
        """The frames' values, first to last (whole numbers for an int parameter, repeats dropped)."""
        n, a, b = self.frames, self.start, self.stop
        if self.spacing == "log":
            raw = [math.exp(math.log(a) + (math.log(b) - math.log(a)) * k / (n - 1)) for k in range(n)]
        else:
            raw = [a + (b - a) * k / (n - 1) for k in range(n)]
        raw[0], raw[-1] = a, b  # exact ends, whatever the rounding of the steps
        if self.spec.kind == "int":
            step = 2 if self.spec.even else 1
            return list(dict.fromkeys(int(round(value / step) * step) for value in raw))
        return [float(f"{value:.6g}") if 0 < k < n - 1 else float(value) for k, value in enumerate(raw)]

    def to_url(self) -> str:
        """``name:from..to:frames`` as a link holds it."""
        return f"{self.param}:{self.spec.to_url(self.start)}..{self.spec.to_url(self.stop)}:{self.frames}"


def parse_sweep(text: str) -> Sweep:
    """A :class:`Sweep` from ``name:from..to:frames`` or ``name=from..to:frames`` (frames optional: 12).
    ValueError, with the expected form, for anything else."""
    form = f"sweep must look like base:10000..1000000:12 (a parameter, from..to, frames); got {str(text)!r}"
    match = _FORM.match(str(text))
    if match is None:
        raise ValueError(form)
    name, rest = match.groups()
    span, _, frames = rest.partition(":")
    start, dots, stop = span.partition("..")
    if not dots:
        raise ValueError(form)
    try:
        values = float(start), float(stop)
    except ValueError:
        raise ValueError(
            f"sweep {name}: from and to must be numbers (got {start.strip()!r} and {stop.strip()!r})"
        ) from None
    frames = frames.strip()
    if not frames:
        count = DEFAULT_FRAMES
    elif frames.isdigit():
        count = int(frames)
    else:
        raise ValueError(f"sweep {name}: the number of frames must be a whole number (got {frames!r})")
    return Sweep(name, *values, count)


def check_sweep(sweep: Sweep, figure_id: str) -> Sweep:
    """``sweep`` if figure ``figure_id`` can be swept so, else a ValueError saying what is allowed."""
    spec = get_spec(figure_id)
    numeric = [name for name in spec.params if PARAMS[name].kind in NUMERIC_KINDS]
    if sweep.param not in spec.params:
        raise ValueError(
            f"figure {figure_id!r} has no parameter {sweep.param!r}; its numeric ones: {', '.join(numeric) or 'none'}"
        )
    param = PARAMS[sweep.param]
    if param.kind not in NUMERIC_KINDS:
        raise ValueError(
            f"{sweep.param} is not a number (it is a {param.kind}), so it cannot be swept; "
            f"the numeric parameters of {figure_id!r}: {', '.join(numeric) or 'none'}"
        )
    for end in (sweep.start, sweep.stop):
        if not math.isfinite(end) or param.coerce(end)[1] is not None or (param.kind == "int" and end != int(end)):
            raise ValueError(f"sweep {sweep.param}: {end:g} is outside what it allows ({param.allowed()})")
    if sweep.start == sweep.stop:
        raise ValueError(f"sweep {sweep.param}: from and to are the same ({sweep.start:g}); nothing would move")
    if not MIN_FRAMES <= sweep.frames <= MAX_FRAMES:
        raise ValueError(f"sweep {sweep.param}: frames must be {MIN_FRAMES} to {MAX_FRAMES} (got {sweep.frames})")
    if len(sweep.values()) < MIN_FRAMES:
        raise ValueError(f"sweep {sweep.param}: {sweep.start:g}..{sweep.stop:g} holds fewer than two whole values")
    return sweep
