"""Presets of models whose layers differ: Llama-4-Scout (NoPE every 4th layer, temperature tuning) and
Gemma-3-27B (5 sliding layers at base 10k : 1 global layer at 1M with linear 8), against HF transformers'
Llama4TextConfig / Gemma3TextConfig and Gemma3RotaryEmbedding."""

from __future__ import annotations

import pytest
import torch

from posenc_core.encodings import nope
from posenc_core.models.presets import PRESETS, ModelPreset, layer_rope_inputs
from posenc_core.rope import scaling as rope_scaling

SCOUT, GEMMA = PRESETS["llama-4-scout"], PRESETS["gemma-3-27b"]


def test_scout_matches_the_hf_llama4_text_config_defaults():
    """HF's Llama4TextConfig defaults are Scout's text config (its docstring's checkpoint)."""
    transformers = pytest.importorskip("transformers")
    config = transformers.Llama4TextConfig()
    assert (SCOUT.hidden_size, SCOUT.n_heads, SCOUT.n_kv_heads, SCOUT.head_dim) == (
        config.hidden_size, config.num_attention_heads, config.num_key_value_heads, config.head_dim,
    )  # fmt: skip
    assert SCOUT.n_layers == config.num_hidden_layers == 48
    assert list(SCOUT.rope_layers) == [bool(flag) for flag in config.no_rope_layers]
    assert list(SCOUT.layer_types) == list(config.layer_types)
    assert (SCOUT.nope_floor_scale, SCOUT.nope_attn_scale) == (config.floor_scale, config.attn_scale)
    assert SCOUT.sliding_window == config.attention_chunk_size == 8192
    assert SCOUT.rope_theta == config.default_theta == 5e5


def test_scout_has_twelve_nope_layers_and_its_llama3_block():
    assert [layer for layer, rope in enumerate(SCOUT.rope_layers) if not rope] == list(range(3, 48, 4))
    assert SCOUT.layer_rope_bases().count(None) == 12
    assert SCOUT.rope_scaling == {
        "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    }  # fmt: skip
    assert SCOUT.rope_layout == "interleaved"  # HF Llama 4 rotates (2i, 2i+1) as complex numbers
    scale = nope.llama4_attention_scale([8190, 8191], floor_scale=SCOUT.nope_floor_scale, attn_scale=0.1)
    assert scale[0].item() == 1.0 and scale[1].item() > 1.0


def _gemma3_config(transformers):
    return transformers.Gemma3TextConfig(
        hidden_size=GEMMA.hidden_size, num_attention_heads=GEMMA.n_heads, num_key_value_heads=GEMMA.n_kv_heads,
        head_dim=GEMMA.head_dim, num_hidden_layers=62, sliding_window=1024,
        rope_scaling={"rope_type": "linear", "factor": 8.0},
    )  # fmt: skip


def test_gemma3_layers_and_bases_match_the_hf_config():
    transformers = pytest.importorskip("transformers")
    config = _gemma3_config(transformers)
    assert list(GEMMA.layer_types) == list(config.layer_types)  # default pattern 6: every 6th layer global
    assert GEMMA.layer_types.count("full_attention") == 10 and GEMMA.layer_types[5] == "full_attention"
    full, sliding = config.rope_parameters["full_attention"], config.rope_parameters["sliding_attention"]
    assert (full["rope_theta"], full["rope_type"], full["factor"]) == (GEMMA.rope_theta, "linear", 8.0)
    assert (sliding["rope_theta"], sliding["rope_type"]) == (GEMMA.local_rope_theta, "default")
    bases = GEMMA.layer_rope_bases()
    assert [bases[layer] for layer in (0, 4, 5, 6, 59, 61)] == [1e4, 1e4, 1e6, 1e4, 1e6, 1e4]


def test_gemma3_layer_frequencies_equal_hf_rotary_embedding():
    transformers = pytest.importorskip("transformers")
    from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding

    hf = Gemma3RotaryEmbedding(_gemma3_config(transformers))
    for layer, kind in ((0, "sliding_attention"), (5, "full_attention")):
        ours, factor = rope_scaling.inv_freq(**layer_rope_inputs(GEMMA, layer), dtype=torch.float64)
        torch.testing.assert_close(ours.float(), getattr(hf, f"{kind}_inv_freq"), rtol=1e-6, atol=0)
        assert factor == getattr(hf, f"{kind}_attention_scaling") == 1.0
    sliding, _ = rope_scaling.inv_freq(**layer_rope_inputs(GEMMA, 0), dtype=torch.float64)
    assert sliding[-1].item() == pytest.approx(1e4 ** (-126 / 128), rel=1e-12)  # no linear factor on local layers


def test_layer_rope_inputs_refuse_nope_layers_and_unknown_layers():
    assert layer_rope_inputs(SCOUT, 0)["scaling"]["rope_type"] == "llama3"  # chunked RoPE layers keep the block
    with pytest.raises(ValueError, match="NoPE"):
        layer_rope_inputs(SCOUT, 3)
    with pytest.raises(ValueError, match="layer"):
        layer_rope_inputs(SCOUT, 48)
    with pytest.raises(ValueError, match="n_layers"):
        layer_rope_inputs(PRESETS["llama-3.1-8b"], 0)
    assert PRESETS["llama-3.1-8b"].layer_rope_bases() == []


@pytest.mark.parametrize(
    ("changes", "argument"),
    [
        ({"n_layers": 0}, "n_layers"),
        ({"n_layers": 2, "rope_layers": (True,)}, "rope_layers"),
        ({"n_layers": 2, "rope_layers": (True, 1)}, "rope_layers"),
        ({"rope_layers": (True,)}, "rope_layers"),
        ({"n_layers": 2, "layer_types": ("full_attention", "local")}, "layer_types"),
        ({"local_rope_theta": 1.0}, "local_rope_theta"),
        ({"sliding_window": 0}, "sliding_window"),
        ({"nope_floor_scale": 8192}, "nope_attn_scale"),
        ({"nope_floor_scale": 0, "nope_attn_scale": 0.1}, "nope_floor_scale"),
        ({"nope_floor_scale": 10, "nope_attn_scale": -1.0}, "nope_attn_scale"),
    ],
)
def test_model_preset_rejects_bad_layer_fields(changes, argument):
    fields = {"name": "x", "scheme": "rope", "source": "test", "hidden_size": 64, "n_heads": 4, "rope_theta": 1e4}
    with pytest.raises(ValueError, match=argument):
        ModelPreset(**{**fields, **changes})
