"""The code behind the layer-by-layer RoPE figure: each layer's slowest-pair wavelength from the model's numbers,
with its scaling rule (linear for Gemma 3's global layers, Llama 3's bands for Llama 4), in NumPy.

Ref: HF transformers ``modeling_rope_utils.py`` (linear, llama3), ``configuration_gemma3.py``,
``configuration_llama4.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, code_block, figure_data, literal, register_code
from posenc_core.models.presets import PRESETS

SLOWEST = "2 * math.pi / base ** (-(head_dim - 2) / head_dim)  # pair d/2 - 1: θ = base^(-(d-2)/d), λ = 2π/θ"


def _gemma3(preset) -> str:
    pattern = next(i + 1 for i, kind in enumerate(preset.layer_types) if kind == "full_attention")
    return f"""
        n_layers, head_dim, pattern = {preset.n_layers}, {preset.head_dim}, {pattern}  # every {pattern}th layer global
        local_base = {literal(preset.local_rope_theta)}  # rope_local_base_freq: sliding layers, no scaling
        global_base, factor = {literal(preset.rope_theta)}, {literal(float(preset.rope_scaling["factor"]))}  # linear
        def slowest(base):
            return {SLOWEST}
        result = np.array([
            slowest(global_base) * factor if (layer + 1) % pattern == 0 else slowest(local_base)
            for layer in range(n_layers)
        ])
        """


def _llama4(preset) -> str:
    interval = next(i + 1 for i, rope in enumerate(preset.rope_layers) if not rope)
    scaling = preset.rope_scaling
    low, high = literal(scaling["low_freq_factor"]), literal(scaling["high_freq_factor"])
    return f"""
        n_layers, head_dim, base = {preset.n_layers}, {preset.head_dim}, {literal(preset.rope_theta)}
        factor, low, high = {literal(scaling["factor"])}, {low}, {high}
        original = {scaling["original_max_position_embeddings"]}
        wavelength = {SLOWEST}
        if wavelength > original / low:  # Llama 3's rule: long wavelengths are stretched by the factor
            wavelength *= factor
        elif wavelength > original / high:  # ... blended in between, short ones kept
            smooth = (original / wavelength - low) / (high - low)
            theta = 2 * math.pi / wavelength
            wavelength = 2 * math.pi / ((1 - smooth) * theta / factor + smooth * theta)
        uses_rope = [(layer + 1) % {interval} != 0 for layer in range(n_layers)]  # NoPE every {interval}th layer
        result = np.array([wavelength if rope else np.nan for rope in uses_rope])
        """


@register_code("layers-rope-bases")
def layers_code(values: Mapping[str, Any]) -> Snippet:
    preset = PRESETS[values["layered_model"]]
    body = _gemma3(preset) if preset.local_rope_theta is not None else _llama4(preset)
    source = code_block(body, imports=("math", "numpy as np"))
    return Snippet(source, expected=lambda: figure_data("layers-rope-bases", values)["slowest_wavelength"], rtol=1e-6)
