"""The layer-by-layer RoPE figure: each layer's base and slowest wavelength equal the core's inv_freq for that layer
(Gemma 3: local 1e4 unscaled, global 1e6 with linear 8; Llama 4: NoPE layers without a wavelength)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from posenc import figures  # noqa: F401  (registers every family)
from posenc.drawing import registry
from posenc.figures.layers import notes
from posenc.figures.layers.params import LAYERED, MODEL_NAMES, MODEL_SOURCES
from posenc_core.models.presets import PRESETS, layer_rope_inputs
from posenc_core.rope import scaling as rope_scaling


def build(model: str):
    params, messages = registry.resolve_params("layers-rope-bases", {"layered_model": model})
    assert messages == []
    return params, registry.build("layers-rope-bases", params)


def test_the_choice_lists_the_presets_that_describe_their_layers():
    assert set(LAYERED) == {"gemma-3-27b", "llama-4-scout"}


def test_every_choice_label_and_source_is_in_the_catalogues():
    """The controls show a choice label with _(): each layered model's name is marked (and kept as-is); so is the
    source the figure's note cites."""
    assert {PRESETS[key].name for key in LAYERED} <= set(MODEL_NAMES)
    assert {PRESETS[key].source for key in LAYERED} <= set(MODEL_SOURCES)  # cited in the figure's note


@pytest.mark.parametrize("model", ["gemma-3-27b", "llama-4-scout"])
def test_every_layer_equals_the_core_inv_freq_of_that_layer(model):
    _, result = build(model)
    preset = PRESETS[model]
    wavelength = result.data["slowest_wavelength"]
    assert len(wavelength) == preset.n_layers
    for layer in range(preset.n_layers):
        if preset.layer_rope_bases()[layer] is None:
            assert math.isnan(wavelength[layer]) and math.isnan(result.data["base"][layer])
            continue
        inv, _ = rope_scaling.inv_freq(**layer_rope_inputs(preset, layer), dtype=torch.float64)
        assert wavelength[layer] == pytest.approx(2 * math.pi / inv.min().item(), rel=1e-6)


def test_gemma3_global_layers_are_scaled_by_eight_and_local_ones_are_not():
    _, result = build("gemma-3-27b")
    wavelength, base = result.data["slowest_wavelength"], result.data["base"]
    assert np.flatnonzero(base == 1e6).tolist() == list(range(5, 62, 6))
    local = 2 * math.pi * 1e4 ** (126 / 128)
    assert wavelength[0] == pytest.approx(local, rel=1e-6)
    assert wavelength[5] == pytest.approx(8 * 2 * math.pi * 1e6 ** (126 / 128), rel=1e-6)
    names = [trace.name for trace in result.figure.data]
    assert names == ["sliding window (base 10,000)", "full attention (base 1,000,000)"]
    text = " ".join(notes.layer_points({"layered_model": "gemma-3-27b"}, result.data))
    assert "52 sliding window layers (0, 1, 2, 3, …) turn at base 10,000, no scaling" in text
    assert "10 full attention layers (5, 11, 17, 23, …) turn at base 1,000,000, linear scaling ×8" in text


def test_llama4_nope_layers_are_shaded_and_said():
    _, result = build("llama-4-scout")
    assert np.flatnonzero(result.data["kind"] == -1).tolist() == list(range(3, 48, 4))
    assert len(result.figure.layout.shapes) >= 12  # one shaded column per NoPE layer (plus the chunk line)
    text = " ".join(notes.layer_points({"layered_model": "llama-4-scout"}, result.data))
    assert "12 layers (3, 7, 11, 15, …) have no RoPE at all" in text and "llama3 scaling ×8" in text
