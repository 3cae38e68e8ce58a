"""The RoPE model's query and key norm per rotation pair and head: ‖(q_i, q_{i+d/2})‖ averaged over the tokens of
the trained length, pair i turning at θ_i = base^(-2i/d) (pair 0 the fastest). Large norms mark the pairs the
head's scores lean on. Ref: Barbero et al. 2025 (ICLR), "Round and round we go! What makes Rotary Positional
Encodings useful?": trained models use the slowest pairs most, for meaning, and the fastest for position."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from plotly.subplots import make_subplots

from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import SEQUENTIAL_SCALE
from posenc.figures.lab import common, source
from posenc.i18n import N_, _
from posenc_lab import probes
from posenc_lab.checkpoints import CheckpointError

TITLE = N_("RoPE: query and key norm per frequency pair")


@register("lab-pair-norms", title=TITLE, page="length_lab", params=("lab_layer",))
def pair_norms_figure(p: Mapping[str, Any]) -> FigureResult:
    layer = p["lab_layer"]
    title = _("RoPE model (seed {seed}), layer {layer}: query and key norm per frequency pair and head").format(
        seed=source.PROBED_SEED, layer=layer
    )
    try:
        train_length = source.results()["train_length"]
        model = source.checkpoint("rope").model
    except CheckpointError:
        return FigureResult(common.missing(title))
    with source.MODEL_LOCK:
        query, key = (part.numpy() for part in probes.pair_norms(model, probes.window(train_length), layer))
    heads, pairs = query.shape
    fig = make_subplots(rows=1, cols=2, subplot_titles=[_("queries"), _("keys")], horizontal_spacing=0.1)
    for col, norms in enumerate((query, key), start=1):
        fig.add_heatmap(
            z=norms.astype(np.float32),
            x=np.arange(pairs),
            y=np.arange(heads),
            coloraxis="coloraxis",
            row=1,
            col=col,
            hovertemplate=_("head %{y}, pair %{x}") + "<br>" + _("mean norm") + " %{z:.3f}<extra></extra>",
        )
        fig.update_xaxes(title_text=_("pair i (fast → slow)"), row=1, col=col)
        fig.update_yaxes(title_text=_("head") if col == 1 else None, autorange="reversed", dtick=1, row=1, col=col)
    fig.update_layout(
        title=title,
        height=380,
        coloraxis={"colorscale": SEQUENTIAL_SCALE, "colorbar": {"title": {"text": _("norm")}}},
    )
    share = query[:, pairs // 2 :].sum() / query.sum()
    note = _(
        "The slower half of the pairs carries {share:.0%} of the query norm in this layer (an even spread "
        "gives 50%). Averaged over the first {L} tokens of the held-out text."
    ).format(share=share, L=train_length)
    return FigureResult(fig, {"query": query, "key": key}, (note,))
