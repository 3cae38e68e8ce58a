"""The "What to notice" points under the layer-by-layer RoPE figure, worded from the layers drawn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from figures.layers.rope_bases import KIND_NAMES
from posenc_core.presets import PRESETS, layer_rope_inputs


def _layers(indices: np.ndarray) -> str:
    shown = ", ".join(str(int(i)) for i in indices[:4])
    return shown + (", …" if len(indices) > 4 else "")


def layer_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    preset = PRESETS[p["layered_model"]]
    points = []
    for index, name in enumerate(KIND_NAMES.values()):
        layers = np.flatnonzero(data["kind"] == index)
        if not len(layers):
            continue
        scaling = layer_rope_inputs(preset, int(layers[0]))["scaling"]
        how = f", {scaling['rope_type']} scaling ×{scaling['factor']:g}" if scaling else ", no scaling"
        points.append(
            f"{len(layers)} {name} layers ({_layers(layers)}) turn at base {data['base'][layers[0]]:,.0f}{how}: "
            f"their slowest pair takes {data['slowest_wavelength'][layers[0]]:,.0f} tokens per turn."
        )
    nope_layers = np.flatnonzero(data["kind"] == -1)
    if len(nope_layers):
        points.append(
            f"{len(nope_layers)} layers ({_layers(nope_layers)}) have no RoPE at all (NoPE) and see the whole context; "
            f"the RoPE layers see {preset.sliding_window:,}-token chunks, so they never need angles past that."
        )
    if preset.local_rope_theta is not None:
        points.append(
            f"The sliding layers see only {preset.sliding_window:,} tokens, far below their slowest wavelength: a "
            "small base separates everything they can see. Only the few global layers must tell apart tokens "
            f"{preset.context_length:,} apart, and they get the large base and the scaling."
        )
    return points
