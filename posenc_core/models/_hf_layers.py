"""The per-layer part of a ``config.json`` for :func:`posenc_core.models.hf_config.from_hf_config`: which layers use
RoPE and with which base, for models whose layers differ.

- Llama 4 (``llama4`` / ``llama4_text``): ``no_rope_layers`` (1 = RoPE, 0 = NoPE; default every
  ``no_rope_layer_interval``-th layer NoPE), RoPE layers attend in ``attention_chunk_size`` chunks, NoPE layers
  scale their queries up when ``attn_temperature_tuning`` is on (``floor_scale``, ``attn_scale``).
- Gemma 3 (``gemma3`` / ``gemma3_text``): ``layer_types`` (default: every ``sliding_window_pattern``-th layer
  full attention, the others sliding), the sliding layers' base ``rope_local_base_freq`` (v5:
  ``rope_parameters.sliding_attention.rope_theta``).

Ref: HF transformers ``configuration_llama4.py`` (``Llama4TextConfig``), ``configuration_gemma3.py``
(``Gemma3TextConfig``: ``default_theta`` {"global": 1e6, "local": 1e4}, pattern 6, window 4096).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc_core._checks import check_float, check_int
from posenc_core.encodings.nope import llama4_rope_layers
from posenc_core.models._hf_reader import Reader, check_key
from posenc_core.models.preset_type import LAYER_TYPES

FAMILY_THETA = {"llama4": 5e5, "gemma3": 1e6}  # HF's default base where a config leaves rope_theta out
_LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers")


def family(model_type: str) -> str | None:
    """ "llama4" or "gemma3" for those models (and their _text configs), else None."""
    base = model_type.removesuffix("_text")
    return base if base in FAMILY_THETA else None


def layer_fields(r: Reader, top: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    """Preset fields n_layers, rope_layers, layer_types, local_rope_theta, sliding_window, nope_* ."""
    kind = family(model_type)
    if kind is None:
        return {}
    n_layers = r.integer(*_LAYER_KEYS)
    if n_layers is None:
        r.unread.append(f"no num_hidden_layers: the {kind} layer pattern is not read")
        return {}
    if kind == "llama4":
        return {"n_layers": n_layers, **_llama4(r, n_layers)}
    return {"n_layers": n_layers, **_gemma3(r, top, n_layers)}


def _llama4(r: Reader, n_layers: int) -> dict[str, Any]:
    label, flags = r.get("no_rope_layers")
    interval = r.integer("no_rope_layer_interval") or 4
    try:
        rope_layers = llama4_rope_layers(n_layers, no_rope_layers=flags, no_rope_layer_interval=interval)
    except ValueError as error:
        raise ValueError(f"{label}: {error}") from None
    chunk = r.integer("attention_chunk_size") or r.default("attention_chunk_size", 8192)
    fields: dict[str, Any] = {
        "rope_layers": tuple(rope_layers),
        "layer_types": tuple("chunked_attention" if rope else "full_attention" for rope in rope_layers),
        "sliding_window": chunk,
    }
    r.notes.append(
        f"{rope_layers.count(False)} of {n_layers} layers have no RoPE (NoPE); the others attend in "
        f"{chunk}-token chunks"
    )
    tuning_label, tuning = r.get("attn_temperature_tuning")
    if tuning_label is None or bool(tuning):  # HF's default is on
        floor_label, floor_scale = r.get("floor_scale")
        scale_label, attn_scale = r.get("attn_scale")
        fields["nope_floor_scale"] = check_int(floor_label, floor_scale, minimum=1) if floor_label else 8192
        fields["nope_attn_scale"] = check_float(scale_label, attn_scale, minimum=0.0) if scale_label else 0.1
    return fields


def _gemma3(r: Reader, top: Mapping[str, Any], n_layers: int) -> dict[str, Any]:
    label, types = r.get("layer_types")
    if label is not None:
        if not isinstance(types, list) or len(types) != n_layers or any(t not in LAYER_TYPES for t in types):
            raise ValueError(f"{label} must list one of {', '.join(LAYER_TYPES)} per layer ({n_layers} layers)")
    else:
        pattern = r.integer("sliding_window_pattern", "_sliding_window_pattern") or 6
        types = ["full_attention" if (i + 1) % pattern == 0 else "sliding_attention" for i in range(n_layers)]
    fields: dict[str, Any] = {"layer_types": tuple(types)}
    local_label, local = r.get("rope_local_base_freq")
    block = r.get("rope_parameters")[1]
    sliding = block.get("sliding_attention") if isinstance(block, Mapping) else None
    if isinstance(sliding, Mapping) and sliding.get("rope_theta") is not None:  # v5: one block per layer type
        local_label = "rope_parameters.sliding_attention.rope_theta"
        local = check_key(local_label, sliding["rope_theta"])
        r.unread[:] = [line for line in r.unread if "one block per layer type" not in line]
    if local_label is None:
        local_label, local = "rope_local_base_freq", r.default("rope_local_base_freq", 10000.0)
    fields["local_rope_theta"] = check_float(local_label, local, greater_than=1.0)
    window = r.integer("sliding_window") or r.default("sliding_window", 4096)
    fields["sliding_window"] = window
    r.notes.append(
        f"{types.count('sliding_attention')} sliding layers ({window} tokens, base {local:g}) and "
        f"{types.count('full_attention')} full-attention layers"
    )
    return fields
