"""Copy accuracy against length: ``<n letters>|<the same letters>``, trained with strings that fit L tokens.

Accuracy is the share of strings copied exactly (every letter right). Ref: Kazemnejad et al. 2023 (NeurIPS),
"The Impact of Positional Encoding on Length Generalization in Transformers" (the copy task)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.registry import FigureResult, register
from posenc.figures.lab import common, source
from posenc.figures.lab.seeds import spread as across_seeds
from posenc.figures.lab.seeds import spread_note
from posenc.i18n import N_, _
from posenc_lab.checkpoints import CheckpointError

TITLE = N_("Copy accuracy against length")


@register("lab-copy", title=TITLE, page="length_lab", params=("lab_copy_metric",))
def copy_figure(p: Mapping[str, Any]) -> FigureResult:
    accuracy = p["lab_copy_metric"] == "accuracy"
    title = _("Copy task: {what} against string length").format(
        what=_("exact-match accuracy") if accuracy else _("loss on the copied letters")
    )
    try:
        views = source.seed_views()
    except CheckpointError:
        return FigureResult(common.missing(title))
    results = views[0]
    fig = go.Figure()
    lengths = results.get("copy_lengths", results["lengths"])  # tokens: 2n + 1 for n letters
    trained = 2 * results.get("copy_letters", (results["train_length"] - 1) // 2) + 1
    data: dict[str, np.ndarray] = {"letters": (np.array(lengths, dtype=np.float64) - 1) // 2}
    seeds: tuple[int, ...] = ()
    for scheme in source.SCHEME_ORDER:
        spread = across_seeds(views, ("copy", scheme), p["lab_copy_metric"])
        if spread is not None:
            common.add_spread(fig, spread, common.scheme_name(scheme), common.SCHEME_COLORS[scheme])
            data |= spread.columns(scheme)
            seeds = max(seeds, spread.seeds, key=len)
    ticks = sorted({*lengths, trained})
    fig.update_xaxes(
        tickvals=[math.log2(n) for n in ticks],
        ticktext=[str((n - 1) // 2) for n in ticks],
        tickangle=0,
        title_text=_("string length (letters), log₂ scale"),
    )
    fig.add_vrect(  # the strings seen in training
        x0=math.log2(min(lengths)), x1=math.log2(trained), fillcolor="gray", opacity=0.12, line_width=0
    )
    common.mark(fig, math.log2(trained), _("longest training string: {n} letters").format(n=(trained - 1) // 2))
    if accuracy:
        fig.update_yaxes(range=[-0.03, 1.03], tickformat=".0%")
    note = _(
        "Shaded: the string lengths seen in training (up to {n} letters). Past it the strings are longer than any "
        "the model copied while it learned: Kazemnejad et al. (2023) ask the same of their models."
    ).format(n=(trained - 1) // 2)
    what = _("accuracy") if accuracy else _("loss (nats per letter)")
    notes = (note, spread_note(seeds)) if seeds else (note,)
    return FigureResult(common.finish(fig, title, what), data, notes)
