"""Read a Hugging Face ``config.json`` into a :class:`~posenc_core.presets.ModelPreset`.

Families name the same things differently: ``hidden_size``/``n_embd``/``d_model``, ``num_attention_heads``/
``n_head``/``num_heads``, the RoPE base as ``rope_theta``/``rotary_emb_base`` (v5: ``rope_parameters``), the
partial rotation as ``partial_rotary_factor``/``rotary_pct``/``rotary_dim``. :func:`from_hf_config` reads what
the position maths needs and says, in plain sentences, what it could not read or chose to ignore.

Ref: HF transformers ``models/*/configuration_*.py``; ``modeling_rope_utils.py`` (``rope_config_validation``,
v5 ``standardize_rope_params``: ``"type"`` -> ``"rope_type"``; Phi-3's top-level original length wins).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from posenc_core._checks import check_float, check_int
from posenc_core.presets import ModelPreset
from posenc_core.rope_scaling import ROPE_SCALING_FUNCTIONS, ROPE_TYPE_ALIASES

ROPE_SCALING_TYPES = tuple(ROPE_SCALING_FUNCTIONS)  # "default", "linear", "dynamic", "yarn", ...
_POSITIVE_SCALING_KEYS = ("factor", "attention_factor", "beta_fast", "beta_slow", "low_freq_factor", "high_freq_factor")
_HIDDEN = ("hidden_size", "n_embd", "d_model", "n_embed")
_HEADS = ("num_attention_heads", "n_head", "n_heads", "num_heads")
_KV_HEADS = ("num_key_value_heads", "num_kv_heads", "n_kv_heads")
_MAX_POSITIONS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length")
_THETA = ("rope_theta", "rotary_emb_base", "rope_emb_base")
_T5_MODEL_TYPES = {"t5", "mt5", "umt5", "longt5", "switch_transformers"}
_LEARNED_MODEL_TYPES = {"gpt2", "gpt_neo", "gpt_bigcode", "opt", "bert", "roberta", "biogpt"}
_ROPE_MODEL_TYPES = {"llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2", "phi", "phi3", "gpt_neox"}
_SINUSOIDAL_MODEL_TYPES = {"marian", "fsmt", "pegasus", "xglm", "m2m_100", "speech_to_text"}


@dataclass
class ConfigReading:
    """What :func:`from_hf_config` made of a config: the preset, the keys it read, and what it did not."""

    preset: ModelPreset
    read: dict[str, Any] = field(default_factory=dict)  # config key (dotted if nested) -> value, for display
    unread: list[str] = field(default_factory=list)  # sentences: ignored keys, unknown types, derived values


class _Reader:
    """Looks keys up in ``text_config`` first (multimodal configs nest the language model there), then at
    the top level, and records every key it uses."""

    def __init__(self, top: Mapping[str, Any]):
        text = top.get("text_config")
        self.sources = [("text_config.", text)] if isinstance(text, Mapping) else []
        self.sources.append(("", top))
        self.read: dict[str, Any] = {}
        self.unread: list[str] = []
        self.notes: list[str] = []

    def get(self, *keys: str) -> tuple[str | None, Any]:
        """(label, value) of the first of ``keys`` present and not null, else (None, None)."""
        for key in keys:
            for prefix, source in self.sources:
                if source.get(key) is not None:
                    self.read[prefix + key] = source[key]
                    return prefix + key, source[key]
        return None, None

    def integer(self, *keys: str, what: str | None = None) -> int | None:
        """A positive int under one of ``keys``; ``what`` makes it required (ValueError naming the keys)."""
        label, value = self.get(*keys)
        if label is None:
            if what is not None:
                raise ValueError(f"config has no {what}: expected one of {', '.join(map(repr, keys))}")
            return None
        return check_int(label, value, minimum=1)


def from_hf_config(config: Mapping[str, Any] | str | bytes) -> ConfigReading:
    """Read a ``config.json`` (a mapping, or its JSON text) into a :class:`ConfigReading`.

    Raises ``ValueError`` (naming the key) for text that is not JSON, JSON that is not an object, a missing
    hidden size or head count, or a PE value of the wrong type. Unknown extra keys are ignored silently.
    """
    top = _load(config)
    r = _Reader(top)
    model_type = str(top.get("model_type") or "")
    hidden = r.integer(*_HIDDEN, what="hidden size")
    heads = r.integer(*_HEADS, what="number of attention heads")
    attn = top.get("attn_config") if isinstance(top.get("attn_config"), Mapping) else {}
    kv_heads = r.integer(*_KV_HEADS)
    if kv_heads is None and attn.get("kv_n_heads") is not None:
        kv_heads = check_int("attn_config.kv_n_heads", attn["kv_n_heads"], minimum=1)
    fields: dict[str, Any] = {
        "name": _name(top),
        "hidden_size": hidden,
        "n_heads": heads,
        "n_kv_heads": kv_heads,
        "head_dim": _head_dim(r, hidden, heads),
        "max_position_embeddings": r.integer(*_MAX_POSITIONS),
    }
    rope_label, rope_block = _rope_block(r)
    fields["scheme"] = scheme = _scheme(r, top, attn, model_type, rope_block)
    fields["source"] = f"uploaded config.json ({fields['name']})"
    if scheme in ("rope", "mrope"):
        fields.update(_rope_fields(r, rope_label, rope_block, fields["head_dim"], model_type))
    elif scheme == "alibi":
        label, bias_max = r.get("alibi_bias_max")
        if attn.get("alibi_bias_max") is not None:
            label, bias_max = "attn_config.alibi_bias_max", attn["alibi_bias_max"]
            r.read[label] = bias_max
        if label is not None:
            fields["alibi_bias_max"] = check_float(label, bias_max, greater_than=0.0)
    elif scheme == "t5":
        fields["t5_num_buckets"] = r.integer("relative_attention_num_buckets") or _default(
            r, "relative_attention_num_buckets", 32
        )
        fields["t5_max_distance"] = r.integer("relative_attention_max_distance") or _default(
            r, "relative_attention_max_distance", 128
        )
    _note_ignored(r, top)
    preset = ModelPreset(**fields, notes=tuple(r.notes))
    return ConfigReading(preset=preset, read=r.read, unread=r.unread)


def _load(config: Any) -> Mapping[str, Any]:
    if isinstance(config, bytes | bytearray):
        try:
            config = bytes(config).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ValueError(f"config is not UTF-8 text ({error.reason} at byte {error.start})") from None
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except json.JSONDecodeError as error:
            raise ValueError(
                f"config is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
            ) from None
    if not isinstance(config, Mapping):
        raise ValueError(f"config must be a JSON object {{...}} (got {type(config).__name__})")
    return config


def _name(top: Mapping[str, Any]) -> str:
    path, architectures = top.get("_name_or_path"), top.get("architectures")
    if isinstance(path, str) and path.strip().strip("./"):
        return path.strip()
    if isinstance(architectures, list) and architectures and isinstance(architectures[0], str):
        return architectures[0]
    return str(top.get("model_type") or "uploaded config")


def _default(r: _Reader, key: str, value: Any) -> Any:
    r.unread.append(f"no {key}: using the default {value}")
    return value


def _head_dim(r: _Reader, hidden: int, heads: int) -> int:
    """head_dim / d_kv when given; DeepSeek: qk_nope_head_dim + qk_rope_head_dim; else hidden // heads."""
    label, head_dim = r.get("head_dim", "d_kv")
    nope, rope = r.integer("qk_nope_head_dim"), r.integer("qk_rope_head_dim")
    if nope and rope:
        if head_dim is not None and head_dim != nope + rope:
            r.unread.append(
                f"{label} {head_dim} is not the q/k head dim here: using qk_nope_head_dim + "
                f"qk_rope_head_dim = {nope} + {rope} = {nope + rope}"
            )
        return nope + rope
    if label is not None:
        return check_int(label, head_dim, minimum=1)
    r.unread.append(f"no head_dim: derived {hidden}/{heads} = {hidden // heads}")
    if hidden % heads:
        r.unread.append(f"hidden size {hidden} is not a multiple of {heads} heads: head_dim rounded down")
    return hidden // heads


def _scheme(r: _Reader, top: Mapping[str, Any], attn: Mapping[str, Any], model_type: str, block: Any) -> str:
    if model_type in _T5_MODEL_TYPES or r.get("relative_attention_num_buckets")[0]:
        return "t5"
    if model_type == "bloom":
        return "alibi"
    if "alibi" in attn:
        r.read["attn_config.alibi"] = attn["alibi"]
        if attn["alibi"]:
            if top.get("learned_pos_emb"):
                r.unread.append(
                    "learned_pos_emb true is not modelled: attn_config.alibi is true (HF's MptModel "
                    "has no position table)"
                )
            return "alibi"
        return "learned" if top.get("learned_pos_emb", True) else "rope"
    if r.get("alibi")[1] is True:
        r.unread.append(
            "Falcon-style alibi is added before the 1/sqrt(d) scaling (a model quirk): the bias "
            "shown is the reference, unscaled one"
        )
        return "alibi"
    if isinstance(block, Mapping) and block.get("mrope_section") is not None:
        return "mrope"
    if model_type in _LEARNED_MODEL_TYPES or top.get("position_embedding_type") == "absolute":
        return "learned"
    if model_type in _SINUSOIDAL_MODEL_TYPES:
        return "sinusoidal"
    rope_keys = r.get(*_THETA, "rotary_pct", "rotary_dim", "partial_rotary_factor")[0]
    if block is None and rope_keys is None and model_type not in _ROPE_MODEL_TYPES:
        r.unread.append(f"no position-encoding keys found (model_type {model_type!r}): assuming RoPE")
    return "rope"


def _rope_block(r: _Reader) -> tuple[str | None, Any]:
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


def _rope_fields(r: _Reader, label: str | None, block: Any, head_dim: int, model_type: str) -> dict[str, Any]:
    if block is not None and not isinstance(block, Mapping):
        raise ValueError(f"{label} must be a JSON object or null (got {block!r})")
    block = dict(block or {})
    fields: dict[str, Any] = {}
    if "rope_theta" in block:  # v5 keeps the base inside rope_parameters
        theta_label, theta = f"{label}.rope_theta", block.pop("rope_theta")
    else:
        theta_label, theta = r.get(*_THETA)
    if theta_label is None:
        theta_label, theta = "rope_theta", _default(r, "rope_theta", 10000.0)
    fields["rope_theta"] = check_float(theta_label, theta, greater_than=1.0)
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
    _check_lengths(r, scaling, label, int(rope_dim * fields["partial_rotary_factor"]))
    if scaling and scaling.get("mrope_section") is not None:
        sections = scaling["mrope_section"]
        fields["mrope_section"] = tuple(check_int(f"{label}.mrope_section", s, minimum=1) for s in sections)
    interleave_label, interleave = r.get("rope_interleave")
    if interleave_label is not None:
        fields["rope_layout"] = "interleaved" if interleave else "half"
    elif model_type == "gptj" or model_type.startswith("deepseek_v"):
        fields["rope_layout"] = "interleaved"
        r.notes.append(f"{model_type} weights pair channels (2i, 2i+1): interleaved RoPE layout")
    return fields


def _partial_factor(r: _Reader, block: dict[str, Any], label: str | None, rope_dim: int) -> float:
    """partial_rotary_factor (top level or in the rope block), NeoX rotary_pct, or GPT-J rotary_dim."""
    if "partial_rotary_factor" in block:
        value, name = block.pop("partial_rotary_factor"), f"{label}.partial_rotary_factor"
        return check_float(name, value, greater_than=0.0, maximum=1.0)
    name, value = r.get("partial_rotary_factor", "rotary_pct")
    if name is not None:
        return check_float(name, value, greater_than=0.0, maximum=1.0)
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


def _normalize_scaling(r: _Reader, block: dict[str, Any], label: str | None) -> dict[str, Any] | None:
    """HF form with "rope_type": "type" renamed, "su" -> "longrope", "mrope" -> "default" + mrope_section."""
    rope_type, legacy_type = block.pop("rope_type", None), block.pop("type", None)
    if rope_type and legacy_type and rope_type != legacy_type:
        r.unread.append(f"{label}.type {legacy_type!r} differs from rope_type {rope_type!r}: used rope_type")
    rope_type = rope_type or legacy_type or "default"
    if rope_type in ROPE_TYPE_ALIASES:  # "su": Phi-3's early name; "mrope": Qwen2-VL (default frequencies)
        renamed = ROPE_TYPE_ALIASES[rope_type]
        r.notes.append(f"{label} type {rope_type!r} is read as {renamed!r} (as HF does)")
        rope_type = renamed
    if rope_type not in ROPE_SCALING_TYPES:
        r.unread.append(
            f"{label}.type {rope_type!r} is not a known RoPE scaling type: ignored, plain RoPE used "
            f"(known: {', '.join(ROPE_SCALING_TYPES)})"
        )
        return None
    for key in _POSITIVE_SCALING_KEYS:
        if block.get(key) is not None:
            check_float(f"{label}.{key}", block[key], greater_than=0.0)
    for key in ("long_factor", "short_factor", "mrope_section"):
        if key in block and not (isinstance(block[key], list) and block[key]):
            raise ValueError(f"{label}.{key} must be a non-empty list of numbers (got {block[key]!r})")
    if block.get("mrope_interleaved") or block.get("interleaved"):
        r.unread.append("interleaved M-RoPE (Qwen3-VL, THWTHW...) is not modelled: Qwen2-VL sections used")
    if rope_type == "default" and "mrope_section" not in block:
        return None
    return {"rope_type": rope_type, **block}


def _check_lengths(r: _Reader, scaling: Mapping[str, Any] | None, label: str | None, rotary_dim: int) -> None:
    """LongRoPE factor lists and M-RoPE sections must cover rotary_dim / 2 frequencies."""
    scaling, pairs = scaling or {}, rotary_dim // 2
    for key, count in (
        ("long_factor", len(scaling.get("long_factor") or [])),
        ("short_factor", len(scaling.get("short_factor") or [])),
        ("mrope_section", sum(scaling.get("mrope_section") or [])),
    ):
        if key in scaling and count != pairs:
            r.unread.append(f"{label}.{key} covers {count} frequencies; rotary dim {rotary_dim} has {pairs}")


def _note_ignored(r: _Reader, top: Mapping[str, Any]) -> None:
    """Keys that change attention but not the position encoding shown here."""
    label, window = r.get("sliding_window")
    if isinstance(window, int) and not isinstance(window, bool):
        if r.get("use_sliding_window")[1] is False:
            r.unread.append(f"{label} {window} is unused (use_sliding_window false)")
        else:
            r.unread.append(f"{label} {window} is not modelled (it limits attention, not positions)")
    for key, why in (
        ("query_pre_attn_scalar", "logits are scaled by its inverse square root"),
        ("attn_logit_softcapping", "attention logits are soft-capped"),
        ("rope_local_base_freq", "sliding layers' RoPE base; the global rope_theta is used"),
    ):
        label, value = r.get(key)
        if label is not None:
            r.unread.append(f"{label} {value} is not modelled ({why})")
    if isinstance(top.get("vision_config"), Mapping):
        r.unread.append("vision_config is not read: only the language model's positions are modelled")
