"""The traps of a context extension, each a check with a reason and a fix.

:data:`CHECKS` is a registry of same-signature functions ``(plan) -> list[Finding]``. A finding names its check
(``code``), its severity (``warning``: the settings will not do what is asked; ``note``: they will, with a caveat)
and the values its sentences need; :data:`TEXTS` (``findings``, with :class:`Finding`) holds each code's reason and
fix as English templates (the app shows them translated, with the same placeholders). Traps seen in real trackers:
transformers before 4.56 replaced an explicit YaRN factor by max_position_embeddings /
original_max_position_embeddings (issue #38224, PR #40320); DeepSeek-V3's max_position_embeddings is 40 × 4096 =
163840, the extended length, not the pre-training one; a runtime's max model length must fit within factor ×
original; GPT-J pairs channels (2i, 2i+1) where GPT-NeoX rotates halves; Pythia and GPT-NeoX rotate a quarter of
each head; Qwen2-VL's M-RoPE splits the pairs into time, height and width sections."""

from __future__ import annotations

import math
from collections.abc import Callable

from posenc_core.plan.findings import SEVERITIES, TEXTS, Finding
from posenc_core.plan.paste import CONFIG_BLOCKS, IMPLEMENTED, RUNTIMES, WRITERS
from posenc_core.plan.result import Plan
from posenc_core.plan.rules import NO_CHECKED_BASE, NO_SMALLEST_BASE

__all__ = ["CHECKS", "SEVERITIES", "TEXTS", "Finding", "run_checks"]  # Finding and TEXTS are findings.py's


def _own_factor(plan: Plan) -> float | None:
    return (plan.model.rope_scaling or {}).get("factor")


def check_factor(plan: Plan) -> list[Finding]:
    values = {"factor": plan.factor, "original": plan.original, "target": plan.target, "needed": plan.needed_factor}
    if plan.factor < 1:
        return [Finding("factor_below_one", "warning", values)]
    reach = int(plan.factor * plan.original)
    if reach < plan.target and plan.method != "base":
        return [Finding("factor_too_small", "warning", {**values, "reach": reach})]
    return []


def check_original(plan: Plan) -> list[Finding]:
    scaling, model = plan.model.rope_scaling or {}, plan.model
    found = []
    missing = not scaling.get("original_max_position_embeddings")
    if scaling.get("rope_type") not in (None, "default") and plan.original_source != "given" and missing:
        values = {"original": plan.original, "source": plan.original_source}
        found.append(Finding("original_missing", "note", values))
    if scaling.get("rope_type") == "yarn" and scaling.get("factor") and scaling.get("original_max_position_embeddings"):
        reach = int(scaling["factor"] * scaling["original_max_position_embeddings"])
        if model.max_position_embeddings and model.max_position_embeddings != reach:
            ratio = model.max_position_embeddings / scaling["original_max_position_embeddings"]
            found.append(
                Finding(
                    "original_contradicts",
                    "warning",
                    {"max_positions": model.max_position_embeddings, "reach": reach, "ratio": ratio},
                )
            )
    return found


def checked_base(plan: Plan) -> str:
    """The base the plan's base method checked at every m < T (B(m) >= 0), as a finding shows it."""
    base = plan.methods.get("base")
    if base is None or base.lowest_bound[1] < 0:
        return NO_CHECKED_BASE
    return f"{base.settings.rope_theta:,.0f}"


def check_bound(plan: Plan) -> list[Finding]:
    m, lowest = plan.chosen.lowest_bound
    if lowest >= 0:
        return []
    smallest = NO_SMALLEST_BASE if plan.rules["men"] is None else f"{plan.rules['men']:,.0f}"
    values = {"lowest": lowest, "m": m, "target": plan.target, "smallest": smallest, "checked": checked_base(plan)}
    own_m, own = plan.own_lowest_bound
    if own < 0:
        values |= {"context": plan.own_context, "own": own, "own_m": own_m}
        return [Finding("bound_already_below", "note", values)]
    return [Finding("base_below_bound", "warning", values)]


def check_slow_pairs(plan: Plan) -> list[Finding]:
    """Pairs longer than L (never a full turn in training) must not turn further by T than they did by L:
    T·θ'ᵢ <= L·θᵢ (to 1e-6). Dynamic NTK at 2× on Llama-3-8B: pair 35 reaches 6.80 rad against 6.26."""
    beyond = []
    for pair in plan.pairs:
        if pair.wavelength <= plan.original:
            continue
        seen = 2 * math.pi * plan.original / pair.wavelength
        angle = 2 * math.pi * plan.target / pair.wavelengths[plan.method]
        if angle > seen * (1 + 1e-6):
            beyond.append((angle / seen, pair.index, angle, seen))
    if not beyond:
        return []
    _, index, angle, seen = max(beyond)
    values = {"count": len(beyond), "original": plan.original, "target": plan.target, "pair": index}
    return [Finding("slow_pairs_beyond", "warning", values | {"angle": angle, "seen": seen})]


def check_partial(plan: Plan) -> list[Finding]:
    model = plan.model
    if model.partial_rotary_factor >= 1:
        return []
    values = {"rotary_dim": plan.rotary_dim, "head_dim": model.rope_head_dim, "fraction": model.partial_rotary_factor}
    return [Finding("partial_rotary", "note", values)]


def check_layout(plan: Plan) -> list[Finding]:
    return [Finding("pairing_layout", "note")] if plan.model.rope_layout == "interleaved" else []


def check_mrope(plan: Plan) -> list[Finding]:
    if plan.model.mrope_section is None or plan.method != "yarn":
        return []
    values = {"pairs": plan.rotary_dim // 2, "sections": list(plan.model.mrope_section)}
    return [Finding("mrope_yarn", "warning", values)]


def check_runtimes(plan: Plan) -> list[Finding]:
    """Runtimes that lack the method, need it at conversion, or cannot serve it for this model (a writer's
    refusal: the block is not shown, the reason is a warning)."""
    found = []
    for name in (plan.runtime,) if plan.runtime else tuple(RUNTIMES):
        runtime = RUNTIMES[name]
        support = runtime.methods.get(plan.method)
        if support is None:
            alternatives = " or ".join(
                m for m, how in runtime.methods.items() if how == IMPLEMENTED and m in plan.methods
            )
            values = {"runtime": runtime.label, "method": plan.method, "alternatives": alternatives}
            found.append(Finding("runtime_missing", "warning" if plan.runtime else "note", values))
        elif support != IMPLEMENTED:
            values = {"runtime": runtime.label, "method": plan.method, "target": plan.target}
            found.append(Finding("runtime_conversion", "note", values))
    codes = set()
    for name, refusal in plan.refused.items():
        shown = name in CONFIG_BLOCKS or plan.runtime in (None, WRITERS[name].runtime)
        if shown and refusal.code not in codes:
            codes.add(refusal.code)
            found.append(Finding(refusal.code, "warning", dict(refusal.values)))
    if plan.method == "dynamic" and plan.runtime in (None, "sglang") and "sglang" in plan.paste:
        found.append(Finding("dynamic_fixed", "note", {"reach": int(plan.factor * plan.original)}))
    return found


def check_replaced(plan: Plan) -> list[Finding]:
    own = (plan.model.rope_scaling or {}).get("rope_type", "default")
    if own in ("default", plan.method) or own not in plan.methods:
        return []
    values = {"own": own, "own_factor": _own_factor(plan) or 1.0, "method": plan.method, "needed": plan.needed_factor}
    return [Finding("replaces_scaling", "warning", values)]


def check_longrope(plan: Plan) -> list[Finding]:
    own = plan.model.rope_scaling or {}
    if plan.method != "longrope" or own.get("rope_type") != "longrope":
        return []
    own_context = plan.model.max_position_embeddings or plan.original
    own_factor = own.get("factor") or own_context / plan.original
    if abs(own_factor - plan.factor) <= 1e-9 * own_factor:
        return []
    values = {"own_factor": own_factor, "own_context": own_context, "factor": plan.factor, "target": plan.target}
    return [Finding("longrope_reused", "warning", values)]


def check_reach(plan: Plan) -> list[Finding]:
    context = plan.model.context_length or 0
    if context >= plan.target:
        return [Finding("already_reaches", "note", {"context": context, "target": plan.target})]
    return []


CHECKS: dict[str, Callable[[Plan], list[Finding]]] = {
    "factor": check_factor,
    "original": check_original,
    "bound": check_bound,
    "slow_pairs": check_slow_pairs,
    "partial": check_partial,
    "layout": check_layout,
    "mrope": check_mrope,
    "runtimes": check_runtimes,
    "replaced": check_replaced,
    "longrope": check_longrope,
    "reach": check_reach,
}
"""Every check, in the order their findings are shown."""


def run_checks(plan: Plan) -> tuple[Finding, ...]:
    """Every check's findings, warnings first."""
    found = [finding for check in CHECKS.values() for finding in check(plan)]
    return tuple(sorted(found, key=lambda finding: SEVERITIES.index(finding.severity)))
