"""What a plan's checks say: a :class:`Finding` (its check's code, severity and values) and :data:`TEXTS`, each
code's reason and fix as English templates (the app shows them translated, with the same placeholders).

Its own module so that the plan (``plan.result``) holds findings and the checks (``plan.checks``) read a plan
without either importing the other's module: ``checks`` -> ``result`` -> ``findings``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
