"""What each RoPE scaling method is, for people: the fields of one row of the context-extension methods table.

Each ``rope.scaling_keys.ROPE_TYPE_KEYS`` entry carries its :class:`MethodFacts` next to its keys, so the table
(:func:`posenc_core.rope.methods.methods_table`) lists exactly the registered types.
Refs for the facts: Chen et al. 2023, arXiv 2306.15595 (position interpolation); bloc97 and emozilla, Reddit
r/LocalLLaMA 2023 (NTK-aware, dynamic NTK); Peng et al. 2023, arXiv 2309.00071 (YaRN); Ding et al. 2024, arXiv
2402.13753 (LongRoPE); Meta's Llama 3.1 report, arXiv 2407.21783; the models' released ``config.json`` files.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MethodFacts:
    """One scaling method, in words."""

    method: str  # its usual name
    changes: str  # what it changes in RoPE
    fine_tuning: str  # whether the model is fine-tuned with it, per its paper / model cards
    attention_factor: str  # the cos/sin multiplier its function returns, as a formula in s (factor) and L
    used_by: str  # models whose released config uses it
