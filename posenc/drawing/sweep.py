"""Sweeps: one numeric parameter of a figure stepped through a range, every step built by the figure's own builder.

A sweep is written ``base:10000..1000000:12`` in a link (``name=from..to:frames`` on the exporter's command line):
the parameter, its first and last value, and the number of frames. Frames are spaced as the parameter's own scale
is: geometric for a parameter that spans decades (``ParamSpec.log``: the base, the factor), even otherwise; a whole
number parameter is rounded and a value repeated by rounding is dropped (ALiBi's heads 1..8 in 12 frames: 8).

:func:`check_sweep` refuses, with a ValueError naming what is allowed, a parameter the figure does not take, one
that is not a number, a range outside the parameter's bounds, and fewer than 2 or more than :data:`MAX_FRAMES` frames.

A sweep's work is budgeted before any frame is built (:func:`budget_frames`): each frame's work is estimated from the
figure's size parameters (:func:`frame_work`), and a sweep whose frames together ask for more than
:data:`SWEEP_WORK_BUDGET` keeps as many frames as fit, ends kept, and says so; one whose two ends alone do not fit is
refused with a ValueError naming the bound.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from posenc.drawing.params import PARAMS, ParamSpec
from posenc.drawing.registry import get_spec

DEFAULT_FRAMES = 12
MIN_FRAMES = 2
MAX_FRAMES = 60
"""Most frames a sweep takes: a minute of slides at one frame a second, and a payload a page can hold."""
NUMERIC_KINDS = ("int", "float")
SWEEP_WORK_BUDGET = 2**32
"""Most work one sweep may ask for, all its frames together, in *work units*: one unit is one position × one rotary
pair (or channel) a frame evaluates (:func:`frame_work`). About 20 CPU-seconds on a 2020s laptop core (the plan
figure evaluates about 2e8 units a second there), whatever the link asks for: a hostile
``/plan?...&sweep=target:8000000..16777216:60`` asked for about 5e10 (220 CPU-seconds) and now keeps 4 frames."""
BASE_WORK = 2**20
"""The work of any frame whatever its sizes: building and styling a Plotly figure."""
DRAWN_POSITIONS = 4096
"""Positions a figure of a sequence evaluates at most per frame, whatever its sequence length: the figures draw a
window of a long sequence, or a screen's worth of samples of it (measured: rope-angles at 1M positions builds in the
time of 4k)."""
PLAN_BASE_WORK = 2**27
"""The plan figure's work past its target's: it searches the method's settings (about 0.7 CPU-seconds a frame)."""
PINNED: dict[str, dict[str, str]] = {
    "mrope-channels": {
        "head_dim": "its sections (mrope_section) must add up to head_dim/2, so it moves only with them"
    },
}
"""Numeric parameters a figure takes but cannot sweep alone (another parameter fixes them), and why: the Sweep box
does not offer them and :func:`check_sweep` refuses them."""
_POSITION_PARAMS = ("seq_len", "max_len", "nope_length", "original_max_position_embeddings", "target_context")
_CHANNEL_PARAMS = ("head_dim", "d_model", "embedding_dim", "value_dim")
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


def sweepable_params(figure_id: str) -> list[str]:
    """The numeric parameters of figure ``figure_id`` that a sweep may move (those :data:`PINNED` left out)."""
    pinned = PINNED.get(figure_id, {})
    params = get_spec(figure_id).params
    return [name for name in params if PARAMS[name].kind in NUMERIC_KINDS and name not in pinned]


def check_sweep(sweep: Sweep, figure_id: str) -> Sweep:
    """``sweep`` if figure ``figure_id`` can be swept so, else a ValueError saying what is allowed."""
    spec = get_spec(figure_id)
    numeric = sweepable_params(figure_id)
    if sweep.param in PINNED.get(figure_id, {}):
        raise ValueError(f"{figure_id} cannot sweep {sweep.param}: {PINNED[figure_id][sweep.param]}")
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


def frame_work(figure_id: str, params: Mapping[str, Any]) -> int:
    """Estimated work of one frame of ``figure_id`` at ``params``, in :data:`SWEEP_WORK_BUDGET`'s units.

    The plan figure evaluates every position up to its target for every rotary pair, as the planner does
    (``posenc_core.plan``'s own measure of a plan's work: pairs × target), plus :data:`PLAN_BASE_WORK` for its
    search. Any other figure: positions (its sequence length, at most :data:`DRAWN_POSITIONS`) × channels (its
    head or model dimension) × heads, plus :data:`BASE_WORK`."""
    if "target" in params:
        pairs = max(1, int(int(params.get("head_dim", 2)) * float(params.get("partial_rotary_factor", 1.0))) // 2)
        return PLAN_BASE_WORK + pairs * int(params["target"])
    positions = max([int(params[name]) for name in _POSITION_PARAMS if name in params] or [1])
    channels = max([int(params[name]) for name in _CHANNEL_PARAMS if name in params] or [1])
    heads = int(params.get("n_heads", 1))
    return BASE_WORK + min(positions, DRAWN_POSITIONS) * channels * heads


def budget_frames(works: Sequence[int], sweep: Sweep, budget: int = SWEEP_WORK_BUDGET) -> tuple[list[int], str | None]:
    """Which frames of ``sweep`` to build, given each one's estimated work ``works``: all of them when their sum is
    within ``budget``; else as many as fit, evenly spread, the ends kept, with a note naming the bound. A
    ValueError, naming the bound, when the two ends alone are over it."""
    total = sum(works)
    if total <= budget:
        return list(range(len(works))), None
    ends = works[0] + works[-1]
    if ends > budget:
        raise ValueError(
            f"sweep {sweep.param}: its first and last frames alone ask for {ends:.2g} units of work, more than the "
            f"{budget:.2g} a sweep may use (one unit: a position × a rotary pair); sweep smaller values"
        )
    keep = len(works) - 1
    chosen = spread_indices(len(works), keep)
    while keep > 2 and sum(works[k] for k in chosen) > budget:
        keep -= 1
        chosen = spread_indices(len(works), keep)
    note = (
        f"sweep {sweep.param}: {len(works)} frames would ask for {total:.2g} units of work, more than the "
        f"{budget:.2g} a sweep may use: {len(chosen)} frames built"
    )
    return chosen, note


def spread_indices(count: int, keep: int) -> list[int]:
    """``keep`` indices of ``range(count)``, evenly spread, first and last included."""
    return sorted({round(k * (count - 1) / (keep - 1)) for k in range(keep)})
