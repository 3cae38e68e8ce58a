"""Shared by the posenc_core.plan tests: plans computed once per (model, target, method), and a config.json with a
plan's keys pasted in."""

from __future__ import annotations

import functools
import json
from typing import Any

from posenc_core.models.presets import get_preset
from posenc_core.plan import Plan, plan_extension

ROPE_KEYS = ("rope_scaling", "rope_parameters", "rope_theta", "max_position_embeddings")


@functools.cache
def plan_for(preset: str, target: int, method: str = "yarn", **options: Any) -> Plan:
    return plan_extension(get_preset(preset), target, method, **options)


def pasted(config: dict[str, Any], plan: Plan, form: str = "config.json") -> dict[str, Any]:
    """``config`` with its RoPE keys replaced by the plan's paste block ``form`` (transformers 4 or 5)."""
    keys = json.loads(plan.paste[form])
    kept = {key: value for key, value in config.items() if key not in ROPE_KEYS}
    if isinstance(config.get("text_config"), dict):  # a multimodal config: the language model's keys live here
        kept["text_config"] = {k: v for k, v in config["text_config"].items() if k not in ROPE_KEYS} | keys
        return kept
    return kept | keys
