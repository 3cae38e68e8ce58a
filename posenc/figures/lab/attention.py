"""One head's attention in a trained lab model at the trained length L and at 4L, side by side:
A = softmax(q_i·k_j / √d + bias(i, j)) over the keys j ≤ i, drawn as log₁₀ A so that small weights show.

Ref: Press et al. 2022 (ALiBi) and Kazemnejad et al. 2023 look at where attention goes past L."""

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
from posenc_lab.schemes import PastTheTable

TITLE = N_("One head's attention at L and at 4L")
MULTIPLES = (1, 4)  # 64 x 64 and 256 x 256 cells at L = 64
FLOOR = -4.0  # log10 of the smallest weight drawn distinctly


def head_attention(scheme: str, layer: int, head: int, length: int) -> np.ndarray | None:
    """(length, length) attention of ``head`` in ``layer`` on the first ``length`` tokens of the held-out text;
    None past a learned table. ValueError for a layer or head the model does not have."""
    model = source.checkpoint(scheme).model
    heads = model.config.n_heads
    if not 0 <= head < heads:
        raise ValueError(
            _("head must be from 0 to {last}: the model has {n} heads (got {head})").format(
                last=heads - 1, n=heads, head=head
            )
        )
    try:
        with source.MODEL_LOCK:
            return probes.attention(model, probes.window(length), layer)[head].numpy()
    except PastTheTable:
        return None


@register("lab-attention", title=TITLE, page="length_lab", params=("lab_scheme", "lab_layer", "lab_head"))
def attention_figure(p: Mapping[str, Any]) -> FigureResult:
    scheme, layer, head = p["lab_scheme"], p["lab_layer"], p["lab_head"]
    name = common.scheme_name(scheme)
    title = _("{name} model (seed {seed}), layer {layer}, head {head}: attention at L and at 4L").format(
        name=name, seed=source.PROBED_SEED, layer=layer, head=head
    )
    try:
        train_length = source.results()["train_length"]
        maps = {m: head_attention(scheme, layer, head, m * train_length) for m in MULTIPLES}
    except CheckpointError:
        return FigureResult(common.missing(title))
    subtitles = [_("{m}L = {n} tokens").format(m=m if m > 1 else "", n=m * train_length) for m in MULTIPLES]
    fig = make_subplots(rows=1, cols=len(MULTIPLES), subplot_titles=subtitles, horizontal_spacing=0.08)
    data: dict[str, np.ndarray] = {}
    notes = []
    for col, (m, weights) in enumerate(maps.items(), start=1):
        if weights is None:
            fig.add_annotation(
                text=_("no row past L: the learned table cannot read {n} tokens").format(n=m * train_length),
                showarrow=False,
                xref=f"x{col} domain",
                yref=f"y{col} domain",
                x=0.5,
                y=0.5,
            )
            notes.append(
                _("The learned model has no position past L = {L}, so there is no 4L map.").format(L=train_length)
            )
            continue
        data[f"attention_{m}L"] = weights
        size = weights.shape[0]
        shown = np.log10(np.clip(weights, 10.0**FLOOR, None)).astype(np.float32)
        shown[np.triu_indices(size, 1)] = np.nan  # keys after the query: masked
        fig.add_heatmap(
            z=shown,
            x=np.arange(size),
            y=np.arange(size),
            coloraxis="coloraxis",
            row=1,
            col=col,
            customdata=weights.astype(np.float32),
            hovertemplate=_("query %{y}, key %{x}") + "<br>A = %{customdata:.3g}<extra></extra>",
        )
        fig.update_xaxes(title_text=_("key position j"), row=1, col=col)
        fig.update_yaxes(autorange="reversed", title_text=_("query position i") if col == 1 else None, row=1, col=col)
        if m > 1:
            fig.add_vline(x=train_length - 0.5, line={"dash": "dash", "width": 1, "color": "white"}, row=1, col=col)
            fig.add_hline(y=train_length - 0.5, line={"dash": "dash", "width": 1, "color": "white"}, row=1, col=col)
    fig.update_layout(
        title=title,
        height=440,
        coloraxis={
            "colorscale": SEQUENTIAL_SCALE,
            "cmin": FLOOR,
            "cmax": 0,
            "colorbar": {"title": {"text": "log₁₀ A"}},
        },
    )
    notes.insert(
        0,
        _("Dashed lines in the 4L map: the trained length L = {L}. Colour: log₁₀ of the weight, down to 10⁻⁴.").format(
            L=train_length
        ),
    )
    return FigureResult(fig, data, tuple(notes))
