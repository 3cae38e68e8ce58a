"""Shared by the posenc_core.models.hf_config tests: the config.json fixtures folder, a Llama config, ``read`` and
``load``."""

from __future__ import annotations

import json
from pathlib import Path

from posenc_core.models.hf_config import ConfigReading, from_hf_config

CONFIGS = Path(__file__).parents[1] / "fixtures" / "configs"
LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 5e5}


def read(name: str) -> ConfigReading:
    return from_hf_config((CONFIGS / name).read_text(encoding="utf-8"))


def load(name: str) -> dict:
    return json.loads((CONFIGS / name).read_text(encoding="utf-8"))
