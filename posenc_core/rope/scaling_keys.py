"""The keys of an HF ``rope_scaling`` / ``rope_parameters`` dict, per RoPE scaling type, in one typed list.

Every reader of such a dict (``rope.scaling.inv_freq`` through ``rope._params``, ``models.hf_config.from_hf_config``)
takes each key's kind, bounds and fallback from here, and the app can list a type's keys with their meaning.
``required``: HF's validator requires the key and has no constant fallback for it; ``inv_freq`` raises a
``ValueError`` naming a missing one (given ``max_position_embeddings``, a missing
``original_max_position_embeddings`` falls back to it, and a null YaRN / LongRoPE ``factor`` to their ratio, as
HF v5 does). ``optional``: absent or null means ``default``, HF's fallback (None: derived, see the type's
summary). ``rope_theta`` and ``partial_rotary_factor`` (v5 ``rope_parameters``) are optional for every type:
``inv_freq`` takes them as arguments and checks that the dict agrees.

Ref: HF transformers ``modeling_rope_utils.py`` (``RopeParameters``, ``_validate_*_rope_parameters``, the
``_compute_*_parameters`` functions, v5 semantics).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

from posenc_core._checks import check_choice, check_float, check_int
from posenc_core.rope.method_facts import MethodFacts

KINDS = ("float", "int", "bool", "floats")


@dataclass(frozen=True)
class ScalingKey:
    """One key of a scaling dict: its name, kind, a one-sentence meaning, HF's fallback and its bounds."""

    name: str
    kind: str  # "float" | "int" | "bool" | "floats" (a list of floats, one per frequency pair)
    meaning: str  # one plain sentence, for people
    default: Any = None  # HF's value when the key is absent or null; None = no constant fallback
    greater_than: float | None = None  # float / floats (each element): value must be > this
    minimum: float | None = None  # float / int: value must be >= this
    maximum: float | None = None  # float: value must be <= this

    def check(self, value: Any, label: str | None = None) -> Any:
        """``value`` validated for this key (a float, int, bool or list of floats); ValueError naming ``label``."""
        label = label or self.name
        if self.kind == "float":
            return check_float(label, value, **self.bounds())
        if self.kind == "int":
            return check_int(label, value, minimum=None if self.minimum is None else int(self.minimum))
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"{label} must be true or false (got {value!r})")
            return value
        if isinstance(value, str | bytes) or not isinstance(value, list | tuple) or not value:
            raise ValueError(f"{label} must be a non-empty list of numbers (got {value!r})")
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value):
            raise ValueError(f"{label} must be a non-empty list of numbers (got {value!r})")
        return [check_float(f"{label}[{i}]", v, **self.bounds()) for i, v in enumerate(value)]

    def bounds(self) -> dict[str, float]:
        """The bounds as ``_checks.check_float`` keyword arguments."""
        names = ("greater_than", "minimum", "maximum")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}


@dataclass(frozen=True)
class RopeTypeKeys:
    """The keys one RoPE scaling type reads: required ones first, then optional ones (with HF's fallbacks)."""

    rope_type: str
    required: tuple[ScalingKey, ...]
    optional: tuple[ScalingKey, ...]
    summary: str  # one sentence: what the type does with its keys
    facts: MethodFacts  # what the method is, for people: the row of the context page's methods table


def _float(name: str, meaning: str, default: float | None = None, **bounds: float) -> ScalingKey:
    return ScalingKey(name, "float", meaning, default, **(bounds or {"greater_than": 0.0}))


SCALING_KEYS: dict[str, ScalingKey] = {
    key.name: key
    for key in (
        _float(
            "factor",
            "how many times longer than the original context the model should read (the context-extension "
            "ratio every scaling type is built around)",
        ),
        ScalingKey(
            "original_max_position_embeddings",
            "int",
            "the context length the model was pre-trained with, against which the scaling is measured "
            "(HF fills it from max_position_embeddings when absent)",
            minimum=1,
        ),
        _float(
            "attention_factor",
            "multiplier on cos and sin, so the attention logits grow by its square; absent, it is derived from "
            "the factor",
        ),
        _float(
            "beta_fast",
            "pairs that turn more than beta_fast times within the original context keep their frequency (YaRN)",
            32.0,
        ),
        _float(
            "beta_slow",
            "pairs that turn fewer than beta_slow times within the original context are divided by the full "
            "factor (YaRN)",
            1.0,
        ),
        _float(
            "mscale",
            "DeepSeek's weight on 0.1·ln(factor) in the numerator of the derived attention factor, used only "
            "together with mscale_all_dim",
            minimum=0.0,
        ),
        _float(
            "mscale_all_dim",
            "DeepSeek's weight on 0.1·ln(factor) in the denominator of the derived attention factor, used only "
            "together with mscale",
            minimum=0.0,
        ),
        ScalingKey(
            "truncate",
            "bool",
            "whether YaRN's correction range is rounded outward to whole pair indices before the ramp",
            True,
        ),
        ScalingKey(
            "short_factor",
            "floats",
            "per-pair divisors of the frequencies while the sequence fits in the original context (LongRoPE), "
            "one per pair",
            greater_than=0.0,
        ),
        ScalingKey(
            "long_factor",
            "floats",
            "per-pair divisors of the frequencies once the sequence is longer than the original context "
            "(LongRoPE), one per pair",
            greater_than=0.0,
        ),
        _float(
            "low_freq_factor",
            "wavelengths longer than original_max_position_embeddings / low_freq_factor are divided by the full "
            "factor (Llama 3.1)",
        ),
        _float(
            "high_freq_factor",
            "wavelengths shorter than original_max_position_embeddings / high_freq_factor keep their frequency, "
            "and those between the two thresholds are blended (Llama 3.1)",
        ),
        _float(
            "rope_theta",
            "the base θ of the default frequencies θ^(-2i/d), kept here by v5 rope_parameters; it must agree "
            "with the base argument",
            10000.0,
            greater_than=1.0,
        ),
        _float(
            "partial_rotary_factor",
            "the fraction of each head's channels that are rotated; it must agree with the partial_rotary_factor "
            "argument",
            1.0,
            greater_than=0.0,
            maximum=1.0,
        ),
    )
}
"""Every key any scaling type reads, by name, in display order (``rope_type`` itself is not one)."""

_MODEL_KEYS = (SCALING_KEYS["rope_theta"], SCALING_KEYS["partial_rotary_factor"])


def _type(
    rope_type: str, required: tuple[str, ...], optional: tuple[str, ...], summary: str, facts: MethodFacts
) -> RopeTypeKeys:
    keys = tuple(SCALING_KEYS[name] for name in required), tuple(SCALING_KEYS[name] for name in optional)
    return RopeTypeKeys(rope_type, keys[0], keys[1] + _MODEL_KEYS, summary, facts)


ROPE_TYPE_KEYS: dict[str, RopeTypeKeys] = {
    keys.rope_type: keys
    for keys in (
        _type(
            "default",
            (),
            (),
            "plain RoPE: the frequencies θ^(-2i/d), no scaling keys",
            MethodFacts(
                "RoPE (no scaling)",
                "nothing: θ_i = base^(−2i/d)",
                "no (the model's own context only)",
                "1",
                "Llama 2, Mistral 7B, Qwen2 within 32k: every RoPE model at its trained length",
            ),
        ),
        _type(
            "linear",
            ("factor",),
            (),
            "position interpolation: every frequency divided by the factor",
            MethodFacts(
                "Linear (position interpolation)",
                "every θ_i divided by s: positions squeezed s times, fast pairs too",
                "yes, briefly (about 1,000 steps in Chen et al. 2023)",
                "1",
                "Gemma 3's global layers (s = 8), Vicuna v1.5 16k, LongChat",
            ),
        ),
        _type(
            "ntk",
            ("factor",),
            (),
            "static NTK-aware: the base multiplied by factor^(d/(d-2))",
            MethodFacts(
                "NTK-aware (static)",
                "the base, raised to base·s^(d/(d−2)): the slowest pair divided by s, fast pairs almost kept",
                "no (proposed for use without; better with)",
                "1",
                "community Llama extensions (2023); not a rope_type of HF transformers, which has dynamic NTK only",
            ),
        ),
        _type(
            "dynamic",
            ("factor",),
            (),
            "dynamic NTK: the base grows with the sequence length past max_position_embeddings (an argument)",
            MethodFacts(
                "Dynamic NTK",
                "the base, grown with the sequence length once it passes L (unchanged within L)",
                "no (designed for use without)",
                "1",
                "Qwen-7B v1 (use_dynamic_ntk), Llama models loaded with rope_type dynamic",
            ),
        ),
        _type(
            "yarn",
            ("factor", "original_max_position_embeddings"),
            ("attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate"),
            "YaRN: fast pairs kept, slow pairs divided by the factor, a ramp between; given max_position_embeddings, "
            "a missing original length falls back to it and a null factor to their ratio (v5)",
            MethodFacts(
                "YaRN",
                "slow pairs divided by s, fast pairs kept, a ramp between; cos and sin scaled up (DeepSeek: mscale)",
                "yes, briefly (400 steps, about 0.1% of pre-training, in Peng et al. 2023); works less well without",
                "0.1·ln(s) + 1",
                "Qwen2.5 at 128k (s = 4), DeepSeek-V2/V3 (s = 40), Nous Yarn-Llama-2",
            ),
        ),
        _type(
            "longrope",
            ("short_factor", "long_factor", "original_max_position_embeddings"),
            ("factor", "attention_factor"),
            "LongRoPE: per-pair divisors, short or long by the sequence length; the factor (default "
            "max_position_embeddings / original_max_position_embeddings) only sets the derived attention factor",
            MethodFacts(
                "LongRoPE",
                "each pair divided by its own searched factor, a short list within L and a long one past it",
                "yes: the factors are searched per model, then the model is fine-tuned with them",
                "√(1 + ln(s) / ln(L))",
                "Phi-3 mini/medium 128k, Phi-3.5",
            ),
        ),
        _type(
            "llama3",
            ("factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"),
            (),
            "Llama 3.1: short wavelengths kept, long ones divided by the factor, blended between",
            MethodFacts(
                "Llama 3.1",
                "long wavelengths (above L/low_freq_factor) divided by s, short ones kept, blended between",
                "yes: part of Llama 3.1's long-context continued pre-training",
                "1",
                "Llama 3.1 and 3.3 (s = 8), Llama 3.2 1B/3B (s = 32)",
            ),
        ),
    )
}
"""The keys of each ``rope.scaling.ROPE_SCALING_FUNCTIONS`` type (same keys, same order)."""


def keys_of(rope_type: str) -> tuple[str, ...]:
    """The key names ``rope_type`` reads: required ones, then optional ones."""
    keys = ROPE_TYPE_KEYS[check_choice("rope_type", rope_type, ROPE_TYPE_KEYS)]
    return tuple(key.name for key in keys.required + keys.optional)


def key(name: str) -> ScalingKey:
    """The :class:`ScalingKey` called ``name`` (ValueError listing the known names otherwise)."""
    return SCALING_KEYS[check_choice("name", name, SCALING_KEYS)]


ALL_SCALING_KEYS: tuple[str, ...] = tuple(
    name for name in SCALING_KEYS if any(name in keys_of(rope_type) for rope_type in ROPE_TYPE_KEYS)
)
"""Every key name some type reads, once each, in ``SCALING_KEYS`` order ("rope_type" is not one)."""
