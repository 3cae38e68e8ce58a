"""from_hf_config: real config.json files (tests/fixtures/configs) read back into the matching presets, the
forms a config may come in, its name, and the sentences about what was read, derived or not read.

The key spellings of each family live in test_hf_config_families.py, the rope_scaling / rope_parameters blocks
in test_hf_config_rope_scaling.py, malformed input in test_hf_config_malformed.py.

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

import pytest

from posenc_core.models.hf_config import from_hf_config
from posenc_core.models.presets import PRESETS
from tests.core.hf_config_helpers import CONFIGS, LLAMA, load, read

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
    "llama-4-scout-17b-16e.json": "llama-4-scout",
    "gemma-3-27b-it.json": "gemma-3-27b",
}
PE_FIELDS = (
    "scheme", "hidden_size", "n_heads", "n_kv_heads", "head_dim", "max_position_embeddings", "rope_theta",
    "partial_rotary_factor", "rope_head_dim", "rope_scaling", "rope_layout", "mrope_section", "alibi_bias_max",
    "t5_num_buckets", "t5_max_distance", "rotary_dim", "context_length",
)  # fmt: skip


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


def test_sliding_windows_are_reported():
    assert "sliding_window 131072 is unused (use_sliding_window false)" in read("qwen2.5-7b-instruct.json").unread
    assert any(line.startswith("sliding_window 4096 is not modelled") for line in read("mistral-7b-v0.1.json").unread)


def test_derived_values_are_reported():
    reading = read("llama-2-7b.json")
    assert "no head_dim: derived 4096/32 = 128" in reading.unread
    assert "no rope_theta: using the default 10000.0" in reading.unread
    odd = from_hf_config({**LLAMA, "hidden_size": 100, "num_attention_heads": 3})
    assert odd.preset.head_dim == 33 and any("not a multiple of 3 heads" in line for line in odd.unread)


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


def test_read_lists_the_keys_used():
    reading = read("llama-3.1-8b.json")
    assert reading.read["hidden_size"] == 4096 and reading.read["num_attention_heads"] == 32
    assert reading.read["rope_theta"] == 500000.0 and reading.read["rope_scaling"]["rope_type"] == "llama3"
    assert "vocab_size" not in reading.read
