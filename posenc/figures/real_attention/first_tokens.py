"""Real attention on the first tokens: the mean share of attention each layer and head of all-MiniLM-L6-v2 puts on
[CLS] and on [SEP], side by side."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from posenc.drawing.common import as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import SEQUENTIAL_SCALE
from posenc.figures.real_attention.model import INSTALL_COMMAND, measure
from posenc.figures.real_attention.notes import figure_notes
from posenc.i18n import N_, _
from posenc_core.teaching.encoder_attention import BUILTIN_ENCODER


@register(
    "real-attention-first-tokens",
    title=N_("Real attention on [CLS] and [SEP]"),
    page="nope_and_sinks",
    params=("attention_text",),
)
def first_tokens(p: Mapping[str, Any]) -> FigureResult:
    shares = measure(p["attention_text"], p["device"])
    if shares is None:
        return _not_installed()
    layers, heads = shares.first.shape
    uniform = 1 / len(shares.tokens)
    fig = make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        subplot_titles=(_("on [CLS] (first)"), _("on [SEP]")),
        horizontal_spacing=0.05,
    )
    hover = _("layer %{y}, head %{x}<br>share %{z:.3f} (%{customdata:.1f}× uniform)") + "<extra></extra>"
    for col, values in enumerate((shares.first, shares.sep), start=1):
        z = as_array(values)
        fig.add_heatmap(
            z=z,
            x=list(range(heads)),
            y=list(range(layers)),
            customdata=z / uniform,
            coloraxis="coloraxis",
            hovertemplate=hover,
            row=1,
            col=col,
        )
        fig.update_xaxes(title_text=_("head"), dtick=1, row=1, col=col)
    fig.update_yaxes(title_text=_("layer"), autorange="reversed", dtick=1, row=1, col=1)
    fig.update_layout(
        title=_("Attention on [CLS] and [SEP], {encoder}<br>{count} tokens, uniform 1/L = {uniform:.3f}").format(
            encoder=BUILTIN_ENCODER, count=len(shares.tokens), uniform=uniform
        ),
        coloraxis={
            "colorscale": SEQUENTIAL_SCALE,
            "cmin": 0,
            "cmax": 1,
            "colorbar": {"title": {"text": _("share"), "side": "top"}, "thickness": 12},
        },
        height=420,
        margin={"t": 110},
    )
    data = {
        "share_first": as_array(shares.first),
        "share_sep": as_array(shares.sep),
        "uniform": np.array([uniform], dtype=np.float32),
    }
    return FigureResult(fig, data, tuple(figure_notes(shares.tokens, data)))


def _not_installed() -> FigureResult:
    """An empty figure that says how to install the weights (the page runs without them)."""
    fig = go.Figure()
    fig.add_annotation(
        text=_("{encoder} is not installed:<br>{command}").format(encoder=BUILTIN_ENCODER, command=INSTALL_COMMAND),
        showarrow=False,
        xref="paper",
        yref="paper",
        x=0.5,
        y=0.5,
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    title = _("Attention on [CLS] and [SEP]: {encoder} not installed").format(encoder=BUILTIN_ENCODER)
    fig.update_layout(title=title, height=240)
    note = _("The built-in encoder's weights are not installed: {command} (make install does it).").format(
        command=INSTALL_COMMAND
    )
    return FigureResult(fig, {}, (note,))
