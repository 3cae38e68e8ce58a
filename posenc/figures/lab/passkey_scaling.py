"""The RoPE passkey model under each scaling method at evaluation, without retraining: does a stretched rotation
let it find a passkey past L? The methods are those of :mod:`.scaling` (LongRoPE left out: its factors would need
a search on this model). Refs: Chen et al. 2023 (PI), bloc97 2023 (NTK), Peng et al. 2023 (YaRN), Meta 2024."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY
from posenc.figures.lab import common, source
from posenc.figures.lab.passkey import accuracy_axis, distance_axis, distance_note, y_title
from posenc.figures.lab.scaling import method_name
from posenc.figures.lab.seeds import spread as across_seeds
from posenc.figures.lab.seeds import spread_note
from posenc.i18n import N_, _
from posenc_lab.checkpoints import CheckpointError
from posenc_lab.scaling import SCALING_TYPES

TITLE = N_("The RoPE passkey model under each scaling method")


@register("lab-passkey-scaling", title=TITLE, page="length_lab", params=("lab_passkey_metric",))
def passkey_scaling_figure(p: Mapping[str, Any]) -> FigureResult:
    metric = p["lab_passkey_metric"]
    try:
        views = source.seed_views()
    except CheckpointError:
        return FigureResult(common.missing(_(TITLE)))
    factor = views[0].get("passkey_scaling", {}).get("factor")
    title = (
        _(TITLE) if factor is None else _("Passkey retrieval by the RoPE model, scaled by s = {s:g}").format(s=factor)
    )
    fig, seeds, rows = go.Figure(), (), []
    data: dict[str, np.ndarray] = {}
    for index, kind in enumerate(SCALING_TYPES):
        spread = across_seeds(views, ("passkey_scaling", "rows", kind), metric)
        if spread is None:
            continue
        dash = "dot" if kind == "default" else "solid"
        common.add_spread(fig, spread, method_name(kind), COLORWAY[index % len(COLORWAY)], dash=dash)
        data.setdefault("length", spread.x)
        data |= spread.columns(kind)
        rows = rows or spread.rows
        seeds = max(seeds, spread.seeds, key=len)
    if not data:
        return FigureResult(common.absent(title, _("passkey scaling")))
    train_length = views[0]["train_length"]
    common.length_axis(fig, data["length"].astype(int).tolist(), train_length)
    common.mark_trained(fig, train_length)
    distance_axis(fig, rows)
    accuracy_axis(fig, metric)
    notes = [
        _(
            "The same trained passkey model each time, only its rotation frequencies changed at evaluation "
            "(original_max_position_embeddings = {L}); no fine-tune."
        ).format(L=train_length),
        distance_note(rows),
        spread_note(seeds),
    ]
    return FigureResult(common.finish(fig, title, y_title(metric)), data, tuple(n for n in notes if n))
