"""The traps of a context extension, each a check with a reason and a fix.

:data:`CHECKS` is a registry of same-signature functions ``(plan) -> list[Finding]``. A finding names its check
(``code``), its severity (``warning``: the settings will not do what is asked; ``note``: they will, with a
caveat) and the values its sentences need; :data:`TEXTS` holds each code's reason and fix as English templates
(the app shows them translated, with the same placeholders). Traps seen in real trackers: transformers before
4.56 replaced an explicit YaRN factor by max_position_embeddings / original_max_position_embeddings (issue
#38224, PR #40320); DeepSeek-V3's max_position_embeddings is 40 × 4096 = 163840, the extended length, not the
pre-training one; a runtime's max model length must fit within factor × original; GPT-J pairs channels
(2i, 2i+1) where GPT-NeoX rotates halves; Pythia and GPT-NeoX rotate a quarter of each head; Qwen2-VL's M-RoPE
splits the pairs into time, height and width sections.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from posenc_core.plan.paste import CONFIG_BLOCKS, IMPLEMENTED, RUNTIMES, WRITERS
from posenc_core.plan.rules import NO_CHECKED_BASE, NO_SMALLEST_BASE

if TYPE_CHECKING:
    from posenc_core.plan.plan import Plan

SEVERITIES = ("warning", "note")


@dataclass(frozen=True)
class Finding:
    """One check's result: its code, severity and the values its reason and fix are written with."""

    code: str
    severity: str
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def reason(self) -> str:
        return TEXTS[self.code][0].format(**self.values)

    @property
    def fix(self) -> str:
        return TEXTS[self.code][1].format(**self.values)


TEXTS: dict[str, tuple[str, str]] = {
    "factor_too_small": (
        "factor × original = {factor:g} × {original:,} = {reach:,} tokens, below the target {target:,}",
        "use a factor of at least {needed:g} (target / original)",
    ),
    "factor_below_one": (
        "the factor {factor:g} is below 1: it shortens the context instead of extending it",
        "use a factor above 1 (target / original = {needed:g})",
    ),
    "original_missing": (
        "the model's config has no original_max_position_embeddings: the plan took L = {original:,} from {source}",
        "if the model was pre-trained on another length, give it (--original N, or the Original length control)",
    ),
    "original_contradicts": (
        "the model's own config sets max_position_embeddings {max_positions:,} while its YaRN block reaches factor × "
        "original = {reach:,}; transformers before 4.56 used their ratio {ratio:g} in place of the factor",
        "write max_position_embeddings = factor × original_max_position_embeddings, as the plan's config does",
    ),
    "base_below_bound": (
        "with these settings B(m) = Σ cos(m·θ'ᵢ) falls to {lowest:.3g} at distance {m:,} < {target:,}: attention "
        "can no longer favour similar tokens there (Men et al. 2024; the smallest plain base for the target is "
        "{smallest})",
        "set rope_theta to {checked} (B(m) >= 0 checked at every m < {target:,}) and fine-tune (method base), or "
        "use a method whose B stays >= 0",
    ),
    "bound_already_below": (
        "with these settings B(m) = Σ cos(m·θ'ᵢ) falls to {lowest:.3g} at distance {m:,} < {target:,}, as the "
        "model's own settings already do within its own {context:,} tokens (B = {own:.3g} at {own_m:,}); Men et al. "
        "2024 find such a model keeps its perplexity but loses long-range retrieval past the bound",
        "test retrieval at the target (a needle test), or set rope_theta to {checked} (B(m) >= 0 checked at every "
        "m < {target:,}) and fine-tune",
    ),
    "slow_pairs_beyond": (
        "{count} slow pairs (those that never turned once in L = {original:,}) turn further by T = {target:,} than "
        "in training: pair {pair} reaches {angle:.2f} rad against the {seen:.2f} rad it saw",
        "choose a method that divides the slow pairs by s (yarn, linear or llama3), or fine-tune at T",
    ),
    "partial_rotary": (
        "only {rotary_dim} of each head's {head_dim} channels rotate (partial_rotary_factor {fraction:g}): the "
        "other channels carry no position at any length",
        "nothing to set: every formula here uses the rotary dim {rotary_dim}; a runtime reads it from the config",
    ),
    "pairing_layout": (
        "this model pairs channels (2i, 2i+1) (GPT-J style), not the halves (i, i + d/2) of GPT-NeoX and Llama",
        "keep the runtime's own layout for this architecture; a scaling block changes the frequencies, not the "
        "pairing, and a weight conversion must not mix the two",
    ),
    "mrope_yarn": (
        "M-RoPE splits the {pairs} pairs into time, height and width sections {sections}; YaRN's ramp runs over the "
        "pair index, so it treats the three sections unevenly (Qwen advises against it for image and video inputs)",
        "keep mrope_section in the block (the plan does) and check image and video tasks after the change",
    ),
    "runtime_missing": (
        "{runtime} does not implement {method}",
        "choose {alternatives}, or another runtime",
    ),
    "runtime_conversion": (
        "{runtime} reads {method}'s per-pair factors from the GGUF file, written when the model is converted",
        "convert the model again from a config.json with the plan's keys, then run with -c {target}",
    ),
    "dynamic_fixed": (
        "SGLang computes dynamic NTK once, at factor × original = {reach:,}; transformers grows the base with each "
        "sequence",
        "expect the served model to match transformers only at the full length",
    ),
    "transformers_fixed_base": (
        "{model}'s code in transformers fixes its base at 10000 and reads no scaling block: no config.json key "
        "changes its RoPE there",
        "serve it with vLLM, whose GPT-J reads rope_parameters",
    ),
    "transformers_phi3": (
        "Phi-3's config class in transformers accepts only longrope scaling ({method} raises, or is relabelled "
        "longrope and fails), and vLLM and SGLang load the config with it",
        "choose longrope (the model's own lists) or base",
    ),
    "vllm_dynamic": (
        "vLLM applies no dynamic NTK to decoder models and keeps a cos/sin cache of the original {original:,} "
        "positions: positions past it run off the cache",
        "choose yarn or linear to serve with vLLM",
    ),
    "vllm_deepseek": (
        "vLLM builds DeepSeek's own YaRN rotary for any scaling block of this model, so {method} would be served "
        "as YaRN",
        "choose yarn (the plan keeps DeepSeek's mscale) or base to serve with vLLM",
    ),
    "sglang_nested": (
        "SGLang applies its override to the top level of the config, while transformers 5 keeps {model}'s RoPE "
        "settings and length under text_config",
        "merge the config.json block into the model's config.json and start SGLang with --context-length {target}",
    ),
    "sglang_gptj": (
        "SGLang's GPT-J passes no scaling block to its RoPE: {method} would be ignored",
        "choose base, or serve with vLLM",
    ),
    "sglang_leftover": (
        "SGLang merges its override into the model's own RoPE settings, whose original_max_position_embeddings "
        "{original:,} stays and makes {method} fail",
        "merge the config.json block into the model's config.json and start SGLang with --context-length {target}",
    ),
    "llama_cpp_gptj": (
        "llama.cpp has no GPT-J converter or graph",
        "serve the model with vLLM",
    ),
    "llama_cpp_phi3": (
        "llama.cpp's Phi-3 converter reads only LongRoPE's lists from config.json, and the GGUF's long and short "
        "factors are always applied: {method} would stack on them",
        "choose longrope or base to serve with llama.cpp",
    ),
    "replaces_scaling": (
        "the model was trained with its own {own} scaling (factor {own_factor:g}); {method} replaces it, so its long "
        "context runs on frequencies it was not trained on",
        "prefer {own} with the factor {needed:g}, or fine-tune after the change",
    ),
    "longrope_reused": (
        "LongRoPE's lists were searched for this model's own factor {own_factor:g} ({own_context:,} tokens); at "
        "{factor:g} they are reused as they are, and only the attention factor changes",
        "search new lists for {target:,} tokens (Ding et al. 2024), or stay within {own_context:,} tokens",
    ),
    "already_reaches": (
        "the model already reaches {context:,} tokens, at or past the target {target:,}",
        "nothing to extend: its own settings serve the target",
    ),
}
"""Each check's reason and fix, English templates over its finding's values."""


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
