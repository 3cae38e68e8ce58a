"""Llama 4's interleaved layers (RoPE in chunks, NoPE over everything) and the query scale of its NoPE layers
(HF's ``attn_temperature_tuning``: queries scaled up, a lower temperature)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch

from posenc.drawing.common import as_array, lines, mark
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY
from posenc.i18n import N_, _
from posenc_core.encodings import nope

CURVE_POINTS = 1500  # log-spaced positions, plus the first steps exactly
EXACT_STEPS = 64  # steps drawn at their exact token (later ones fall between log-spaced samples)


@register(
    "nope-llama4-layers",
    title=N_("Llama 4: RoPE and NoPE layers"),
    page="nope_and_sinks",
    params=("num_hidden_layers", "no_rope_layer_interval"),
)
def layer_pattern(p: Mapping[str, Any]) -> FigureResult:
    uses_rope = np.array(
        nope.llama4_rope_layers(p["num_hidden_layers"], no_rope_layer_interval=p["no_rope_layer_interval"])
    )
    layers = np.arange(len(uses_rope))
    fig = go.Figure()
    for name, chosen, colour, how in (
        (_("RoPE, chunked attention"), uses_rope, COLORWAY[0], _("RoPE, attends within its chunk")),
        (_("NoPE, full attention"), ~uses_rope, COLORWAY[1], _("no RoPE, attends to every token")),
    ):
        fig.add_trace(
            go.Bar(
                x=layers[chosen],
                y=np.ones(int(chosen.sum()), dtype=np.float32),
                name=name,
                marker_color=colour,
                hovertemplate=_("layer {layer}: {how}").format(layer="%{x}", how=how) + "<extra></extra>",
            )
        )
    fig.update_layout(
        title=_("{layers} layers, NoPE every {interval}").format(
            layers=p["num_hidden_layers"], interval=p["no_rope_layer_interval"]
        ),
        xaxis_title=_("layer"),
        bargap=0.15,
        height=330,
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
        margin={"t": 110},
    )
    fig.update_yaxes(visible=False, range=[0, 1])
    data = {"layer": as_array(layers), "uses_rope": as_array(uses_rope)}
    return FigureResult(fig, data, ())


def curve_positions(context: int, floor_scale: int) -> np.ndarray:
    """Token indices 0 .. context-1: log-spaced, plus the exact first-scaled token of the first steps."""
    logs = np.round(np.geomspace(1, context, CURVE_POINTS)).astype(np.int64) - 1
    steps = np.arange(1, EXACT_STEPS + 1, dtype=np.int64) * floor_scale - 1  # scale(p) steps up at p + 1 = k·fs
    steps = np.concatenate([steps, steps - 1])
    return np.unique(np.concatenate([logs, steps[(steps >= 0) & (steps < context)], [context - 1]]))


@register(
    "nope-llama4-temperature",
    title=N_("Llama 4: NoPE query scale (temperature tuning)"),
    page="nope_and_sinks",
    params=("floor_scale", "attn_scale", "temperature_context"),
)
def temperature(p: Mapping[str, Any]) -> FigureResult:
    positions = curve_positions(p["temperature_context"], p["floor_scale"])
    scale = nope.llama4_attention_scale(
        positions, floor_scale=p["floor_scale"], attn_scale=p["attn_scale"], device=p["device"], dtype=torch.float64
    )
    data = {"position": as_array(positions), "scale": as_array(scale)}
    fig = lines(
        positions + 1,
        {_("query scale"): data["scale"]},
        title=_("NoPE query scale, floor_scale={floor_scale:,}, attn_scale={attn_scale:g}").format(
            floor_scale=p["floor_scale"], attn_scale=p["attn_scale"]
        ),
        x_title=_("tokens so far (p + 1)"),
        y_title="scale(p)",
        log_x=True,
    )
    fig.update_traces(line_shape="hv")
    if p["floor_scale"] < p["temperature_context"]:
        mark(fig, p["floor_scale"], _("first step: {tokens:,}").format(tokens=p["floor_scale"]), log=True)
    notes = (
        _(
            "{count:,} token indices from 0 to {last:,}, log-spaced, with the first {steps} steps at their exact token"
        ).format(count=len(positions), last=p["temperature_context"] - 1, steps=EXACT_STEPS),
    )
    return FigureResult(fig, data, notes)
