"""The "What to notice" points under the layer-by-layer RoPE figure, worded from the layers drawn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from posenc.figures.layers.rope_bases import KIND_NAMES
from posenc.i18n import _
from posenc_core.models.presets import PRESETS, layer_rope_inputs


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
        if scaling:
            message = _(
                "{count} {kind} layers ({layers}) turn at base {base:,.0f}, {rope_type} scaling ×{factor:g}: their "
                "slowest pair takes {wavelength:,.0f} tokens per turn."
            )
        else:
            message = _(
                "{count} {kind} layers ({layers}) turn at base {base:,.0f}, no scaling: their slowest pair takes "
                "{wavelength:,.0f} tokens per turn."
            )
        points.append(
            message.format(
                count=len(layers),
                kind=_(name),
                layers=_layers(layers),
                base=data["base"][layers[0]],
                rope_type=scaling["rope_type"] if scaling else "",
                factor=scaling["factor"] if scaling else 1.0,
                wavelength=data["slowest_wavelength"][layers[0]],
            )
        )
    nope_layers = np.flatnonzero(data["kind"] == -1)
    if len(nope_layers):
        points.append(
            _(
                "{count} layers ({layers}) have no RoPE at all (NoPE) and see the whole context; the RoPE layers see "
                "{window:,}-token chunks, so they never need angles past that."
            ).format(count=len(nope_layers), layers=_layers(nope_layers), window=preset.sliding_window)
        )
    if preset.local_rope_theta is not None:
        points.append(
            _(
                "The sliding layers see only {window:,} tokens, far below their slowest wavelength: a small base "
                "separates everything they can see. Only the few global layers must tell apart tokens {context:,} "
                "apart, and they get the large base and the scaling."
            ).format(window=preset.sliding_window, context=preset.context_length)
        )
    return points
