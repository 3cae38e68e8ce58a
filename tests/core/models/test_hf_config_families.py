"""from_hf_config per model family: head and rotary dims, layouts, nesting, ALiBi, T5, and which scheme is assumed."""

from __future__ import annotations

from dataclasses import replace

import pytest

from posenc_core.models.hf_config import from_hf_config
from tests.core.hf_config_helpers import load, read


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


def test_qwen2_vl_text_config_nesting_reads_like_the_flat_config():
    nested, flat = read("qwen2-vl-7b-instruct-text-config.json"), read("qwen2-vl-7b-instruct.json")
    assert nested.preset == replace(flat.preset, notes=nested.preset.notes)  # no "'mrope' read as" note
    assert nested.read["text_config.hidden_size"] == 3584
    assert "vision_config is not read: only the language model's positions are modelled" in nested.unread


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
