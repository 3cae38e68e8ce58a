"""from_hf_config on malformed input: every bad value raises a ValueError naming the key, scaling keys included."""

from __future__ import annotations

import pytest

from posenc_core.models.hf_config import from_hf_config
from posenc_core.rope.scaling_keys import SCALING_KEYS
from tests.core.hf_config_helpers import LLAMA


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
    ``rope.scaling_keys`` is checked when the config is read, with a message naming it."""
    config = {**LLAMA, "rope_scaling": {"type": "yarn", "factor": 4.0, name: bad}}
    with pytest.raises(ValueError, match=rf"rope_scaling\.{name}(\[\d+\])? must be"):
        from_hf_config(config)
