"""Presets: the numbers of docs/REFERENCE_NUMBERS.md §8, the preset table's API, and the RoPE each preset feeds to
``posenc_core.rope.scaling.inv_freq`` (§1.1, §2.3-2.6 test vectors)."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from posenc_core.models import presets
from posenc_core.models.presets import PRESETS, ModelPreset, get_preset, preset_names, rope_inputs
from posenc_core.rope import scaling as rope_scaling

CONFIGS = Path(__file__).parents[2] / "fixtures" / "configs"
ROPE_KEYS = [key for key, preset in PRESETS.items() if preset.scheme in ("rope", "mrope")]

# key: scheme, hidden, heads, kv heads, head_dim, rotary_dim, rope_theta, max positions (§8; Phi-2's
# 2048 from its config.json)
SPEC_TABLE = {
    "llama-2-7b": ("rope", 4096, 32, 32, 128, 128, 1e4, 4096),
    "llama-3-8b": ("rope", 4096, 32, 8, 128, 128, 5e5, 8192),
    "llama-3.1-8b": ("rope", 4096, 32, 8, 128, 128, 5e5, 131072),
    "mistral-7b": ("rope", 4096, 32, 8, 128, 128, 1e4, 32768),
    "qwen2.5-7b": ("rope", 3584, 28, 4, 128, 128, 1e6, 32768),
    "qwen2.5-7b-128k-yarn": ("rope", 3584, 28, 4, 128, 128, 1e6, 32768),
    "gemma-2-9b": ("rope", 3584, 16, 8, 256, 256, 1e4, 8192),
    "phi-3-mini-128k": ("rope", 3072, 32, 32, 96, 96, 1e4, 131072),
    "phi-2": ("rope", 2560, 32, 32, 80, 32, 1e4, 2048),
    "deepseek-v3": ("rope", 7168, 128, 128, 192, 64, 1e4, 163840),
    "deepseek-v2-lite": ("rope", 2048, 16, 16, 192, 64, 1e4, 163840),
    "gpt-neox-20b": ("rope", 6144, 64, 64, 96, 24, 1e4, 2048),
    "gpt-j-6b": ("rope", 4096, 16, 16, 256, 64, 1e4, 2048),
    "bloom-176b": ("alibi", 14336, 112, 112, 128, None, None, None),
    "mpt-7b": ("alibi", 4096, 32, 32, 128, None, None, 2048),
    "t5-base": ("t5", 768, 12, 12, 64, None, None, 512),
    "qwen2-vl-7b": ("mrope", 3584, 28, 4, 128, 128, 1e6, 32768),
    "llama-4-scout": ("rope", 5120, 40, 8, 128, 128, 5e5, 262144),
    "gemma-3-27b": ("rope", 5376, 32, 16, 128, 128, 1e6, 131072),
}


def test_the_table_covers_every_preset_in_order():
    assert list(PRESETS) == list(SPEC_TABLE)
    assert preset_names() == [preset.name for preset in PRESETS.values()]
    assert len(set(preset_names())) == len(PRESETS)


@pytest.mark.parametrize("key", list(SPEC_TABLE))
def test_preset_fields_match_the_spec_table(key):
    preset = PRESETS[key]
    scheme, hidden, heads, kv_heads, head_dim, rotary_dim, theta, max_positions = SPEC_TABLE[key]
    assert (preset.scheme, preset.hidden_size, preset.n_heads, preset.n_kv_heads) == (scheme, hidden, heads, kv_heads)
    assert (preset.head_dim, preset.rotary_dim, preset.max_position_embeddings) == (head_dim, rotary_dim, max_positions)
    assert preset.rope_theta == theta
    assert preset.source


@pytest.mark.parametrize("key", list(PRESETS))
def test_every_key_is_a_url_safe_slug(key):
    assert re.fullmatch(r"[a-z0-9]+(?:[.-][a-z0-9]+)*", key)


def test_scaling_blocks_match_the_spec_table():
    assert PRESETS["llama-3.1-8b"].rope_scaling == {
        "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    }  # fmt: skip
    assert PRESETS["qwen2.5-7b-128k-yarn"].rope_scaling == {
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768,
    }  # fmt: skip
    assert PRESETS["deepseek-v3"].rope_scaling == {
        "rope_type": "yarn", "factor": 40, "beta_fast": 32, "beta_slow": 1, "mscale": 1.0,
        "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096,
    }  # fmt: skip
    assert PRESETS["deepseek-v2-lite"].rope_scaling["mscale"] == 0.707
    assert PRESETS["deepseek-v2-lite"].rope_scaling["mscale_all_dim"] == 0.707
    assert PRESETS["qwen2.5-7b"].rope_scaling is None and PRESETS["llama-3-8b"].rope_scaling is None
    assert PRESETS["qwen2-vl-7b"].mrope_section == (16, 24, 24)
    assert PRESETS["mpt-7b"].alibi_bias_max == 8.0 and PRESETS["bloom-176b"].alibi_bias_max is None
    assert (PRESETS["t5-base"].t5_num_buckets, PRESETS["t5-base"].t5_max_distance) == (32, 128)
    assert {key for key, p in PRESETS.items() if p.rope_layout == "interleaved"} == {
        "gpt-j-6b", "deepseek-v3", "deepseek-v2-lite", "llama-4-scout",
    }  # fmt: skip


def test_phi3_factor_lists_are_the_configs_48_values():
    scaling = PRESETS["phi-3-mini-128k"].rope_scaling
    fixture = json.loads((CONFIGS / "phi-3-mini-128k-instruct.json").read_text())["rope_scaling"]
    assert scaling["rope_type"] == "longrope"
    assert PRESETS["phi-3-mini-128k"].rotary_dim // 2 == 48
    assert len(scaling["long_factor"]) == len(scaling["short_factor"]) == 48
    assert scaling["long_factor"] == fixture["long_factor"]
    assert scaling["short_factor"] == fixture["short_factor"]
    assert scaling["original_max_position_embeddings"] == 4096


def test_context_lengths():
    assert PRESETS["qwen2.5-7b"].context_length == 32768
    assert PRESETS["qwen2.5-7b-128k-yarn"].context_length == 131072  # 32768 * 4; max stays 32768
    assert PRESETS["llama-3.1-8b"].context_length == 131072
    assert PRESETS["llama-3.1-8b"].original_max_position_embeddings == 8192
    assert PRESETS["deepseek-v3"].original_max_position_embeddings == 4096
    assert PRESETS["phi-3-mini-128k"].original_max_position_embeddings == 4096
    assert PRESETS["llama-2-7b"].original_max_position_embeddings == 4096
    assert PRESETS["bloom-176b"].context_length is None


@pytest.mark.parametrize("text", ["llama-3.1-8b", "Llama-3.1-8B", "  LLAMA-3.1-8b ", "Qwen2.5-7B (128k YaRN)"])
def test_get_preset_by_key_or_name(text):
    assert get_preset(text) in PRESETS.values()


def test_get_preset_rejects_unknown_names_listing_the_valid_ones():
    with pytest.raises(ValueError, match=r"preset must be one of .*'llama-3.1-8b' \(Llama-3.1-8B\).*got 'gpt-5'"):
        get_preset("gpt-5")


def test_rope_inputs_of_llama31():
    inputs = rope_inputs(PRESETS["llama-3.1-8b"], seq_len=1000)
    assert inputs == {
        "head_dim": 128, "base": 5e5, "scaling": dict(PRESETS["llama-3.1-8b"].rope_scaling),
        "partial_rotary_factor": 1.0, "max_position_embeddings": 131072, "seq_len": 1000,
    }  # fmt: skip
    inputs["scaling"]["factor"] = 99.0  # a copy: the shared preset is untouched
    assert PRESETS["llama-3.1-8b"].rope_scaling["factor"] == 8.0


def test_rope_inputs_use_the_rope_head_dim_and_plain_rope_for_mrope():
    assert rope_inputs(PRESETS["deepseek-v3"])["head_dim"] == 64
    assert rope_inputs(PRESETS["gpt-neox-20b"])["partial_rotary_factor"] == 0.25
    assert rope_inputs(PRESETS["qwen2-vl-7b"])["scaling"] is None
    assert rope_inputs(PRESETS["llama-2-7b"])["scaling"] is None


@pytest.mark.parametrize("key", ["bloom-176b", "mpt-7b", "t5-base"])
def test_rope_inputs_reject_presets_without_rope(key):
    with pytest.raises(ValueError, match="not RoPE"):
        rope_inputs(PRESETS[key])


@pytest.mark.parametrize("seq_len", [0, -5, 2.5, True, "10"])
def test_rope_inputs_reject_bad_seq_len(seq_len):
    with pytest.raises(ValueError, match="seq_len"):
        rope_inputs(PRESETS["llama-3.1-8b"], seq_len=seq_len)


def _inv_freq(key, device, seq_len=None):
    """(inv_freq, attention_factor) of a preset through posenc_core.rope.scaling.inv_freq."""
    inv_freq = getattr(rope_scaling, "inv_freq", None)
    if inv_freq is None:
        pytest.skip("posenc_core.rope.scaling.inv_freq is not written yet")
    inv, attention = inv_freq(**rope_inputs(PRESETS[key], seq_len=seq_len), device=device)
    return inv.cpu().double(), float(attention)


@pytest.mark.parametrize("key", ROPE_KEYS)
def test_every_rope_preset_feeds_inv_freq(key, device):
    inv, attention = _inv_freq(key, device)
    assert inv.shape == (PRESETS[key].rotary_dim // 2,)
    assert bool((inv > 0).all()) and bool((inv <= 1).all()) and math.isfinite(attention)


def test_llama2_is_default_rope(device):
    inv, attention = _inv_freq("llama-2-7b", device)
    assert inv[63].item() == pytest.approx(1.1548e-4, rel=1e-4) and attention == 1.0


def test_llama31_matches_the_spec(device):
    inv, attention = _inv_freq("llama-3.1-8b", device)
    assert inv[1].item() == pytest.approx(0.8146172, rel=1e-6)
    assert inv[63].item() == pytest.approx(3.0689e-7, rel=1e-4)
    assert attention == 1.0


def test_qwen25_yarn_matches_the_spec(device):
    _, attention = _inv_freq("qwen2.5-7b-128k-yarn", device)
    assert attention == pytest.approx(1.1386294, rel=1e-6)


def test_deepseek_v3_matches_the_spec(device):
    inv, attention = _inv_freq("deepseek-v3", device)
    assert inv[31].item() == pytest.approx(3.3338e-6, rel=1e-4)
    assert attention == pytest.approx(1.0)  # mscale == mscale_all_dim


def test_phi3_longrope_matches_the_spec(device):
    short, attention = _inv_freq("phi-3-mini-128k", device)
    assert attention == pytest.approx(1.1902381, rel=1e-6)
    assert short[0].item() == pytest.approx(1 / 1.05, rel=1e-6)
    long, _ = _inv_freq("phi-3-mini-128k", device, seq_len=131072)  # past 4096: the long factors
    assert long[0].item() == pytest.approx(1 / 1.0299999713897705, rel=1e-6)


def test_gpt_neox_rotates_24_of_96_channels(device):
    inv, _ = _inv_freq("gpt-neox-20b", device)
    assert inv.shape == (12,)
    assert inv[1].item() == pytest.approx(1e4 ** (-2 / 24), rel=1e-6)  # denominator is 24, not 96


@pytest.mark.parametrize(
    ("changes", "argument"),
    [
        ({"scheme": "rotary"}, "scheme"),
        ({"rope_layout": "neox"}, "rope_layout"),
        ({"hidden_size": 0}, "hidden_size"),
        ({"n_heads": True}, "n_heads"),
        ({"rope_theta": None}, "rope_theta"),
        ({"rope_theta": 1.0}, "rope_theta"),
        ({"partial_rotary_factor": 0.0}, "partial_rotary_factor"),
        ({"partial_rotary_factor": 1.5}, "partial_rotary_factor"),
        ({"rope_scaling": {"factor": 2.0}}, "rope_type"),
        ({"max_position_embeddings": -1}, "max_position_embeddings"),
        ({"alibi_bias_max": 0}, "alibi_bias_max"),
    ],
)
def test_model_preset_rejects_bad_fields(changes, argument):
    fields = {"name": "x", "scheme": "rope", "source": "test", "hidden_size": 64, "n_heads": 4, "rope_theta": 1e4}
    with pytest.raises(ValueError, match=argument):
        ModelPreset(**{**fields, **changes})


def test_model_preset_defaults():
    preset = ModelPreset(name="x", scheme="rope", source="test", hidden_size=64, n_heads=4, rope_theta=1e4)
    assert (preset.head_dim, preset.n_kv_heads, preset.rope_head_dim, preset.rotary_dim) == (16, 4, 16, 16)
    assert (preset.rope_layout, preset.rope_scaling, preset.context_length) == ("half", None, None)
    alibi = ModelPreset(name="y", scheme="alibi", source="test", hidden_size=64, n_heads=4)
    assert (alibi.rotary_dim, alibi.rope_head_dim) == (None, None)


def _modules_after_importing(module: str) -> list[str]:
    """The posenc_core modules loaded by a fresh interpreter after ``import module``."""
    script = (
        f"import json, sys; import {module}; "
        "print(json.dumps(sorted(name for name in sys.modules if name.startswith('posenc_core'))))"
    )
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=root, env=env, check=True)
    return json.loads(done.stdout)


def test_presets_does_not_import_hf_config_and_hf_config_imports_presets():
    """One direction only: reading a config needs the preset type; the preset table needs no config reader."""
    assert "posenc_core.models.hf_config" not in _modules_after_importing("posenc_core.models.presets")
    assert "posenc_core.models.presets" in _modules_after_importing("posenc_core.models.hf_config")
    assert not hasattr(presets, "from_hf_config") and not hasattr(presets, "ConfigReading")
    with pytest.raises(AttributeError, match="no_such_name"):
        presets.no_such_name  # noqa: B018
