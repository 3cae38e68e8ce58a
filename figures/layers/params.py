"""The layered models' parameter: which preset's layers to draw (the presets that describe their layers)."""

from __future__ import annotations

from figures.params import ParamSpec, register_param
from posenc_core.presets import PRESETS

LAYERED = tuple(key for key, preset in PRESETS.items() if preset.n_layers is not None)

register_param(
    ParamSpec(
        "layered_model",
        "choice",
        "gemma-3-27b",
        "Model (layer by layer)",
        choices=LAYERED,
        choice_labels={key: PRESETS[key].name for key in LAYERED},
        help="A model whose layers use different RoPE bases, or none (NoPE).",
    )
)
