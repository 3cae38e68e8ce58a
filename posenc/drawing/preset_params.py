"""What a model preset sets: the figure parameters read off a :class:`posenc_core.models.presets.ModelPreset`."""

from __future__ import annotations

from typing import Any

from posenc_core.models.presets import PRESETS
from posenc_core.rope.scaling_keys import ALL_SCALING_KEYS

COPIED_SCALING_KEYS = tuple(
    name
    for name in ALL_SCALING_KEYS
    if name not in ("factor", "original_max_position_embeddings", "rope_theta", "partial_rotary_factor")
)
"""The keys of a preset's rope_scaling copied as they are (factor and the original length are read with HF's
fallbacks below; rope_theta and partial_rotary_factor are preset fields); lists (LongRoPE's) as tuples."""


def params_from_preset(preset) -> dict[str, Any]:
    """Parameter values (registry names) that ``preset`` determines; absent fields are left out."""
    values: dict[str, Any] = {"d_model": preset.hidden_size, "n_heads": preset.n_heads}
    context = preset.max_position_embeddings
    if preset.context_length:
        values["seq_len"] = int(preset.context_length)  # the usable context (Qwen2.5 with YaRN: 4 x 32768)
    if preset.scheme in ("rope", "mrope"):
        values["head_dim"] = int(preset.rope_head_dim or preset.head_dim)
        values["base"] = float(preset.rope_theta)
        values["partial_rotary_factor"] = float(preset.partial_rotary_factor)
        values["rope_layout"] = preset.rope_layout
        scaling = dict(preset.rope_scaling or {})
        values["rope_type"] = scaling.get("rope_type", "default")
        values["original_max_position_embeddings"] = int(
            scaling.get("original_max_position_embeddings") or context or 4096
        )
        for key in COPIED_SCALING_KEYS:
            if scaling.get(key) is not None:
                values[key] = tuple(scaling[key]) if isinstance(scaling[key], list | tuple) else scaling[key]
        if scaling.get("factor") is not None:
            values["factor"] = float(scaling["factor"])
        elif values["rope_type"] in ("yarn", "longrope") and context and values["original_max_position_embeddings"]:
            # HF derives the factor as max_position_embeddings / original_max_position_embeddings (Phi-3: 32).
            values["factor"] = float(context) / float(values["original_max_position_embeddings"])
        if preset.mrope_section:
            values["mrope_section"] = tuple(preset.mrope_section)
    elif preset.head_dim:
        values["head_dim"] = int(preset.head_dim)
    if preset.scheme == "alibi" and preset.alibi_bias_max is not None:
        values["alibi_bias_max"] = float(preset.alibi_bias_max)
    layered = next((key for key, known in PRESETS.items() if known is preset and known.n_layers is not None), None)
    if layered is not None:  # the layer-by-layer RoPE figure draws this model
        values["layered_model"] = layered
    if preset.scheme == "t5":
        values["num_buckets"] = int(preset.t5_num_buckets or 32)
        values["max_distance"] = int(preset.t5_max_distance or 128)
    return values


def same_positions_as(preset):
    """The named preset (``posenc_core.models.presets.PRESETS``) whose parameters here equal ``preset``'s, or None: a
    config.json read from a model's own files is recognised as, say, Llama-3.1-8B's."""
    wanted = _without_layers(params_from_preset(preset))
    for known in PRESETS.values():
        if known is not preset and _without_layers(params_from_preset(known)) == wanted:
            return known
    return None


def _without_layers(values: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in values.items() if name != "layered_model"}
