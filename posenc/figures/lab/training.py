"""Training loss against step for the six schemes on one task, each run's loss averaged over equal spans of
steps (``runs[*].curve`` of the results, :func:`posenc_lab.results.curve`): whether a model had stopped learning
when its training did."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.registry import FigureResult, register
from posenc.figures.lab import common, source
from posenc.figures.lab.seeds import Spread, spread_note, stats
from posenc.i18n import N_, _
from posenc_lab.checkpoints import CheckpointError

TITLE = N_("Training loss of each scheme")
TASK_WORDS = {"lm": N_("language model"), "copy": N_("copy task"), "passkey": N_("passkey retrieval")}


def curves(runs: list[Mapping[str, Any]], scheme: str, task: str) -> tuple[tuple[int, ...], np.ndarray, int] | None:
    """(seeds, curves (seeds, points), steps) of ``scheme``'s runs on ``task`` (not the fine-tunes); None without
    one. Seeds whose curve has another length than the first's are left out."""
    held = [run for run in runs if run["scheme"] == scheme and run["task"] == task and "method" not in run]
    held = [run for run in held if run.get("curve")]
    if not held:
        return None
    held = [run for run in held if len(run["curve"]) == len(held[0]["curve"])]
    return (
        tuple(run["seed"] for run in held),
        np.array([run["curve"] for run in held], dtype=np.float64),
        held[0]["steps"],
    )


@register("lab-training", title=TITLE, page="length_lab", params=("lab_task",))
def training_figure(p: Mapping[str, Any]) -> FigureResult:
    task = p["lab_task"]
    title = _("Training loss of each scheme ({task})").format(task=_(TASK_WORDS[task]))
    try:
        runs = source.all_results()["runs"]
    except CheckpointError:
        return FigureResult(common.missing(title))
    fig = go.Figure()
    data: dict[str, np.ndarray] = {}
    seeds: tuple[int, ...] = ()
    for scheme in source.SCHEME_ORDER:
        found = curves(runs, scheme, task)
        if found is None:
            continue
        held, values, steps = found
        step = (np.arange(values.shape[1]) + 0.5) * steps / values.shape[1]  # the middle of each span
        mean, low, high = stats(values)
        spread = Spread(step, mean, low, high, values, held, [])
        common.add_spread(
            fig,
            spread,
            common.scheme_name(scheme),
            common.SCHEME_COLORS[scheme],
            x=step,
            hover=_("step") + " %{customdata[0]:.0f}",
        )
        data.setdefault("step", step)
        data |= spread.columns(scheme)
        seeds = max(seeds, held, key=len)
    if not data:
        return FigureResult(common.absent(title, _("training curve")))
    fig.update_xaxes(title_text=_("training step"))
    fig.update_yaxes(type="log")
    note = _(
        "Each point is the mean training loss over an equal span of steps. A curve still falling at the right "
        "edge marks a model that was still learning when training stopped."
    )
    fig = common.finish(fig, title, _("training loss (nats per token, log scale)"))
    fig.update_layout(hovermode="closest")
    return FigureResult(fig, data, (note, spread_note(seeds)))
