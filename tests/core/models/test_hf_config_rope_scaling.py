"""from_hf_config on rope_scaling / rope_parameters: type spellings, v5 blocks, LongRoPE and M-RoPE lengths."""

from __future__ import annotations

import pytest

from posenc_core.models.hf_config import from_hf_config
from tests.core.hf_config_helpers import LLAMA, load, read


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


def test_longrope_lists_of_the_wrong_length_are_refused():
    config = load("phi-3-mini-128k-instruct.json")
    config["rope_scaling"]["long_factor"] = [1.0] * 32
    with pytest.raises(ValueError, match="rope_scaling.long_factor has 32 factors; rotary dim 96 has 48 pairs"):
        from_hf_config(config)


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


def test_mrope_sections_that_do_not_cover_the_frequencies_are_refused_and_interleaving_is_noted():
    config = {**LLAMA, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 16], "mrope_interleaved": True}}
    with pytest.raises(ValueError, match=r"mrope_section \[16, 24, 16\] adds up to 56; it must add up to the 64"):
        from_hf_config(config)
    config["rope_scaling"]["mrope_section"] = [16, 24, 24]
    reading = from_hf_config(config)
    assert reading.preset.scheme == "mrope"
    assert any("interleaved M-RoPE" in line for line in reading.unread)
