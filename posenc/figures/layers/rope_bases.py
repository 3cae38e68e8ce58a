"""Per layer of a hybrid model: its RoPE base and the wavelength of its slowest pair (none on a NoPE layer)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch

from posenc.drawing.common import LEGEND_BELOW, mark
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY
from posenc.i18n import N_, _
from posenc_core.models.presets import PRESETS, layer_rope_inputs
from posenc_core.rope import scaling as rope_scaling

NOPE_FILL = "rgba(214,39,40,0.25)"
KIND_NAMES = {  # HF layer_types, as the legend says them (shown with _())
    "sliding_attention": N_("sliding window"),
    "full_attention": N_("full attention"),
    "chunked_attention": N_("chunked attention"),
}


def layer_table(key: str, device=None) -> dict[str, np.ndarray]:
    """Per layer: base (NaN on NoPE layers), slowest-pair wavelength 2π / min θ_i in tokens (scaling included),
    and the layer kind's index in ``KIND_NAMES`` (-1 for NoPE)."""
    preset = PRESETS[key]
    kinds = preset.layer_types or ("full_attention",) * preset.n_layers
    bases = preset.layer_rope_bases()
    slowest: dict[tuple[str, float], float] = {}
    wavelength = np.full(preset.n_layers, np.nan)
    for layer, (kind, base) in enumerate(zip(kinds, bases, strict=True)):
        if base is None:
            continue
        if (kind, base) not in slowest:
            inv, _ = rope_scaling.inv_freq(**layer_rope_inputs(preset, layer), device=device, dtype=torch.float64)
            slowest[kind, base] = 2 * math.pi / float(inv.min())
        wavelength[layer] = slowest[kind, base]
    return {
        "layer": np.arange(preset.n_layers, dtype=np.float32),
        "base": np.array([np.nan if b is None else b for b in bases], dtype=np.float64),
        "slowest_wavelength": wavelength,
        "kind": np.array([-1 if b is None else list(KIND_NAMES).index(k) for k, b in zip(kinds, bases, strict=True)]),
    }


@register("layers-rope-bases", title=N_("RoPE layer by layer"), page="rope", params=("layered_model",))
def rope_bases(p: Mapping[str, Any]) -> FigureResult:
    preset = PRESETS[p["layered_model"]]
    data = layer_table(p["layered_model"], p["device"])
    fig = go.Figure()
    for index, kind in enumerate(KIND_NAMES.values()):
        chosen = data["kind"] == index
        if not chosen.any():
            continue
        name = _(kind)
        fig.add_trace(
            go.Scatter(
                x=data["layer"][chosen],
                y=data["slowest_wavelength"][chosen],
                mode="markers",
                name=_("{kind} (base {base:,.0f})").format(kind=name, base=data["base"][chosen][0]),
                marker={"color": COLORWAY[index], "size": 9},
                customdata=data["base"][chosen],
                hovertemplate=_(
                    "layer %{{x}}: {kind}<br>base %{{customdata:,.0f}}<br>slowest wavelength %{{y:,.0f}} tokens"
                ).format(kind=name)
                + "<extra></extra>",
            )
        )
    nope_layers = data["layer"][data["kind"] == -1]
    for layer in nope_layers:  # a shaded column: no wavelength to draw
        fig.add_vrect(x0=layer - 0.4, x1=layer + 0.4, fillcolor=NOPE_FILL, line_width=0, layer="below")
    if len(nope_layers):
        fig.add_trace(
            go.Scatter(
                x=[None], y=[None], mode="markers", name=_("NoPE layer (shaded): no RoPE"),
                marker={"color": NOPE_FILL, "symbol": "square", "size": 12},
            )
        )  # fmt: skip
    if preset.sliding_window:
        if "sliding_attention" in (preset.layer_types or ()):
            label = _("sliding window {tokens:,} tokens").format(tokens=preset.sliding_window)
        else:
            label = _("chunk {tokens:,} tokens").format(tokens=preset.sliding_window)
        mark(fig, preset.sliding_window, label, axis="y", log=True)
    fig.update_layout(
        title=_("{model}: RoPE per layer").format(model=preset.name),
        xaxis_title=_("layer"),
        yaxis_title=_("slowest wavelength (tokens)"),
        legend=LEGEND_BELOW,
    )
    fig.update_yaxes(type="log")
    notes = (
        _("slowest wavelength = 2π / min θᵢ, with the layer's scaling ({source})").format(source=_(preset.source)),
    )
    return FigureResult(fig, {k: v.astype(np.float32) for k, v in data.items()}, notes)
