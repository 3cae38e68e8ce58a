"""A swept figure as one Plotly animation: every frame built by the figure's own builder (``registry.build``),
switched in the browser by a slider and play/pause buttons, with no server round trip.

So that the motion is the data's, the axes hold still: each axis covers every frame's data (its union, on a log
axis in decades), and a heatmap's colour scale spans every frame's values. A frame with fewer traces than another
is padded with empty ones, so Plotly's trace-by-index update never leaves a stale curve behind. A sweep whose
frames would send more than :data:`MAX_SWEEP_BYTES` (a page's bound; a file's is :data:`MAX_FILE_SWEEP_BYTES`)
keeps fewer frames, evenly spread, ends kept, and says so.

Before any frame is built, the sweep's work is budgeted (``sweep.budget_frames``: fewer frames, or a refusal naming
the bound). A frame whose value the figure refuses with the others kept (a partial rotary factor that leaves an odd
rotary dimension, a beta_slow past beta_fast) is left out, and said; a sweep with fewer than two frames left is
refused. ``cancelled`` (a callable) is asked before each frame: once it is true (the reader's session ended), the
build stops with :class:`SweepCancelled`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing import registry
from posenc.drawing.registry import FigureResult
from posenc.drawing.sweep import SWEEP_WORK_BUDGET, Sweep, budget_frames, check_sweep, frame_work, spread_indices
from posenc.i18n import _

MAX_SWEEP_BYTES = 3_000_000
"""Most JSON one swept figure sends to the browser (the issue's budget: 3 MB at a page's defaults)."""
MAX_FILE_SWEEP_BYTES = 64_000_000
"""Most JSON one swept figure holds in a file the reader asked for (``posenc export --sweep``): a file is not sent to
a browser with the page, so its bound is larger; 60 frames of a 1024 x 128 heatmap are about 20 MB."""


class SweepCancelled(Exception):
    """The sweep's build was stopped between frames: whoever asked for it has gone."""


SLIDER_ROOM = 100  # pixels above the plot for the slider (its value, its rail, its labels) and the play button
_PAD = 0.03  # share of a linear axis' span added on each side


@dataclass
class SweepResult:
    """The animated figure, the value and the still result of each frame kept, and notes for the reader."""

    figure: go.Figure
    figure_id: str
    sweep: Sweep
    values: list[float | int]
    frames: list[FigureResult]
    notes: list[str] = field(default_factory=list)
    images: dict = field(default_factory=dict, repr=False)  # (style, size) -> the frames as PNG bytes (export_sweep)


def frame_params(figure_id: str, params: Mapping[str, Any], name: str, value: float | int) -> dict[str, Any]:
    """The figure's parameters with ``name`` set to ``value``, the others kept within the range it allows."""
    values, _messages = registry.resolve_params(figure_id, {**params, name: value})
    return values


def build_frames(
    figure_id: str,
    params: Mapping[str, Any],
    sweep: Sweep,
    *,
    style: str = "screen",
    work_budget: int = SWEEP_WORK_BUDGET,
    cancelled: Callable[[], bool] | None = None,
    notes: list[str] | None = None,
):
    """(values, the still FigureResult of each frame) for ``sweep``, each built as the app builds a figure: the
    frames the work budget keeps (see the module's docstring), less those the figure refuses; what was left out
    is appended to ``notes``. ValueError when fewer than two frames are left; :class:`SweepCancelled` once
    ``cancelled()`` is true."""
    sweep = check_sweep(sweep, figure_id)
    notes = [] if notes is None else notes
    values = sweep.values()
    frames = [frame_params(figure_id, params, sweep.param, value) for value in values]
    chosen, note = budget_frames([frame_work(figure_id, frame) for frame in frames], sweep, work_budget)
    if note:
        notes.append(note)
    kept, results, refused = [], [], []
    for k in chosen:
        if cancelled is not None and cancelled():
            raise SweepCancelled(f"sweep {sweep.param} of {figure_id}: stopped after {len(results)} frames")
        try:
            results.append(registry.build(figure_id, frames[k], style=style))
        except ValueError as error:
            refused.append((values[k], error))
            continue
        kept.append(values[k])
    if refused:
        shown = ", ".join(value_text(value) for value, _error in refused)
        if len(kept) < 2:
            raise ValueError(
                f"sweep {sweep.param}: the figure refuses {len(refused)} of its {len(chosen)} values ({shown}), "
                f"leaving fewer than two frames: {refused[0][1]}"
            )
        note = _("{count} of {total} values left out ({values}): {reason}")
        notes.append(note.format(count=len(refused), total=len(chosen), values=shown, reason=refused[0][1]))
    return kept, results


def animate(
    figure_id: str,
    params: Mapping[str, Any],
    sweep: Sweep,
    *,
    style: str = "screen",
    budget: int = MAX_SWEEP_BYTES,
    work_budget: int = SWEEP_WORK_BUDGET,
    cancelled: Callable[[], bool] | None = None,
) -> SweepResult:
    """The sweep as one animated figure (see the module's docstring), fewer frames when over ``budget`` bytes or
    ``work_budget`` units of work."""
    notes: list[str] = []
    values, results = build_frames(
        figure_id, params, sweep, style=style, work_budget=work_budget, cancelled=cancelled, notes=notes
    )
    hold_still([result.figure for result in results])
    figure = assemble([result.figure for result in results], values, sweep)
    size = len(figure.to_json())
    if size > budget and len(values) > 2:
        keep = max(2, int(len(values) * budget / size))
        chosen = spread_indices(len(values), keep)
        note = _("{frames} frames would send {size:.1f} MB, more than the {budget:.0f} MB a page holds: {kept} shown")
        notes.append(note.format(frames=len(values), size=size / 1e6, budget=budget / 1e6, kept=len(chosen)))
        values, results = [values[k] for k in chosen], [results[k] for k in chosen]
        figure = assemble([result.figure for result in results], values, sweep)
    return SweepResult(figure, figure_id, sweep, values, results, notes)


def hold_still(figures: list[go.Figure]) -> None:
    """Give every figure the same axis ranges (each axis the union of all frames' data) and colour ranges."""
    ranges: dict[str, list[float]] = {}
    tight: set[str] = set()  # axes under a heatmap: its cells fill the plot, no margin around them
    for fig in figures:
        for trace in fig.data:
            for letter in ("x", "y"):
                axis = _axis_name(letter, getattr(trace, f"{letter}axis", None))
                values = getattr(trace, letter, None)
                if _has_z(trace):  # a cell reaches half a step past its centre
                    tight.add(axis)
                    values = _cell_edges(values)
                _extend(ranges, axis, values, _is_log(fig, axis))
    z_values = [np.asarray(t.z, dtype=float) for fig in figures for t in fig.data if _has_z(t)]
    z_range = _finite_range(np.concatenate([z.ravel() for z in z_values])) if z_values else None
    for fig in figures:
        for axis, (low, high) in ranges.items():
            if axis in fig.layout and fig.layout[axis] is not None:
                log = _is_log(fig, axis)
                span = 0.0 if log or axis in tight else (high - low) * _PAD or abs(high) * _PAD or 1.0
                fig.layout[axis].update(range=[low - span, high + span], autorange=False)
        if z_range is not None:
            for trace in fig.data:
                if _has_z(trace) and not getattr(trace, "coloraxis", None):
                    trace.update(zmin=z_range[0], zmax=z_range[1], zauto=False)
            for name in fig.layout:
                if name.startswith("coloraxis") and fig.layout[name] is not None:
                    fig.layout[name].update(cmin=z_range[0], cmax=z_range[1], cauto=False)


def assemble(figures: list[go.Figure], values: list, sweep: Sweep) -> go.Figure:
    """The first frame's figure with every frame attached, and above the plot a slider naming each value, with
    play / pause beside it (above: under the plot sit the axis title and often the legend)."""
    most = max(len(figure.data) for figure in figures)
    frames = []
    for k, figure in enumerate(figures):
        data = list(figure.data) + [_empty() for _ in range(most - len(figure.data))]
        layout = figure.layout
        frame_layout = {"title": layout.title, "shapes": layout.shapes, "annotations": layout.annotations}
        frames.append(go.Frame(name=str(k), data=data, layout=frame_layout))
    first = go.Figure(figures[0])
    first.add_traces([_empty() for _ in range(most - len(first.data))])
    first.frames = frames
    # Scatter curves move by Plotly's transition (no full redraw: faster); other traces (heatmaps) need the redraw.
    redraw = any(trace.type not in ("scatter", "scattergl") for figure in figures for trace in figure.data)
    step = {"mode": "immediate", "frame": {"duration": 0, "redraw": redraw}, "transition": {"duration": 0}}
    steps = [
        {"method": "animate", "label": value_text(value), "args": [[str(k)], step]} for k, value in enumerate(values)
    ]
    play = {"frame": {"duration": 700, "redraw": redraw}, "fromcurrent": True, "transition": {"duration": 0}}
    font = first.layout.font.size or 14
    first.update_layout(
        height=(first.layout.height or 450) + SLIDER_ROOM,
        margin={"t": (first.layout.margin.t or 60) + SLIDER_ROOM},
        sliders=[
            {
                "active": 0,
                "steps": steps,
                "currentvalue": {"prefix": f"{_(sweep.spec.label)} = ", "font": {"size": font}},
                "font": {"size": max(10, font - 2)},
                "x": 0.1,
                "len": 0.9,
                "y": 1.0,
                "yanchor": "bottom",
                "pad": {"t": 0, "b": 12},
            }
        ],
        updatemenus=[
            {
                "type": "buttons",
                "direction": "left",
                "x": 0.0,
                "y": 1.0,
                "xanchor": "left",
                "yanchor": "bottom",
                "pad": {"b": 30},
                "showactive": False,
                "buttons": [
                    {"label": "▶", "method": "animate", "args": [None, play]},
                    {"label": "⏸", "method": "animate", "args": [[None], {**step, "frame": {"duration": 0}}]},
                ],
            }
        ],
    )
    return first


def value_text(value: float | int) -> str:
    """A frame's value for its label: whole numbers with thousands separators (15,199), else 4 digits (0.3162)."""
    if isinstance(value, int) or (abs(value) >= 100 and float(value).is_integer()) or abs(value) >= 1e4:
        return f"{round(value):,}"
    return f"{value:.4g}"


def _empty() -> go.Scatter:
    return go.Scatter(x=[], y=[], showlegend=False, hoverinfo="skip")


def _axis_name(letter: str, ref: str | None) -> str:
    """A trace's axis reference ("x2") as its layout key ("xaxis2")."""
    suffix = (ref or letter)[1:]
    return f"{letter}axis{suffix}"


def _is_log(fig: go.Figure, axis: str) -> bool:
    return axis in fig.layout and fig.layout[axis] is not None and fig.layout[axis].type == "log"


def _has_z(trace) -> bool:
    return getattr(trace, "z", None) is not None and trace.type in ("heatmap", "contour", "surface")


def _extend(ranges: dict[str, list[float]], axis: str, values: Any, log: bool) -> None:
    if values is None:
        return
    try:
        array = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):  # categories or dates: Plotly's own range is kept
        return
    if log:
        array = np.log10(array[array > 0])
    found = _finite_range(array)
    if found is None:
        return
    low, high = ranges.get(axis, [math.inf, -math.inf])
    ranges[axis] = [min(low, found[0]), max(high, found[1])]


def _cell_edges(centres: Any) -> Any:
    """A heatmap's first and last cell edges along an axis, from its cell centres (None: Plotly's own indices)."""
    if centres is None:
        return None
    try:
        array = np.asarray(centres, dtype=float).ravel()
    except (TypeError, ValueError):
        return None
    if array.size < 2:
        return array
    half = np.abs(np.diff(array)).min() / 2
    return np.array([array.min() - half, array.max() + half])


def _finite_range(array: np.ndarray) -> tuple[float, float] | None:
    finite = array[np.isfinite(array)]
    return (float(finite.min()), float(finite.max())) if finite.size else None
