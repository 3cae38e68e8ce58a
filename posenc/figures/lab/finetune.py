"""The RoPE model scaled by s = 4 with and without a short fine-tune at 4L: position interpolation (PI, m -> m/s),
NTK-aware and YaRN, each evaluated without retraining (dashed) and after 1,000 steps at 4L under the same
scaling (solid), beside the unscaled model fine-tuned the same way (the control: what the longer windows alone
give). Refs: Chen et al. 2023 (PI: "without fine-tuning it breaks, with about 1,000 steps it recovers"),
bloc97 2023 (NTK), Peng et al. 2023 (YaRN)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY
from posenc.figures.lab import common, source
from posenc.figures.lab.lengths import y_title
from posenc.figures.lab.scaling import method_name
from posenc.figures.lab.seeds import spread as across_seeds
from posenc.figures.lab.seeds import spread_note
from posenc.i18n import N_, _
from posenc_lab.checkpoints import CheckpointError
from posenc_lab.scaling import SCALING_TYPES

TITLE = N_("Scaled RoPE with and without a fine-tune")
METHODS = ("linear", "ntk", "yarn")  # each drawn twice: no fine-tune (dashed), fine-tuned (solid)
CONTROL = "default"  # no scaling, fine-tuned the same way


def color(kind: str) -> str:
    """The method's colour in the scaling figure too."""
    return COLORWAY[SCALING_TYPES.index(kind) % len(COLORWAY)]


@register("lab-finetune", title=TITLE, page="length_lab", params=("lab_metric",))
def finetune_figure(p: Mapping[str, Any]) -> FigureResult:
    metric = p["lab_metric"]
    try:
        views = source.seed_views()
    except CheckpointError:
        return FigureResult(common.missing(_(TITLE)))
    tuned = views[0].get("finetune")
    if not tuned:
        return FigureResult(common.absent(_(TITLE), _("fine-tune")))
    title = _("Scaled RoPE (s = {s:g}) without a fine-tune (dashed) and after {steps:,} steps at {n} tokens").format(
        s=tuned["factor"], steps=tuned["steps"], n=tuned["length"]
    )
    fig = go.Figure()
    data: dict[str, np.ndarray] = {"length": np.array(views[0]["lengths"], dtype=np.float64)}
    seeds: tuple[int, ...] = ()
    log_y = metric == "perplexity"
    curves = [(kind, "scaling", _("{method}, no fine-tune"), "dash", "untuned") for kind in METHODS]
    curves += [(kind, "finetune", _("{method}, fine-tuned"), "solid", "finetuned") for kind in (*METHODS, CONTROL)]
    for kind, table, label, dash, column in curves:
        spread = across_seeds(views, (table, "rows", kind), metric)
        if spread is None:
            continue
        name = label.format(method=method_name(kind))
        common.add_spread(fig, spread, name, color(kind), dash=dash, log_y=log_y)
        data |= spread.columns(f"{kind}_{column}")
        seeds = max(seeds, spread.seeds, key=len)
    train_length = views[0]["train_length"]
    common.length_axis(fig, views[0]["lengths"], train_length)
    common.mark_trained(fig, train_length)
    common.mark(fig, math.log2(tuned["length"]), _("fine-tuned at {n}").format(n=tuned["length"]))
    if log_y:
        fig.update_yaxes(type="log")
    notes = (
        _(
            "Dashed: the model trained at L = {L}, scaled at evaluation only. Solid: the same model fine-tuned for "
            "{steps:,} steps on {n}-token windows under that scaling and evaluated with it. {control}: fine-tuned "
            "without scaling, so the gap between it and a method is the scaling's own part."
        ).format(L=train_length, steps=tuned["steps"], n=tuned["length"], control=method_name(CONTROL).capitalize()),
        spread_note(seeds),
    )
    return FigureResult(common.finish(fig, title, y_title(metric)), data, notes)
