"""posenc_core.plan.shape: each preset's config.json shape is the one its fixture file has; merge_config replaces
keys as a person edits the file (inside text_config where the block nests there)."""

from __future__ import annotations

import json

import pytest

from posenc_core.models.presets import PRESETS
from posenc_core.plan import merge_config, shape_of
from posenc_core.plan.shape import PRESET_SHAPES, TEXT_CONFIG, ConfigShape, shape_for
from tests.core.hf_config_helpers import CONFIGS
from tests.core.models.test_hf_config import FIXTURE_PRESETS

PUBLISHED = {  # the fixture each preset's numbers come from (the published file, not a re-saved form)
    key: name
    for name, key in FIXTURE_PRESETS.items()
    if key in PRESET_SHAPES and name not in ("llama-3.1-8b-v5.json", "qwen2-vl-7b-instruct-text-config.json")
}


def test_every_rope_preset_has_a_shape_and_a_fixture():
    assert set(PRESET_SHAPES) == {key for key, preset in PRESETS.items() if preset.scheme in ("rope", "mrope")}
    assert set(PUBLISHED) == set(PRESET_SHAPES)


@pytest.mark.parametrize(("key", "name"), sorted(PUBLISHED.items()))
def test_a_preset_s_shape_is_its_config_json_s(key, name):
    assert shape_of(json.loads((CONFIGS / name).read_text())) == PRESET_SHAPES[key] == shape_for(PRESETS[key])


def test_the_re_saved_forms_are_read_as_they_are():
    v5 = shape_of(json.loads((CONFIGS / "llama-3.1-8b-v5.json").read_text()))
    assert v5.rope_block == "rope_parameters" and v5.nest is None
    nested = shape_of(json.loads((CONFIGS / "qwen2-vl-7b-instruct-text-config.json").read_text()))
    assert nested.nest == TEXT_CONFIG and nested.runtime_nest == TEXT_CONFIG
    assert shape_for(PRESETS["llama-2-7b"].__class__(**{**vars(PRESETS["llama-2-7b"]), "name": "x"})) == ConfigShape()


def test_merge_replaces_top_level_keys_and_keys_inside_text_config():
    config = {
        "a": 1,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0},
        "text_config": {"h": 2, "rope_theta": 1.0},
    }
    merged = merge_config(config, {"rope_scaling": None, "text_config": {"rope_theta": 5.0}})
    assert merged == {"a": 1, "rope_scaling": None, "text_config": {"h": 2, "rope_theta": 5.0}}
    assert config["text_config"]["rope_theta"] == 1.0  # the model's own dict is left as it was
