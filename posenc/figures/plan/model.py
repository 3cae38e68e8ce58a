"""A plan from parameter values: the model a preset's parameters describe (``drawing.preset_params``), and its
plan (``posenc_core.plan.plan_extension``), cached.

The Plan page plans the sidebar's model itself; its figure, which must also draw from ``posenc export`` and the
notebook API, rebuilds the model from the parameters that model sets (:func:`figure_values`). Only what moves the
frequencies travels: the rotary dim and base, the model's own scaling block (its LongRoPE lists, Llama 3.1's and
YaRN's keys) and the original length the page's plan used.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from posenc.drawing.params import PARAMS
from posenc.drawing.preset_params import params_from_preset
from posenc.figures.context.variants import scaling
from posenc_core.models.preset_type import ModelPreset
from posenc_core.plan import Plan, plan_extension

MODEL_PARAMS = (
    "head_dim",
    "base",
    "partial_rotary_factor",
    "rope_type",
    "factor",
    "original_max_position_embeddings",
    "beta_fast",
    "beta_slow",
    "truncate",
    "low_freq_factor",
    "high_freq_factor",
    "short_factor",
    "long_factor",
)
"""The parameters that describe a model's frequencies (a preset sets them; their defaults describe a plain one)."""
PLAN_PARAMS = ("target", "method", "original")
FIGURE_PARAMS = (*MODEL_PARAMS, *PLAN_PARAMS)
CUSTOM_NAME = "custom RoPE model"
CUSTOM_ORIGINAL = 4096  # a custom model's pre-training length (the page's Original length control changes it)


def model_from_params(p: Mapping[str, Any], name: str = CUSTOM_NAME) -> ModelPreset:
    """The RoPE model ``p`` describes: head_dim (rotated before partial_rotary_factor), base, the scaling block of
    its rope_type with its keys, and max_position_embeddings = original_max_position_embeddings."""
    head_dim = int(p["head_dim"])
    own = None
    if p["rope_type"] != "default":
        own = scaling(p["rope_type"], {**p, "seq_len": p["original_max_position_embeddings"]}, head_dim // 2)
        if p["rope_type"] == "longrope" and not (p["short_factor"] and p["long_factor"]):
            own = None  # a LongRoPE model without its own lists: nothing of it can be planned
    return ModelPreset(
        name=name,
        scheme="rope",
        source="parameters",
        hidden_size=head_dim,
        n_heads=1,
        head_dim=head_dim,
        max_position_embeddings=int(p["original_max_position_embeddings"]),
        rope_theta=float(p["base"]),
        partial_rotary_factor=float(p["partial_rotary_factor"]),
        rope_scaling=own,
    )


def custom_model(values: Mapping[str, Any]) -> ModelPreset:
    """A plain RoPE model (no scaling block, L = :data:`CUSTOM_ORIGINAL`) of the head_dim, base and
    partial_rotary_factor in ``values`` (the registry's defaults for those missing)."""
    defaults = {name: PARAMS[name].default for name in MODEL_PARAMS}
    plain = {"rope_type": "default", "original_max_position_embeddings": CUSTOM_ORIGINAL}
    return model_from_params({**defaults, **values, **plain})


def hub_id(model: ModelPreset) -> str | None:
    """The Hugging Face repository a model's source names first ("meta-llama/Llama-3.1-8B config.json on the
    Hugging Face hub" -> "meta-llama/Llama-3.1-8B"), for the serving commands; None when it names none."""
    first = model.source.split(" ", 1)[0]
    return first if re.fullmatch(r"[\w.-]+/[\w.-]+", first) else None


def figure_values(model: ModelPreset, target: int, method: str, original: int) -> dict[str, Any]:
    """The figure's parameters for ``model``'s plan to ``target`` with ``method`` from ``original`` tokens: the
    values the model sets, the registry's defaults for the rest."""
    given = {name: value for name, value in params_from_preset(model).items() if name in MODEL_PARAMS}
    defaults = {name: PARAMS[name].default for name in MODEL_PARAMS}
    return {**defaults, **given, "target": int(target), "method": method, "original": int(original)}


def plan_for(p: Mapping[str, Any]) -> Plan:
    """The plan of the model ``p`` describes (:func:`model_from_params`), to p["target"] with p["method"], from
    p["original"] tokens (0: the model's own); ValueError from the core for an impossible one.

    Kept per model and plan parameters, not per parameter value: a parameter the model does not use (Llama 3.1's
    low_freq_factor on a YaRN model) moves nothing, so a Sweep over it plans once, not once a frame."""
    model = model_from_params(p)
    key = {"model": dataclasses.asdict(model), **{name: p[name] for name in PLAN_PARAMS}}
    return _plan(json.dumps(key, sort_keys=True))


@functools.lru_cache(maxsize=16)
def _plan(key: str) -> Plan:
    kept = json.loads(key)
    fields = {name: tuple(value) if isinstance(value, list) else value for name, value in kept["model"].items()}
    model = ModelPreset(**fields)  # the model plan_for built, back from its key (JSON's lists were its tuples)
    return plan_extension(model, kept["target"], kept["method"], original=kept["original"] or None)
