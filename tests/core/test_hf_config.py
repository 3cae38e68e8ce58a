"""from_hf_config: real config.json files (tests/fixtures/configs) read back into the matching presets, the
key spellings of each family, the sentences about what was not read, and malformed input.

Fixture provenance (trimmed copies of the published config.json files, found in public code):
- phi-3-mini-128k-instruct: verbatim, dotnet/machinelearning src/Microsoft.ML.GenAI.Phi/Resource/Config/
  (April 2024 revision, "type": "su"); phi-2: same folder.
- gemma-2-9b-it, llama-3-8b-instruct: kevinstephano/thunder_model_blocks config strings.
- llama-2-7b, llama-3.1-8b, qwen2.5-7b-instruct, deepseek-v3 (as shipped for DeepSeek-R1), deepseek-v2-lite,
  gpt-neox-20b, gpt-j-6b, mpt-7b-instruct, qwen2-vl-7b-instruct: copies in benchmark/test code.
- bloom: the PE keys only; t5-base: the original key set (no relative_attention_max_distance).
- mistral-7b-v0.1: rebuilt from docs/REFERENCE_NUMBERS.md §8 (no stored copy found).
- qwen2.5-7b-instruct-yarn: the Instruct config plus the model card's 128k rope_scaling block.
- llama-3.1-8b-v5, qwen2-vl-7b-instruct-text-config: the same models as transformers v5 / newer
  transformers save them (rope_parameters; text_config nesting), built by hand.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from posenc_core.hf_config import ConfigReading, from_hf_config
from posenc_core.presets import PRESETS
from posenc_core.rope_scaling_keys import SCALING_KEYS

CONFIGS = Path(__file__).parents[1] / "fixtures" / "configs"
FIXTURE_PRESETS = {
    "llama-2-7b.json": "llama-2-7b",
    "llama-3-8b-instruct.json": "llama-3-8b",
    "llama-3.1-8b.json": "llama-3.1-8b",
    "llama-3.1-8b-v5.json": "llama-3.1-8b",
    "mistral-7b-v0.1.json": "mistral-7b",
    "qwen2.5-7b-instruct.json": "qwen2.5-7b",
    "qwen2.5-7b-instruct-yarn.json": "qwen2.5-7b-128k-yarn",
    "gemma-2-9b-it.json": "gemma-2-9b",
    "phi-3-mini-128k-instruct.json": "phi-3-mini-128k",
    "phi-2.json": "phi-2",
    "deepseek-v3.json": "deepseek-v3",
    "deepseek-v2-lite.json": "deepseek-v2-lite",
    "gpt-neox-20b.json": "gpt-neox-20b",
    "gpt-j-6b.json": "gpt-j-6b",
    "bloom.json": "bloom-176b",
    "mpt-7b-instruct.json": "mpt-7b",
    "t5-base.json": "t5-base",
    "qwen2-vl-7b-instruct.json": "qwen2-vl-7b",
    "qwen2-vl-7b-instruct-text-config.json": "qwen2-vl-7b",
}
PE_FIELDS = (
    "scheme", "hidden_size", "n_heads", "n_kv_heads", "head_dim", "max_position_embeddings", "rope_theta",
    "partial_rotary_factor", "rope_head_dim", "rope_scaling", "rope_layout", "mrope_section", "alibi_bias_max",
    "t5_num_buckets", "t5_max_distance", "rotary_dim", "context_length",
)  # fmt: skip
LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 5e5}


def read(name: str) -> ConfigReading:
    return from_hf_config((CONFIGS / name).read_text(encoding="utf-8"))


def load(name: str) -> dict:
    return json.loads((CONFIGS / name).read_text(encoding="utf-8"))


def test_every_fixture_is_listed():
    assert sorted(path.name for path in CONFIGS.glob("*.json")) == sorted(FIXTURE_PRESETS)


@pytest.mark.parametrize(("fixture", "key"), FIXTURE_PRESETS.items())
def test_fixture_reproduces_the_preset(fixture, key):
    reading, preset = read(fixture), PRESETS[key]
    for name in PE_FIELDS:
        assert getattr(reading.preset, name) == getattr(preset, name), name


@pytest.mark.parametrize("form", ["dict", "str", "bytes", "bytes with BOM"])
def test_mapping_text_and_bytes_read_alike(form):
    text = (CONFIGS / "llama-3.1-8b.json").read_text(encoding="utf-8")
    config = {
        "dict": json.loads(text),
        "str": text,
        "bytes": text.encode(),
        "bytes with BOM": b"\xef\xbb\xbf" + text.encode(),
    }
    assert from_hf_config(config[form]) == read("llama-3.1-8b.json")


def test_gemma2_head_dim_is_read_not_derived():
    reading = read("gemma-2-9b-it.json")
    assert reading.preset.head_dim == 256 != 3584 // 16
    assert reading.read["head_dim"] == 256
    assert not any("no head_dim" in line for line in reading.unread)
    assert any("query_pre_attn_scalar 256" in line for line in reading.unread)


def test_gpt_neox_rotates_24_dims():
    reading = read("gpt-neox-20b.json")
    assert (reading.preset.head_dim, reading.preset.rotary_dim, reading.preset.rope_theta) == (96, 24, 1e4)
    assert reading.read["rotary_pct"] == 0.25 and reading.read["rotary_emb_base"] == 10000


def test_gpt_j_rotary_dim_64_of_256_interleaved():
    reading = read("gpt-j-6b.json")
    assert (reading.preset.head_dim, reading.preset.rotary_dim, reading.preset.rope_layout) == (256, 64, "interleaved")
    assert "no rope_theta: using the default 10000.0" in reading.unread
    assert "no head_dim: derived 4096/16 = 256" in reading.unread
    assert reading.read["n_embd"] == 4096 and reading.read["n_positions"] == 2048


@pytest.mark.parametrize(("head_dim", "rotary_dim"), [(96, 32), (22, 15), (44, 30)])  # 22 * (15/22) = 14.99..
def test_rotary_dim_survives_the_round_trip_through_a_factor(head_dim, rotary_dim):
    reading = from_hf_config({"n_embd": 2 * head_dim, "n_head": 2, "rotary_dim": rotary_dim, "model_type": "gptj"})
    assert reading.preset.rotary_dim == rotary_dim


def test_mpt_kv_heads_live_in_attn_config():
    config = {**load("mpt-7b-instruct.json"), "attn_config": {"alibi": True, "kv_n_heads": 8}}
    assert from_hf_config(config).preset.n_kv_heads == 8


def test_deepseek_qk_head_is_nope_plus_rope():
    reading = read("deepseek-v3.json")
    assert (reading.preset.head_dim, reading.preset.rope_head_dim, reading.preset.rotary_dim) == (192, 64, 64)
    saved_by_new_hf = {**load("deepseek-v3.json"), "head_dim": 64}  # DeepseekV3Config sets head_dim = rope dim
    reading = from_hf_config(saved_by_new_hf)
    assert reading.preset.head_dim == 192
    assert any("head_dim 64 is not the q/k head dim" in line for line in reading.unread)


def test_rope_interleave_key_wins_over_the_family_default():
    reading = from_hf_config({**load("deepseek-v3.json"), "rope_interleave": False})
    assert reading.preset.rope_layout == "half"


def test_phi3_su_is_longrope_and_the_top_level_original_length_wins():
    reading = read("phi-3-mini-128k-instruct.json")
    assert reading.preset.rope_scaling["rope_type"] == "longrope"
    assert reading.preset.rope_scaling["original_max_position_embeddings"] == 4096
    assert any("'su' is read as 'longrope'" in note for note in reading.preset.notes)
    config = load("phi-3-mini-128k-instruct.json")
    config["rope_scaling"]["original_max_position_embeddings"] = 8192
    reading = from_hf_config(config)
    assert reading.preset.rope_scaling["original_max_position_embeddings"] == 4096
    assert any("overridden by the top-level 4096" in line for line in reading.unread)


def test_longrope_lists_of_the_wrong_length_are_reported():
    config = load("phi-3-mini-128k-instruct.json")
    config["rope_scaling"]["long_factor"] = [1.0] * 32
    reading = from_hf_config(config)
    assert "rope_scaling.long_factor covers 32 frequencies; rotary dim 96 has 48" in reading.unread


def test_v5_rope_parameters_hold_the_base():
    reading = read("llama-3.1-8b-v5.json")
    assert reading.preset.rope_theta == 5e5 and "rope_parameters" in reading.read
    assert "rope_theta" not in reading.preset.rope_scaling


def test_v5_rope_parameters_per_layer_type_use_full_attention():
    block = {"full_attention": {"rope_type": "default", "rope_theta": 1e6},
             "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}  # fmt: skip
    reading = from_hf_config({**LLAMA, "rope_theta": None, "rope_parameters": block})
    assert reading.preset.rope_theta == 1e6 and reading.preset.rope_scaling is None
    assert any("one block per layer type: read 'full_attention'" in line for line in reading.unread)


def test_rope_parameters_win_over_rope_scaling():
    config = {**LLAMA, "rope_parameters": {"rope_type": "linear", "factor": 2.0}, "rope_scaling": {"type": "yarn"}}
    reading = from_hf_config(config)
    assert reading.preset.rope_scaling == {"rope_type": "linear", "factor": 2.0}
    assert any("both rope_parameters and rope_scaling" in line for line in reading.unread)


def test_partial_rotary_factor_inside_rope_parameters():
    config = {**LLAMA, "rope_parameters": {"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": 0.5}}
    assert from_hf_config(config).preset.rotary_dim == 64


def test_qwen2_vl_text_config_nesting_reads_like_the_flat_config():
    nested, flat = read("qwen2-vl-7b-instruct-text-config.json"), read("qwen2-vl-7b-instruct.json")
    assert nested.preset == replace(flat.preset, notes=nested.preset.notes)  # no "'mrope' read as" note
    assert nested.read["text_config.hidden_size"] == 3584
    assert "vision_config is not read: only the language model's positions are modelled" in nested.unread


def test_scaling_type_spellings():
    yarn = from_hf_config({**LLAMA, "rope_scaling": {"type": "yarn", "factor": 4.0}}).preset.rope_scaling
    assert yarn == {"rope_type": "yarn", "factor": 4.0}
    both = from_hf_config({**LLAMA, "rope_scaling": {"type": "linear", "rope_type": "dynamic", "factor": 2.0}})
    assert both.preset.rope_scaling["rope_type"] == "dynamic"
    assert any("type 'linear' differs from rope_type 'dynamic'" in line for line in both.unread)
    assert from_hf_config({**LLAMA, "rope_scaling": {"rope_type": "default"}}).preset.rope_scaling is None


def test_unknown_scaling_type_is_reported_and_ignored():
    reading = from_hf_config({**LLAMA, "rope_scaling": {"type": "foo", "factor": 2.0}})
    assert reading.preset.rope_scaling is None
    assert any(line.startswith("rope_scaling.type 'foo' is not a known RoPE scaling type") for line in reading.unread)


def test_mrope_sections_that_do_not_cover_the_frequencies_are_reported():
    config = {**LLAMA, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 16], "mrope_interleaved": True}}
    reading = from_hf_config(config)
    assert reading.preset.scheme == "mrope"
    assert "rope_scaling.mrope_section covers 56 frequencies; rotary dim 128 has 64" in reading.unread
    assert any("interleaved M-RoPE" in line for line in reading.unread)


def test_sliding_windows_are_reported():
    assert "sliding_window 131072 is unused (use_sliding_window false)" in read("qwen2.5-7b-instruct.json").unread
    assert any(line.startswith("sliding_window 4096 is not modelled") for line in read("mistral-7b-v0.1.json").unread)


def test_derived_values_are_reported():
    reading = read("llama-2-7b.json")
    assert "no head_dim: derived 4096/32 = 128" in reading.unread
    assert "no rope_theta: using the default 10000.0" in reading.unread
    odd = from_hf_config({**LLAMA, "hidden_size": 100, "num_attention_heads": 3})
    assert odd.preset.head_dim == 33 and any("not a multiple of 3 heads" in line for line in odd.unread)


def test_t5_defaults_when_the_bucket_keys_are_absent():
    reading = from_hf_config({"model_type": "t5", "d_model": 512, "num_heads": 8, "d_kv": 64})
    assert (reading.preset.t5_num_buckets, reading.preset.t5_max_distance) == (32, 128)
    assert "no relative_attention_num_buckets: using the default 32" in reading.unread
    assert "no relative_attention_max_distance: using the default 128" in read("t5-base.json").unread


def test_alibi_configs():
    bloom = read("bloom.json")
    assert (bloom.preset.scheme, bloom.preset.alibi_bias_max, bloom.preset.context_length) == ("alibi", None, None)
    mpt = read("mpt-7b-instruct.json")
    assert mpt.read["attn_config.alibi"] is True and mpt.read["attn_config.alibi_bias_max"] == 8
    assert any(line.startswith("learned_pos_emb true is not modelled") for line in mpt.unread)
    falcon = from_hf_config({"model_type": "falcon", "hidden_size": 64, "num_attention_heads": 4, "alibi": True})
    assert falcon.preset.scheme == "alibi" and any("Falcon-style alibi" in line for line in falcon.unread)
    no_alibi = {**load("mpt-7b-instruct.json"), "attn_config": {"alibi": False}}
    assert from_hf_config(no_alibi).preset.scheme == "learned"


@pytest.mark.parametrize(
    ("config", "scheme"),
    [
        ({"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_positions": 1024}, "learned"),
        ({"model_type": "bert", "hidden_size": 768, "num_attention_heads": 12}, "learned"),
        ({"model_type": "marian", "d_model": 512, "encoder_attention_heads": 8, "num_heads": 8}, "sinusoidal"),
        ({"hidden_size": 64, "num_attention_heads": 4, "relative_attention_num_buckets": 16}, "t5"),
    ],
)
def test_other_schemes(config, scheme):
    assert from_hf_config(config).preset.scheme == scheme


def test_a_config_without_position_keys_is_assumed_rope():
    reading = from_hf_config({"model_type": "mystery", "hidden_size": 64, "num_attention_heads": 4})
    assert reading.preset.scheme == "rope" and reading.preset.rope_theta == 10000.0
    assert "no position-encoding keys found (model_type 'mystery'): assuming RoPE" in reading.unread


@pytest.mark.parametrize(
    ("config", "name"),
    [
        (
            {"_name_or_path": "Qwen/Qwen2.5-7B-Instruct", "architectures": ["Qwen2ForCausalLM"]},
            "Qwen/Qwen2.5-7B-Instruct",
        ),
        ({"_name_or_path": "./", "architectures": ["Qwen2ForCausalLM"]}, "Qwen2ForCausalLM"),
        ({"model_type": "llama"}, "llama"),
        ({}, "uploaded config"),
    ],
)
def test_name(config, name):
    reading = from_hf_config({"hidden_size": 64, "num_attention_heads": 4, **config})
    assert reading.preset.name == name and name in reading.preset.source


def test_unknown_extra_keys_never_crash():
    config = {**load("llama-3.1-8b.json"), "zzz": {"nested": [1, {"deep": None}]}, "rope_tricks": "yes", "": 0}
    assert from_hf_config(config).preset == read("llama-3.1-8b.json").preset


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ('{"hidden_size": 64,', "not valid JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        ("[1, 2]", r"JSON object \{...\} \(got list\)"),
        (42, "JSON object"),
        ({"num_attention_heads": 4}, "no hidden size: expected one of 'hidden_size', 'n_embd', 'd_model'"),
        ({"hidden_size": 64}, "no number of attention heads: expected one of 'num_attention_heads', 'n_head'"),
        ({"hidden_size": "4096", "num_attention_heads": 4}, "hidden_size must be an integer"),
        ({"hidden_size": 64, "num_attention_heads": 0}, "num_attention_heads must be an integer >= 1"),
        ({**LLAMA, "rope_theta": -1}, "rope_theta must be a finite number > 1"),
        ({**LLAMA, "rope_theta": float("nan")}, "rope_theta must be a finite number"),
        ({**LLAMA, "rope_scaling": {"type": "linear", "factor": -2}}, "rope_scaling.factor must be a finite number"),
        ({**LLAMA, "rope_scaling": "yarn"}, "rope_scaling must be a JSON object or null"),
        ({**LLAMA, "rope_scaling": {"type": "longrope", "long_factor": 2}}, "rope_scaling.long_factor must be"),
        ({**LLAMA, "rotary_pct": 1.5}, "rotary_pct must be a finite number > 0 and <= 1"),
        ({**LLAMA, "head_dim": 0}, "head_dim must be an integer >= 1"),
        ({"model_type": "gptj", "n_embd": 64, "n_head": 4, "rotary_dim": 32}, "rotary_dim 32 must be at most"),
        ({"model_type": "mpt", "d_model": 64, "n_heads": 4, "attn_config": {"alibi": True, "alibi_bias_max": "8"}},
         "attn_config.alibi_bias_max must be a finite number"),
    ],
)  # fmt: skip
def test_malformed_input_raises_naming_the_key(config, message):
    with pytest.raises(ValueError, match=message):
        from_hf_config(config)


@pytest.mark.parametrize(
    ("name", "bad"),
    [(name, -1.0) for name, key in SCALING_KEYS.items() if key.kind == "float"]
    + [(name, bad) for name, key in SCALING_KEYS.items() if key.kind == "floats" for bad in ([], [1.0, "x"], [0.0])],
)
def test_scaling_keys_are_checked_as_the_key_list_describes_them(name, bad):
    """Every float key (factor, beta_fast, mscale, ...) and every list key (LongRoPE's factors) of
    ``rope_scaling_keys`` is checked when the config is read, with a message naming it."""
    config = {**LLAMA, "rope_scaling": {"type": "yarn", "factor": 4.0, name: bad}}
    with pytest.raises(ValueError, match=rf"rope_scaling\.{name}(\[\d+\])? must be"):
        from_hf_config(config)


def test_read_lists_the_keys_used():
    reading = read("llama-3.1-8b.json")
    assert reading.read["hidden_size"] == 4096 and reading.read["num_attention_heads"] == 32
    assert reading.read["rope_theta"] == 500000.0 and reading.read["rope_scaling"]["rope_type"] == "llama3"
    assert "vocab_size" not in reading.read
