"""The context-extension methods side by side: one row per registered RoPE scaling type, its words from the
type's :class:`~posenc_core.rope.method_facts.MethodFacts` and its attention factor computed by the type's own
function, so the table cannot list a type the code lacks, miss one it has, or quote a factor it does not return.

The attention factor multiplies cos and sin, so the attention logits by its square
(``rope.yarn.attention_logit_multiplier``). Ref: HF transformers ``modeling_rope_utils.py`` (v5).
"""

from __future__ import annotations

import math

from posenc_core._checks import check_choice, check_float, check_int
from posenc_core.rope.scaling import ROPE_SCALING_FUNCTIONS, inv_freq
from posenc_core.rope.scaling_keys import ROPE_TYPE_KEYS

LLAMA3_FREQ_FACTORS = {"low_freq_factor": 1.0, "high_freq_factor": 4.0}  # Llama 3.1's released values

COLUMNS = ("rope_type", "method", "what it changes", "fine-tuning", "attention factor", "used by")


def example_scaling(rope_type: str, *, rotary_dim: int, factor: float, original_max_position_embeddings: int) -> dict:
    """An HF ``rope_scaling`` dict of ``rope_type`` with factor s and original length L; LongRoPE's per-pair lists
    are all ones and Llama 3.1's frequency factors its released 1 and 4 (neither changes the attention factor)."""
    rope_type = check_choice("rope_type", rope_type, ROPE_TYPE_KEYS)
    values = {
        "factor": factor,
        "original_max_position_embeddings": original_max_position_embeddings,
        "short_factor": [1.0] * (rotary_dim // 2),
        "long_factor": [1.0] * (rotary_dim // 2),
        **LLAMA3_FREQ_FACTORS,
    }
    keys = ROPE_TYPE_KEYS[rope_type]
    names = [key.name for key in keys.required] + (["factor"] if rope_type == "longrope" else [])
    return {"rope_type": rope_type, **{name: values[name] for name in names}}


def attention_factor_of(
    rope_type: str,
    *,
    head_dim: int = 128,
    base: float = 10000.0,
    factor: float = 8.0,
    original_max_position_embeddings: int = 4096,
    partial_rotary_factor: float = 1.0,
) -> float:
    """The attention factor ``rope.scaling.inv_freq`` returns for ``rope_type`` at factor s and original length L
    (max_position_embeddings = L, sequence length s·L)."""
    head_dim = check_int("head_dim", head_dim, minimum=2)
    factor = check_float("factor", factor, greater_than=0.0)
    length = check_int("original_max_position_embeddings", original_max_position_embeddings, minimum=1)
    rotary_dim = int(head_dim * check_float("partial_rotary_factor", partial_rotary_factor, greater_than=0.0))
    scaling = example_scaling(rope_type, rotary_dim=rotary_dim, factor=factor, original_max_position_embeddings=length)
    _, attention_factor = inv_freq(
        head_dim,
        base,
        scaling,
        seq_len=math.ceil(factor * length),
        partial_rotary_factor=partial_rotary_factor,
        max_position_embeddings=length,
        device="cpu",
    )
    return float(attention_factor)


def methods_table(
    *,
    head_dim: int = 128,
    base: float = 10000.0,
    factor: float = 8.0,
    original_max_position_embeddings: int = 4096,
    partial_rotary_factor: float = 1.0,
) -> list[dict[str, str]]:
    """One row per ``ROPE_SCALING_FUNCTIONS`` type, keyed by :data:`COLUMNS`; the attention factor column holds
    the type's formula and its value at s = ``factor``, L = ``original_max_position_embeddings``."""
    if set(ROPE_SCALING_FUNCTIONS) != set(ROPE_TYPE_KEYS):  # a new type must bring its keys and its facts
        raise ValueError(f"rope types without facts: {sorted(set(ROPE_SCALING_FUNCTIONS) ^ set(ROPE_TYPE_KEYS))}")
    rows = []
    for rope_type in ROPE_SCALING_FUNCTIONS:
        facts = ROPE_TYPE_KEYS[rope_type].facts
        value = attention_factor_of(
            rope_type,
            head_dim=head_dim,
            base=base,
            factor=factor,
            original_max_position_embeddings=original_max_position_embeddings,
            partial_rotary_factor=partial_rotary_factor,
        )
        shown = facts.attention_factor if facts.attention_factor == "1" else f"{facts.attention_factor} = {value:.4g}"
        if facts.attention_factor == "1" and value != 1.0:
            raise ValueError(f"rope_type {rope_type!r} says its attention factor is 1 but returns {value:g}")
        rows.append(
            dict(
                zip(
                    COLUMNS,
                    (rope_type, facts.method, facts.changes, facts.fine_tuning, shown, facts.used_by),
                    strict=True,
                )
            )
        )
    return rows
