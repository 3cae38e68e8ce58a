"""What each context-extension method sets, to take a model pre-trained on L tokens to a target of T tokens.

One registry, :data:`PLAN_METHODS`: every planner has the signature ``(model, original, target, factor) ->
Settings`` and returns the HF ``rope_scaling`` block (None for a plain base change), the base and the
``max_position_embeddings`` a config.json needs. The factor s defaults to T / L (the caller passes it).

``max_position_embeddings`` is T for every method but dynamic NTK: HF's dynamic type takes
max_position_embeddings as the original length, so raising it to T would keep the original frequencies up to T.

Ref: HF transformers ``modeling_rope_utils.py`` (v5), the ``_compute_*_parameters`` functions and
``standardize_rope_params``; Chen et al. 2023 (linear); emozilla 2023 (dynamic NTK); Peng et al. 2023 (YaRN);
Meta's Llama 3.1 (llama3); Ding et al. 2024 (LongRoPE); Xiong et al. 2023, arXiv 2309.16039 (a larger base).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from posenc_core.models.preset_type import ModelPreset
from posenc_core.plan.rules import checked_base, men_base, round_up, share_base


@dataclass(frozen=True)
class Settings:
    """What one method puts in a config.json: its scaling block, the base, and max_position_embeddings."""

    scaling: Mapping[str, Any] | None  # HF rope_scaling (with "rope_type"); None: no scaling block
    rope_theta: float
    max_position_embeddings: int


Planner = Callable[[ModelPreset, int, int, float], Settings]


def _block(model: ModelPreset, rope_type: str, **keys: Any) -> dict[str, Any]:
    """The scaling block, with M-RoPE's sections kept (a Qwen2-VL config must still name them)."""
    block = {"rope_type": rope_type, **keys}
    if model.mrope_section is not None:
        block["mrope_section"] = list(model.mrope_section)
    return block


def plan_linear(model: ModelPreset, original: int, target: int, factor: float) -> Settings:
    """Position interpolation: every frequency divided by s. Ref: Chen et al. 2023, arXiv 2306.15595."""
    return Settings(_block(model, "linear", factor=factor), model.rope_theta, target)


def plan_dynamic(model: ModelPreset, original: int, target: int, factor: float) -> Settings:
    """Dynamic NTK: the base grows with the sequence past L = max_position_embeddings, which stays L."""
    return Settings(_block(model, "dynamic", factor=factor), model.rope_theta, original)


def plan_yarn(model: ModelPreset, original: int, target: int, factor: float) -> Settings:
    """YaRN with its paper's β_fast 32 and β_slow 1; a model's own YaRN keys (DeepSeek's mscale) are kept.
    Ref: Peng et al. 2023, arXiv 2309.00071."""
    own = dict(model.rope_scaling or {}) if (model.rope_scaling or {}).get("rope_type") == "yarn" else {}
    kept = {key: own[key] for key in ("beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate") if key in own}
    return Settings(
        _block(model, "yarn", factor=factor, original_max_position_embeddings=original, **kept),
        model.rope_theta,
        target,
    )


def plan_llama3(model: ModelPreset, original: int, target: int, factor: float) -> Settings:
    """Llama 3.1's blend, with the model's own low/high_freq_factor if it has them, else Meta's 1 and 4."""
    own = dict(model.rope_scaling or {})
    low, high = own.get("low_freq_factor", 1.0), own.get("high_freq_factor", 4.0)
    block = _block(
        model,
        "llama3",
        factor=factor,
        original_max_position_embeddings=original,
        low_freq_factor=low,
        high_freq_factor=high,
    )
    return Settings(block, model.rope_theta, target)


def has_longrope_lists(model: ModelPreset) -> bool:
    """Whether ``model`` carries LongRoPE's searched lists (short_factor and long_factor), the only ones to reuse."""
    own = model.rope_scaling or {}
    return bool(own.get("short_factor") and own.get("long_factor"))


def check_longrope_lists(model: ModelPreset) -> None:
    """ValueError, saying why and what to choose, for a model without LongRoPE's searched lists."""
    if not has_longrope_lists(model):
        raise ValueError(
            f"method longrope needs the model's own searched short_factor and long_factor lists, and "
            f"{model.name} has none (they come from a search on the model, Ding et al. 2024): choose yarn or llama3"
        )


def plan_longrope(model: ModelPreset, original: int, target: int, factor: float) -> Settings:
    """LongRoPE with the model's own searched lists (Phi-3): only its factor, so its attention factor, moves.
    A model without lists has nothing to reuse: the lists come from a search on the model (Ding et al. 2024)."""
    check_longrope_lists(model)
    own = dict(model.rope_scaling or {})
    block = _block(
        model,
        "longrope",
        factor=factor,
        original_max_position_embeddings=original,
        short_factor=list(own["short_factor"]),
        long_factor=list(own["long_factor"]),
    )
    return Settings(block, model.rope_theta, target)


def plan_base(model: ModelPreset, original: int, target: int, factor: float) -> Settings:
    """A larger base and no scaling block (Xiong et al. 2023; Llama 3's 500000): from the larger of Men et al.'s
    smallest base for T and the share rule (never below the model's own), the first base, rounded up to three
    significant digits, whose B(m) >= 0 was checked at every m < T (``rules.checked_base``: B is not monotone in
    the base); where none is found, the share rule's base (the plan's bound check then warns)."""
    rotary_dim = model.rotary_dim
    wanted = max(share_base(model.rope_theta, original, target), model.rope_theta)
    smallest = men_base(target, rotary_dim)
    if smallest is not None:
        wanted = max(wanted, smallest)
    checked = checked_base(rotary_dim, wanted, target)
    base = checked if checked is not None else max(model.rope_theta, round_up(wanted))
    return Settings(_block(model, "default") if model.mrope_section else None, base, target)


PLAN_METHODS: dict[str, Planner] = {
    "linear": plan_linear,
    "dynamic": plan_dynamic,
    "yarn": plan_yarn,
    "llama3": plan_llama3,
    "longrope": plan_longrope,
    "base": plan_base,
}
"""Every method a plan can use, by the name ``posenc plan --method`` takes (a ``rope_type``, or ``base``)."""
