"""The key reader behind :func:`posenc_core.models.hf_config.from_hf_config`: one place that looks keys up in a
``config.json``, checks each value's type and bounds (``LIMITS``), and records which keys it used, which it could
not read, and what it noted.

The bounds are wide enough for every published model (a 10M-token context, a base of 1e7, 128 layers) and tight
enough that nothing downstream overflows: a context times a scaling factor stays a finite whole number.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from posenc_core._checks import check_float, check_int, shown
from posenc_core.rope.scaling_keys import SCALING_KEYS

MAX_WIDTH = 1 << 20  # hidden size (1,048,576)
MAX_HEADS = 1 << 16  # heads, head dims, rotary dims (65,536)
MAX_LENGTH = 1 << 30  # positions: contexts, windows, chunks (1,073,741,824)
MAX_LAYERS = 4096
MAX_SCALE = 1e6  # scaling factors, YaRN's betas, per-pair divisors
MAX_BASE = 1e18  # rope_theta and the other bases
MAX_SECTIONS = 8  # M-RoPE's (T, H, W) sections
MAX_NAME = 200  # characters of a name (model_type, rope_type)


@dataclass(frozen=True)
class Limit:
    """What one key may hold: ``kind`` "int" | "float" | "floats" (a list) | "ints" (a list) | "bool" | "flag"
    (a bool or a number, HF reads it as truthy) | "name" (a string) | "object" (a JSON object), with bounds."""

    kind: str
    minimum: float | None = None
    maximum: float | None = None
    greater_than: float | None = None
    max_items: int | None = None

    def check(self, label: str, value: Any) -> Any:
        """``value`` checked: the value to use, or a ValueError naming ``label`` and what is allowed."""
        if self.kind == "int":
            return check_int(label, value, minimum=_whole(self.minimum), maximum=_whole(self.maximum))
        if self.kind == "float":
            return check_float(label, value, minimum=self.minimum, maximum=self.maximum, greater_than=self.greater_than)
        if self.kind in ("floats", "ints"):
            what = "whole numbers" if self.kind == "ints" else "numbers"
            allowed = f"a list of 1 to {self.max_items:,}" if self.max_items else "a non-empty list of"
            if not isinstance(value, list | tuple) or not value or (self.max_items and len(value) > self.max_items):
                raise ValueError(f"{label} must be {allowed} {what} (got {shown(value)})")
            item = Limit(self.kind[:-1], self.minimum, self.maximum, self.greater_than)
            return [item.check(f"{label}[{i}]", v) for i, v in enumerate(value)]
        if self.kind in ("bool", "flag"):
            number = self.kind == "flag" and isinstance(value, int | float) and value == value
            if not isinstance(value, bool) and not number:
                raise ValueError(f"{label} must be true or false (got {shown(value)})")
            return value
        if self.kind == "name":
            if not isinstance(value, str) or len(value) > MAX_NAME:
                raise ValueError(f"{label} must be a name (text of at most {MAX_NAME} characters; got {shown(value)})")
            return value
        if not isinstance(value, Mapping):
            raise ValueError(f"{label} must be a JSON object or null (got {shown(value)})")
        return value


def _whole(bound: float | None) -> int | None:
    return None if bound is None else int(bound)


def _limits() -> dict[str, Limit]:
    """Every key the reader uses, by name (a key nested in a block is checked by its last part)."""
    table: dict[str, Limit] = {}
    for names, limit in (
        (("hidden_size", "n_embd", "d_model", "n_embed"), Limit("int", 1, MAX_WIDTH)),
        (("num_attention_heads", "n_head", "n_heads", "num_heads"), Limit("int", 1, MAX_HEADS)),
        (("num_key_value_heads", "num_kv_heads", "n_kv_heads", "kv_n_heads"), Limit("int", 1, MAX_HEADS)),
        (("head_dim", "d_kv", "qk_nope_head_dim", "qk_rope_head_dim", "rotary_dim"), Limit("int", 1, MAX_HEADS)),
        (("max_position_embeddings", "n_positions", "max_seq_len", "seq_length"), Limit("int", 1, MAX_LENGTH)),
        (("sliding_window", "attention_chunk_size", "floor_scale"), Limit("int", 1, MAX_LENGTH)),
        (("relative_attention_num_buckets", "relative_attention_max_distance"), Limit("int", 1, MAX_LENGTH)),
        (("num_hidden_layers", "n_layer", "num_layers"), Limit("int", 1, MAX_LAYERS)),
        (("no_rope_layer_interval", "sliding_window_pattern", "_sliding_window_pattern"), Limit("int", 1, MAX_LAYERS)),
        (("rope_theta", "rotary_emb_base", "rope_emb_base", "rope_local_base_freq"),
         Limit("float", None, MAX_BASE, 1.0)),
        (("rotary_pct",), Limit("float", None, 1.0, 0.0)),
        (("alibi_bias_max", "query_pre_attn_scalar", "attn_logit_softcapping"), Limit("float", None, MAX_SCALE, 0.0)),
        (("attn_scale",), Limit("float", 0.0, MAX_SCALE)),
        (("alibi", "use_sliding_window", "rope_interleave", "truncate", "mrope_interleaved", "interleaved"),
         Limit("bool")),
        (("attn_temperature_tuning", "learned_pos_emb"), Limit("flag")),
        (("model_type", "rope_type", "type"), Limit("name")),
        (("text_config", "vision_config", "attn_config", "rope_parameters", "rope_scaling"), Limit("object")),
        (("mrope_section",), Limit("ints", 1, MAX_HEADS, max_items=MAX_SECTIONS)),
    ):  # fmt: skip
        table.update(dict.fromkeys(names, limit))
    for name, key in SCALING_KEYS.items():  # the scaling dict's keys: their kind and bounds, and a maximum
        if name not in table:
            maximum = MAX_LENGTH if key.kind == "int" else key.maximum or MAX_SCALE
            items = MAX_HEADS // 2 if key.kind == "floats" else None  # one per pair
            table[name] = Limit(key.kind, key.minimum, maximum, key.greater_than, items)
    return table


LIMITS = _limits()


def check_key(label: str, value: Any) -> Any:
    """``value`` of the key ``label`` (dotted if nested) checked by its :data:`LIMITS` entry (unlisted: as is)."""
    limit = LIMITS.get(label.rsplit(".", 1)[-1].split("[", 1)[0])
    return value if limit is None else limit.check(label, value)


class Reader:
    """Looks keys up in ``text_config`` first (multimodal configs nest the language model there), then at
    the top level, and records every key it uses, checked by :func:`check_key`."""

    def __init__(self, top: Mapping[str, Any]):
        text = top.get("text_config")
        text = check_key("text_config", text) if text is not None else None
        self.sources = [("text_config.", text)] if text is not None else []
        self.sources.append(("", top))
        self.read: dict[str, Any] = {}  # config key (dotted if nested) -> value
        self.unread: list[str] = []  # sentences: ignored keys, unknown types, derived values
        self.notes: list[str] = []  # sentences for the preset's notes

    def get(self, *keys: str) -> tuple[str | None, Any]:
        """(label, value) of the first of ``keys`` present and not null, else (None, None)."""
        for key in keys:
            for prefix, source in self.sources:
                if source.get(key) is not None:
                    value = check_key(prefix + key, source[key])
                    self.read[prefix + key] = value
                    return prefix + key, value
        return None, None

    def integer(self, *keys: str, what: str | None = None) -> int | None:
        """A positive int under one of ``keys``; ``what`` makes it required (ValueError naming the keys)."""
        label, value = self.get(*keys)
        if label is None:
            if what is not None:
                raise ValueError(f"config has no {what}: expected one of {', '.join(map(repr, keys))}")
            return None
        return check_int(label, value, minimum=1)

    def default(self, key: str, value: Any) -> Any:
        """``value``, noting that ``key`` was absent and this default was used."""
        self.unread.append(f"no {key}: using the default {value}")
        return value
