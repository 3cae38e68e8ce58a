"""The Plan page's words around ``posenc_core.plan``: the checks' reasons and fixes (marked copies of the core's
English templates, so the catalogues hold them), what each method changes, and the names of the base rules.

A test checks that :data:`CHECK_TEXTS` equals ``posenc_core.plan.checks.TEXTS`` exactly: a template changed in the
core must be changed here (and translated) too.
"""

from __future__ import annotations

from posenc.i18n import N_, _
from posenc_core.plan import Finding
from posenc_core.plan.rules import NO_CHECKED_BASE, NO_SMALLEST_BASE

CHECK_TEXTS: dict[str, tuple[str, str]] = {
    "factor_too_small": (
        N_("factor × original = {factor:g} × {original:,} = {reach:,} tokens, below the target {target:,}"),
        N_("use a factor of at least {needed:g} (target / original)"),
    ),
    "factor_below_one": (
        N_("the factor {factor:g} is below 1: it shortens the context instead of extending it"),
        N_("use a factor above 1 (target / original = {needed:g})"),
    ),
    "original_missing": (
        N_("the model's config has no original_max_position_embeddings: the plan took L = {original:,} from {source}"),
        N_("if the model was pre-trained on another length, give it (--original N, or the Original length control)"),
    ),
    "original_contradicts": (
        N_(
            "the model's own config sets max_position_embeddings {max_positions:,} while its YaRN block "
            "reaches factor × original = {reach:,}; transformers before 4.56 used their ratio {ratio:g} in "
            "place of the factor"
        ),
        N_("write max_position_embeddings = factor × original_max_position_embeddings, as the plan's config does"),
    ),
    "base_below_bound": (
        N_(
            "with these settings B(m) = Σ cos(m·θ'ᵢ) falls to {lowest:.3g} at distance {m:,} < {target:,}: "
            "attention can no longer favour similar tokens there (Men et al. 2024; the smallest plain base "
            "for the target is {smallest})"
        ),
        N_(
            "set rope_theta to {checked} (B(m) >= 0 checked at every m < {target:,}) and fine-tune (method "
            "base), or use a method whose B stays >= 0"
        ),
    ),
    "bound_already_below": (
        N_(
            "with these settings B(m) = Σ cos(m·θ'ᵢ) falls to {lowest:.3g} at distance {m:,} < {target:,}, as"
            " the model's own settings already do within its own {context:,} tokens (B = {own:.3g} at "
            "{own_m:,}); Men et al. 2024 find such a model keeps its perplexity but loses long-range "
            "retrieval past the bound"
        ),
        N_(
            "test retrieval at the target (a needle test), or set rope_theta to {checked} (B(m) >= 0 checked "
            "at every m < {target:,}) and fine-tune"
        ),
    ),
    "slow_pairs_beyond": (
        N_(
            "{count} slow pairs (those that never turned once in L = {original:,}) turn further by T = "
            "{target:,} than in training: pair {pair} reaches {angle:.2f} rad against the {seen:.2f} rad it "
            "saw"
        ),
        N_("choose a method that divides the slow pairs by s (yarn, linear or llama3), or fine-tune at T"),
    ),
    "partial_rotary": (
        N_(
            "only {rotary_dim} of each head's {head_dim} channels rotate (partial_rotary_factor "
            "{fraction:g}): the other channels carry no position at any length"
        ),
        N_("nothing to set: every formula here uses the rotary dim {rotary_dim}; a runtime reads it from the config"),
    ),
    "pairing_layout": (
        N_("this model pairs channels (2i, 2i+1) (GPT-J style), not the halves (i, i + d/2) of GPT-NeoX and Llama"),
        N_(
            "keep the runtime's own layout for this architecture; a scaling block changes the frequencies, "
            "not the pairing, and a weight conversion must not mix the two"
        ),
    ),
    "mrope_yarn": (
        N_(
            "M-RoPE splits the {pairs} pairs into time, height and width sections {sections}; YaRN's ramp "
            "runs over the pair index, so it treats the three sections unevenly (Qwen advises against it for "
            "image and video inputs)"
        ),
        N_("keep mrope_section in the block (the plan does) and check image and video tasks after the change"),
    ),
    "runtime_missing": (
        N_("{runtime} does not implement {method}"),
        N_("choose {alternatives}, or another runtime"),
    ),
    "runtime_conversion": (
        N_("{runtime} reads {method}'s per-pair factors from the GGUF file, written when the model is converted"),
        N_("convert the model again from a config.json with the plan's keys, then run with -c {target}"),
    ),
    "dynamic_fixed": (
        N_(
            "SGLang computes dynamic NTK once, at factor × original = {reach:,}; transformers grows the base "
            "with each sequence"
        ),
        N_("expect the served model to match transformers only at the full length"),
    ),
    "transformers_fixed_base": (
        N_(
            "{model}'s code in transformers fixes its base at 10000 and reads no scaling block: no "
            "config.json key changes its RoPE there"
        ),
        N_("serve it with vLLM, whose GPT-J reads rope_parameters"),
    ),
    "transformers_phi3": (
        N_(
            "Phi-3's config class in transformers accepts only longrope scaling ({method} raises, or is "
            "relabelled longrope and fails), and vLLM and SGLang load the config with it"
        ),
        N_("choose longrope (the model's own lists) or base"),
    ),
    "vllm_dynamic": (
        N_(
            "vLLM applies no dynamic NTK to decoder models and keeps a cos/sin cache of the original "
            "{original:,} positions: positions past it run off the cache"
        ),
        N_("choose yarn or linear to serve with vLLM"),
    ),
    "vllm_deepseek": (
        N_(
            "vLLM builds DeepSeek's own YaRN rotary for any scaling block of this model, so {method} would be"
            " served as YaRN"
        ),
        N_("choose yarn (the plan keeps DeepSeek's mscale) or base to serve with vLLM"),
    ),
    "sglang_nested": (
        N_(
            "SGLang applies its override to the top level of the config, while transformers 5 keeps {model}'s"
            " RoPE settings and length under text_config"
        ),
        N_("merge the config.json block into the model's config.json and start SGLang with --context-length {target}"),
    ),
    "sglang_gptj": (
        N_("SGLang's GPT-J passes no scaling block to its RoPE: {method} would be ignored"),
        N_("choose base, or serve with vLLM"),
    ),
    "sglang_leftover": (
        N_(
            "SGLang merges its override into the model's own RoPE settings, whose "
            "original_max_position_embeddings {original:,} stays and makes {method} fail"
        ),
        N_("merge the config.json block into the model's config.json and start SGLang with --context-length {target}"),
    ),
    "llama_cpp_gptj": (
        N_("llama.cpp has no GPT-J converter or graph"),
        N_("serve the model with vLLM"),
    ),
    "llama_cpp_phi3": (
        N_(
            "llama.cpp's Phi-3 converter reads only LongRoPE's lists from config.json, and the GGUF's long and short "
            "factors are always applied: {method} would stack on them"
        ),
        N_("choose longrope or base to serve with llama.cpp"),
    ),
    "replaces_scaling": (
        N_(
            "the model was trained with its own {own} scaling (factor {own_factor:g}); {method} replaces it, "
            "so its long context runs on frequencies it was not trained on"
        ),
        N_("prefer {own} with the factor {needed:g}, or fine-tune after the change"),
    ),
    "longrope_reused": (
        N_(
            "LongRoPE's lists were searched for this model's own factor {own_factor:g} ({own_context:,} "
            "tokens); at {factor:g} they are reused as they are, and only the attention factor changes"
        ),
        N_("search new lists for {target:,} tokens (Ding et al. 2024), or stay within {own_context:,} tokens"),
    ),
    "already_reaches": (
        N_("the model already reaches {context:,} tokens, at or past the target {target:,}"),
        N_("nothing to extend: its own settings serve the target"),
    ),
}
"""Each check's (reason, fix), the core's templates marked for translation."""

VALUE_TEXTS = {
    NO_SMALLEST_BASE: N_("none found (none up to 1e12, or a target past 4M tokens)"),
    NO_CHECKED_BASE: N_("none found (no base checked keeps B(m) >= 0 up to the target)"),
}
"""Words the core writes into a finding's values (``rules.NO_SMALLEST_BASE``: Men et al.'s smallest base not found;
``rules.NO_CHECKED_BASE``: no base the plan checked keeps B(m) >= 0)."""
OR = N_(" or ")

METHOD_NOTES = {
    "linear": N_(
        "Position interpolation divides every frequency by s, so T tokens span the angles L tokens did. The fast "
        "pairs that tell neighbours apart are squeezed too, so the model needs a short fine-tune (Chen et al. 2023)."
    ),
    "dynamic": N_(
        "Dynamic NTK leaves the frequencies alone up to L, then raises the base with the sequence length: "
        "base·(s·n/L − (s − 1))^(d/(d−2)). It needs no fine-tuning; max_position_embeddings stays L, as HF reads it."
    ),
    "yarn": N_(
        "YaRN keeps the fast pairs (more than β_fast turns in L), divides the slow ones (fewer than β_slow turns) by "
        "s and ramps in between; its attention factor 0.1·ln(s) + 1 sharpens attention. It needs little "
        "fine-tuning (Peng et al. 2023)."
    ),
    "llama3": N_(
        "Llama 3.1's scaling keeps the wavelengths shorter than L/high_freq_factor, divides those longer than "
        "L/low_freq_factor by s and blends the ones between. Llama 3.1's own config.json carries it (factor 8 from "
        "8,192 tokens; Meta's reference code says its values came from a grid search); on another model it changes "
        "frequencies the model was not trained on."
    ),
    "longrope": N_(
        "LongRoPE divides each pair by its own searched factor (the long list past L, the short list within). "
        "The plan reuses the model's own lists and changes only the factor, so its attention factor."
    ),
    "base": N_(
        "A larger base with no scaling block slows every pair but the first (Xiong et al. 2023; Llama 3's 500000): "
        "from the larger of Men et al.'s smallest base for T and the share rule, the first base whose B(m) >= 0 the "
        "plan checked at every m < T. The model must be fine-tuned at the new base."
    ),
}
"""Two or three sentences on what each method changes."""

RULE_LABELS = {
    "ntk": N_("NTK-aware base b·s^(d/(d−2))"),
    "share": N_("Share rule b^(ln(T/2π)/ln(L/2π))"),
    "dynamic": N_("Dynamic NTK base at T"),
    "men": N_("Men et al.: smallest base with B(m) >= 0 up to T"),
    "liu": N_("Liu et al.: base whose critical pair reaches T"),
    "liu_reach": N_("Liu et al.: context the model's own base reaches"),
}
"""The base rules (``Plan.rules``), named with their formula."""


def finding_text(finding: Finding) -> tuple[str, str]:
    """A finding's (reason, fix) in the reader's language, with its values; the core's English for a check this
    module does not know yet."""
    if finding.code not in CHECK_TEXTS:
        return finding.reason, finding.fix
    values = dict(finding.values)
    for key in ("smallest", "checked"):
        words = VALUE_TEXTS.get(values.get(key))
        if words is not None:
            values[key] = _(words)
    if "alternatives" in values:
        values["alternatives"] = _(OR).join(str(values["alternatives"]).split(" or "))
    reason, fix = CHECK_TEXTS[finding.code]
    return _(reason).format(**values), _(fix).format(**values)


def sentence(text: str) -> str:
    """``text`` with its first letter capitalised, unless its first word already mixes cases (vLLM, SGLang)."""
    first = text.split(" ", 1)[0]
    return text if first != first.lower() else text[:1].upper() + text[1:]
