"""The code behind the plan's figure: the chosen method's frequencies, written out for the plan's numbers (the
context-extension snippets' formulas, in float64 as the plan computes them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, code_block, expect, literal, register_code
from posenc.figures.context.code_variants import frequencies_code, parameter_lines
from posenc.figures.plan.model import plan_for

_KEYS = {"yarn": ("beta_fast", "beta_slow", "truncate"), "llama3": ("low_freq_factor", "high_freq_factor")}
_DEFAULTS = {"beta_fast": 32.0, "beta_slow": 1.0, "truncate": True}  # HF's, when the block leaves them out


def snippet_values(p: Mapping[str, Any]) -> dict[str, Any]:
    """The values the context snippets read, from the plan of ``p``: its factor, L, T (as seq_len) and the keys
    of the chosen method's block."""
    plan = plan_for(p)
    block = dict(plan.chosen.settings.scaling or {})
    values = {**p, "factor": plan.factor, "original_max_position_embeddings": plan.original, "seq_len": plan.target}
    for key in _KEYS.get(plan.method, ()):
        values[key] = block.get(key, _DEFAULTS.get(key))
    for key in ("short_factor", "long_factor"):
        values[key] = tuple(block.get(key, ()))
    return values


@register_code("plan-wavelengths")
def plan_wavelengths_code(p: Mapping[str, Any]) -> Snippet:
    plan = plan_for(p)
    values = snippet_values(p)
    if plan.method == "base":
        lines = parameter_lines(values, ["default"])
        formulas = frequencies_code(values, ["default"], dtype="double") + (
            f"\nnew_base = {literal(plan.chosen.settings.rope_theta)}  # the plan's larger base, no scaling block"
            '\ninv["base"] = 1.0 / new_base ** exponent'
        )
    else:
        lines = parameter_lines(values, [plan.method])
        formulas = frequencies_code(values, [plan.method], dtype="double")
    source = code_block(
        f"{lines}\nT = {plan.target}  # the target context",
        formulas,
        f"""
        result = {{"pair": torch.arange(rotary_dim // 2), "original": 2 * math.pi / original}}
        result["{plan.method}"] = 2 * math.pi / inv["{plan.method}"]  # λ'_i = 2π/θ'_i, tokens per turn
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=expect("plan-wavelengths", p, "pair", "original", plan.method))
