"""from_hf_config on models whose layers differ: Llama 4 (NoPE layers, temperature) and Gemma 3 (local and
global RoPE bases), read as HF transformers' Llama4TextConfig / Gemma3TextConfig read the same dicts."""

from __future__ import annotations

import pytest

from posenc_core.models.hf_config import from_hf_config
from posenc_core.models.presets import PRESETS
from tests.core.hf_config_helpers import load, read

LAYER_FIELDS = ("n_layers", "rope_layers", "layer_types", "local_rope_theta", "sliding_window", "nope_floor_scale",
                "nope_attn_scale", "rope_theta", "rope_scaling", "rope_layout", "head_dim", "n_kv_heads")  # fmt: skip


@pytest.mark.parametrize(
    ("fixture", "key"), [("llama-4-scout-17b-16e.json", "llama-4-scout"), ("gemma-3-27b-it.json", "gemma-3-27b")]
)
def test_the_published_configs_read_as_the_presets(fixture, key):
    preset = read(fixture).preset
    for name in LAYER_FIELDS:
        assert getattr(preset, name) == getattr(PRESETS[key], name), name
    assert preset.layer_rope_bases() == PRESETS[key].layer_rope_bases()


def test_scout_layers_equal_hf_llama4_text_config():
    transformers = pytest.importorskip("transformers")
    text = load("llama-4-scout-17b-16e.json")["text_config"]
    config = transformers.Llama4TextConfig(**{k: v for k, v in text.items() if k != "attn_temperature_tuning"})
    preset = read("llama-4-scout-17b-16e.json").preset
    assert list(preset.rope_layers) == [bool(flag) for flag in config.no_rope_layers]
    assert list(preset.layer_types) == list(config.layer_types)
    assert (preset.nope_floor_scale, preset.nope_attn_scale) == (config.floor_scale, config.attn_scale)


def test_llama4_without_a_list_takes_the_interval_and_tuning_can_be_off():
    transformers = pytest.importorskip("transformers")
    config = {"model_type": "llama4_text", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 10,
              "no_rope_layer_interval": 3, "attn_temperature_tuning": False}  # fmt: skip
    preset = from_hf_config(config).preset
    hf = transformers.Llama4TextConfig(**{k: v for k, v in config.items() if k != "model_type"})
    assert list(preset.rope_layers) == [bool(flag) for flag in hf.no_rope_layers]
    assert preset.nope_floor_scale is None and preset.nope_attn_scale is None
    assert preset.rope_theta == 5e5 and preset.rope_layout == "interleaved"  # Llama 4's default base and pairs


def test_gemma3_layers_and_bases_equal_hf_gemma3_text_config():
    transformers = pytest.importorskip("transformers")
    text = load("gemma-3-27b-it.json")["text_config"]
    config = transformers.Gemma3TextConfig(**{k: v for k, v in text.items() if k != "model_type"})
    preset = read("gemma-3-27b-it.json").preset
    assert list(preset.layer_types) == list(config.layer_types)
    assert preset.rope_theta == config.rope_parameters["full_attention"]["rope_theta"] == 1e6
    assert preset.local_rope_theta == config.rope_parameters["sliding_attention"]["rope_theta"] == 1e4
    assert preset.max_position_embeddings == config.max_position_embeddings


def test_a_v5_gemma3_config_reads_the_sliding_block_as_the_local_base():
    """HF's own v5 dict: rope_parameters per layer type (linear 8 on full attention, base 20000 on sliding)."""
    transformers = pytest.importorskip("transformers")
    config = transformers.Gemma3TextConfig(
        hidden_size=256, num_attention_heads=4, num_key_value_heads=2, head_dim=64, num_hidden_layers=12,
        rope_scaling={"rope_type": "linear", "factor": 8.0}, rope_local_base_freq=20000.0, sliding_window=512,
    )  # fmt: skip
    reading = from_hf_config(config.to_dict())
    assert reading.preset.local_rope_theta == 20000.0 and reading.preset.rope_theta == 1e6
    assert reading.preset.rope_scaling == {"rope_type": "linear", "factor": 8.0}
    assert list(reading.preset.layer_types) == list(config.layer_types)
    assert not any("one block per layer type" in line for line in reading.unread)


def test_gemma3_sliding_window_pattern_sets_the_global_layers():
    config = {"model_type": "gemma3_text", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 9,
              "sliding_window_pattern": 3, "rope_local_base_freq": 10000.0, "rope_theta": 1e6}  # fmt: skip
    preset = from_hf_config(config).preset
    assert [i for i, kind in enumerate(preset.layer_types) if kind == "full_attention"] == [2, 5, 8]
    assert preset.layer_rope_bases() == [1e4, 1e4, 1e6] * 3


@pytest.mark.parametrize(
    ("config", "name"),
    [
        ({"model_type": "llama4_text", "num_hidden_layers": 4, "no_rope_layers": [1, 0]}, "no_rope_layers"),
        ({"model_type": "llama4_text", "num_hidden_layers": 2, "no_rope_layers": [1, 5]}, "no_rope_layers"),
        ({"model_type": "llama4_text", "num_hidden_layers": 2, "floor_scale": 0}, "floor_scale"),
        ({"model_type": "gemma3_text", "num_hidden_layers": 2, "layer_types": ["full_attention"]}, "layer_types"),
        ({"model_type": "gemma3_text", "num_hidden_layers": 1, "layer_types": ["local"]}, "layer_types"),
        ({"model_type": "gemma3_text", "num_hidden_layers": 2, "rope_local_base_freq": -1}, "rope_local_base_freq"),
    ],
)
def test_bad_layer_keys_name_themselves(config, name):
    with pytest.raises(ValueError, match=name):
        from_hf_config({"hidden_size": 64, "num_attention_heads": 4, **config})


def test_a_llama4_config_without_layers_says_so():
    reading = from_hf_config({"model_type": "llama4_text", "hidden_size": 64, "num_attention_heads": 4})
    assert reading.preset.n_layers is None
    assert any("no num_hidden_layers" in line for line in reading.unread)
