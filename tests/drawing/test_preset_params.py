"""drawing.preset_params.same_positions_as: a model's own config.json is recognised as the named preset with the same
parameters, and a config that differs in one of them is not."""

import json

import pytest

from posenc.drawing.preset_params import same_positions_as
from posenc_core.models.hf_config import from_hf_config
from posenc_core.models.presets import PRESETS
from tests.ui.test_config_reader import CONFIGS

KNOWN = {
    "llama-3.1-8b.json": "llama-3.1-8b",
    "qwen2.5-7b-instruct-yarn.json": "qwen2.5-7b-128k-yarn",
    "phi-3-mini-128k-instruct.json": "phi-3-mini-128k",
    "t5-base.json": "t5-base",
}


@pytest.mark.parametrize("file", KNOWN)
def test_a_models_own_config_is_recognised_as_its_preset(file):
    reading = from_hf_config((CONFIGS / file).read_text())
    assert same_positions_as(reading.preset) is PRESETS[KNOWN[file]]


def test_a_config_differing_in_one_parameter_is_no_preset():
    config = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    config["rope_scaling"]["factor"] = 4.0
    assert same_positions_as(from_hf_config(config).preset) is None


@pytest.mark.parametrize("key", PRESETS)
def test_a_preset_is_never_named_as_like_itself(key):
    assert same_positions_as(PRESETS[key]) is None  # no two presets share every parameter
