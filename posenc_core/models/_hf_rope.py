"""The RoPE part of a ``config.json`` for :func:`posenc_core.models.hf_config.from_hf_config`: the base, the rotated
dims, and the ``rope_parameters`` / ``rope_scaling`` block normalized to HF's v5 form.

Every key of the block is checked by ``_hf_reader.check_key``: the scaling keys as
``rope.scaling_keys.SCALING_KEYS`` describes them (kind "float": a finite number within the key's bounds; kind
"floats": a non-empty list of such numbers), with a maximum no model reaches, ``rope_type`` as a name and
``mrope_section`` (Qwen2-VL's frequency split, not a scaling key) as a short list of whole numbers.

Ref: HF transformers ``modeling_rope_utils.py`` (v5 ``standardize_rope_params``: ``"type"`` -> ``"rope_type"``;
Phi-3's top-level original length wins); ``models/*/configuration_*.py``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from posenc_core._checks import check_int
from posenc_core.models._hf_layers import FAMILY_THETA, family
from posenc_core.models._hf_reader import Reader, check_key
from posenc_core.rope.scaling import ROPE_SCALING_FUNCTIONS, ROPE_TYPE_ALIASES
from posenc_core.rope.scaling_keys import SCALING_KEYS

THETA_KEYS = ("rope_theta", "rotary_emb_base", "rope_emb_base")  # the RoPE base, by family
_LIST_KEYS = tuple(name for name, key in SCALING_KEYS.items() if key.kind == "floats")  # LongRoPE's factor lists


def rope_block(r: Reader) -> tuple[str | None, Any]:
    """v5 ``rope_parameters`` (per layer type in some models: the full-attention one) or ``rope_scaling``."""
    label, block = r.get("rope_parameters")
    if isinstance(block, Mapping) and block and all(isinstance(v, Mapping) for v in block.values()):
        kind = "full_attention" if "full_attention" in block else next(iter(block))
        if len(block) > 1:
            r.unread.append(f"{label} has one block per layer type: read {kind!r}, ignored the others")
        label, block = f"{label}.{kind}", block[kind]
    legacy_label, legacy = r.get("rope_scaling")
    if label is None:
        return legacy_label, legacy
    if legacy is not None:
        r.unread.append(f"both {label} and {legacy_label} are present: read {label}, ignored {legacy_label}")
    return label, block


def rope_fields(r: Reader, label: str | None, block: Any, head_dim: int, model_type: str) -> dict[str, Any]:
    """The preset fields of a RoPE model: base, rotary dims, the normalized scaling dict, M-RoPE, layout."""
    if block is not None and not isinstance(block, Mapping):
        raise ValueError(f"{label} must be a JSON object or null (got {block!r})")
    block = dict(block or {})
    fields: dict[str, Any] = {}
    if "rope_theta" in block:  # v5 keeps the base inside rope_parameters
        theta_label, theta = f"{label}.rope_theta", block.pop("rope_theta")
    else:
        theta_label, theta = r.get(*THETA_KEYS)
    if theta_label is None:
        default = FAMILY_THETA.get(family(model_type) or "", SCALING_KEYS["rope_theta"].default)
        theta_label, theta = "rope_theta", r.default("rope_theta", default)
    fields["rope_theta"] = check_key(theta_label, theta)
    fields["rope_head_dim"] = rope_dim = r.integer("qk_rope_head_dim") or head_dim
    fields["partial_rotary_factor"] = _partial_factor(r, block, label, rope_dim)
    scaling = _normalize_scaling(r, block, label)
    original_label, original = r.get("original_max_position_embeddings") if scaling else (None, None)
    if original_label is not None:  # Phi-3 keeps it at the top level
        original = check_int(original_label, original, minimum=1)
        if scaling.get("original_max_position_embeddings") not in (None, original):
            r.unread.append(
                f"{label}.original_max_position_embeddings {scaling['original_max_position_embeddings']}"
                f" overridden by the top-level {original} (HF v5: the top-level key wins)"
            )
        scaling["original_max_position_embeddings"] = original
    fields["rope_scaling"] = scaling
    _check_block(scaling, label, int(rope_dim * fields["partial_rotary_factor"]))
    if scaling and scaling.get("mrope_section") is not None:
        fields["mrope_section"] = tuple(scaling["mrope_section"])  # whole numbers, checked with the block
    interleave_label, interleave = r.get("rope_interleave")
    if interleave_label is not None:
        fields["rope_layout"] = "interleaved" if interleave else "half"
    elif model_type == "gptj" or model_type.startswith(("deepseek_v", "llama4")):
        fields["rope_layout"] = "interleaved"
        r.notes.append(f"{model_type} weights pair channels (2i, 2i+1): interleaved RoPE layout")
    return fields


def _partial_factor(r: Reader, block: dict[str, Any], label: str | None, rope_dim: int) -> float:
    """partial_rotary_factor (top level or in the rope block), NeoX rotary_pct, or GPT-J rotary_dim."""
    if "partial_rotary_factor" in block:
        return check_key(f"{label}.partial_rotary_factor", block.pop("partial_rotary_factor"))
    name, value = r.get("partial_rotary_factor", "rotary_pct")
    if name is not None:
        return value  # checked by the reader
    rotary_dim = r.integer("rotary_dim")
    if rotary_dim is None:
        return 1.0
    if rotary_dim > rope_dim:
        raise ValueError(f"rotary_dim {rotary_dim} must be at most the head dim {rope_dim}")
    factor = rotary_dim / rope_dim
    while int(rope_dim * factor) < rotary_dim:  # 1/3 * 3 can land just below an integer
        factor = math.nextafter(factor, math.inf)
    r.notes.append(f"rotary_dim {rotary_dim} of head_dim {rope_dim}: partial_rotary_factor {factor:g}")
    return factor


def _normalize_scaling(r: Reader, block: dict[str, Any], label: str | None) -> dict[str, Any] | None:
    """HF form with "rope_type": "type" renamed, "su" -> "longrope", "mrope" -> "default" + mrope_section."""
    for key, value in block.items():  # every key by its kind and bounds (unknown keys as they are)
        if value is not None:
            block[key] = check_key(f"{label}.{key}", value)
    rope_type, legacy_type = block.pop("rope_type", None), block.pop("type", None)
    if rope_type and legacy_type and rope_type != legacy_type:
        r.unread.append(f"{label}.type {legacy_type!r} differs from rope_type {rope_type!r}: used rope_type")
    rope_type = rope_type or legacy_type or "default"
    if rope_type in ROPE_TYPE_ALIASES:  # "su": Phi-3's early name; "mrope": Qwen2-VL (default frequencies)
        renamed = ROPE_TYPE_ALIASES[rope_type]
        r.notes.append(f"{label} type {rope_type!r} is read as {renamed!r} (as HF does)")
        rope_type = renamed
    if rope_type not in ROPE_SCALING_FUNCTIONS:
        r.unread.append(
            f"{label}.type {rope_type!r} is not a known RoPE scaling type: ignored, plain RoPE used "
            f"(known: {', '.join(ROPE_SCALING_FUNCTIONS)})"
        )
        return None
    for key in _LIST_KEYS:
        if key in block and block[key] is None:
            raise ValueError(f"{label}.{key} must be a non-empty list of numbers (got None)")
    if block.get("mrope_interleaved") or block.get("interleaved"):
        r.unread.append("interleaved M-RoPE (Qwen3-VL, THWTHW...) is not modelled: Qwen2-VL sections used")
    if rope_type == "default" and "mrope_section" not in block:
        return None
    return {"rope_type": rope_type, **block}


def _check_block(scaling: Mapping[str, Any] | None, label: str | None, rotary_dim: int) -> None:
    """What the formulas need of a block, refused with the key named: LongRoPE's factor lists and M-RoPE's
    sections cover rotary_dim / 2 frequencies; YaRN's ramp runs from beta_slow up to beta_fast turns; Llama 3.1's
    blend runs from low_freq_factor up to high_freq_factor (equal or reversed bounds divide by zero or blend
    backwards)."""
    scaling, pairs = scaling or {}, rotary_dim // 2
    for key in _LIST_KEYS:
        if key in scaling and len(scaling[key]) != pairs:
            raise ValueError(
                f"{label}.{key} has {len(scaling[key])} factors; rotary dim {rotary_dim} has {pairs} pairs, one "
                "factor each"
            )
    if "mrope_section" in scaling and sum(scaling["mrope_section"]) != pairs:
        raise ValueError(
            f"{label}.mrope_section {list(scaling['mrope_section'])} adds up to {sum(scaling['mrope_section'])}; "
            f"it must add up to the {pairs} pairs of rotary dim {rotary_dim}"
        )
    if scaling.get("rope_type") == "yarn":
        fast, slow = (_or_default(scaling, key) for key in ("beta_fast", "beta_slow"))
        if fast <= slow:
            raise ValueError(f"{label}.beta_fast ({fast:g}) must be greater than beta_slow ({slow:g})")
    if scaling.get("rope_type") == "llama3":
        low, high = scaling.get("low_freq_factor"), scaling.get("high_freq_factor")
        if low is not None and high is not None and low >= high:
            raise ValueError(f"{label}.low_freq_factor ({low:g}) must be less than high_freq_factor ({high:g})")


def _or_default(scaling: Mapping[str, Any], key: str) -> float:
    value = scaling.get(key)
    return float(SCALING_KEYS[key].default if value is None else value)
