"""posenc_core.rope.scaling arguments: the scaling dict read (aliases, partial rotary, v5 keys), bad ones named."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_core.rope.scaling import (
    ROPE_SCALING_FUNCTIONS,
    default_inv_freq,
    dynamic_ntk_base,
    inv_freq,
    resolve_rope_type,
)
from tests.core.rope_scaling_helpers import LLAMA31, registry_params, rope

# ---------------------------------------------------------------- dict reading: aliases, partial rotary, v5 keys


@pytest.mark.parametrize(
    ("scaling", "expected"),
    [
        (None, "default"),
        ({}, "default"),
        ({"rope_type": None}, "default"),
        ({"type": "linear", "factor": 2.0}, "linear"),
        ({"rope_type": "yarn", "type": "linear"}, "yarn"),
        ({"type": "mrope", "mrope_section": [16, 24, 24]}, "default"),
        ({"type": "su"}, "longrope"),
    ],
)
def test_resolve_rope_type(scaling, expected):
    assert resolve_rope_type(scaling) == expected


def test_mrope_is_default(device):
    inv, attention = rope({"type": "mrope", "mrope_section": [16, 24, 24]}, base=1e6, device=device)
    torch.testing.assert_close(inv, default_inv_freq(128, 1e6, device=device), rtol=0, atol=0)
    assert attention == 1.0


@pytest.mark.parametrize(
    ("head_dim", "fraction", "dim"), [(80, 0.4, 32), (96, 0.25, 24), (256, 0.25, 64), (64, 1.0, 64)]
)
def test_partial_rotary_uses_rotary_dim_as_denominator(device, head_dim, fraction, dim):
    """Phi-2 (80 * 0.4), GPT-NeoX-20B (96 * 0.25), GPT-J (64 of 256): exponent 2i / rotary_dim."""
    inv, _ = inv_freq(head_dim, 1e4, partial_rotary_factor=fraction, device=device)
    torch.testing.assert_close(inv, default_inv_freq(dim, device=device), rtol=0, atol=0)


def test_v5_rope_parameters_keys_must_agree():
    scaling = {"rope_type": "linear", "factor": 2.0, "rope_theta": 5e5, "partial_rotary_factor": 0.5}
    inv, _ = inv_freq(128, 5e5, scaling, partial_rotary_factor=0.5)
    torch.testing.assert_close(inv, default_inv_freq(64, 5e5) / 2, rtol=0, atol=0)
    with pytest.raises(ValueError, match="rope_theta"):
        inv_freq(128, 1e4, scaling, partial_rotary_factor=0.5)
    with pytest.raises(ValueError, match="partial_rotary_factor"):
        inv_freq(128, 5e5, scaling)


def test_scaling_dict_is_not_modified():
    scaling = {"rope_type": "yarn", "factor": None, "original_max_position_embeddings": 4096}
    inv_freq(128, 1e4, scaling, max_position_embeddings=16384)
    assert scaling == {"rope_type": "yarn", "factor": None, "original_max_position_embeddings": 4096}


# ---------------------------------------------------------------- bad arguments

NAN = float("nan")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"head_dim": 5}, "rotary dimension"),
        ({"head_dim": 10, "partial_rotary_factor": 0.5}, "rotary dimension"),
        ({"head_dim": 0}, "head_dim"),
        ({"head_dim": 64.5}, "head_dim"),
        ({"head_dim": True}, "head_dim"),
        ({"partial_rotary_factor": 0.0}, "partial_rotary_factor"),
        ({"partial_rotary_factor": 1.5}, "partial_rotary_factor"),
        ({"base": 1.0}, "base"),
        ({"base": 0.5}, "base"),
        ({"base": NAN}, "base"),
        ({"base": math.inf}, "base"),
        ({"scaling": {"rope_type": "linear", "factor": 0.0}}, "factor"),
        ({"scaling": {"rope_type": "linear", "factor": -2.0}}, "factor"),
        ({"scaling": {"rope_type": "linear", "factor": NAN}}, "factor"),
        ({"scaling": {"rope_type": "dynamic", "factor": math.inf}}, "factor"),
        ({"scaling": {"rope_type": "ntk", "factor": "2"}}, "factor"),
        ({"scaling": {"rope_type": "yarn", "factor": True}}, "factor"),
        ({"scaling": {"rope_type": "linear"}}, "factor"),
        ({"scaling": {"rope_type": "llama3", "factor": 8.0, "high_freq_factor": 4.0}}, "low_freq_factor"),
        ({"scaling": {**LLAMA31, "low_freq_factor": 5.0}}, "low_freq_factor"),
        ({"scaling": {**LLAMA31, "high_freq_factor": 0.0}}, "high_freq_factor"),
        ({"scaling": {"rope_type": "longrope", "short_factor": [1.0] * 64}}, "long_factor"),
        ({"scaling": {"rope_type": "longrope", "long_factor": [1.0] * 64}, "seq_len": 1}, "short_factor"),
        ({"scaling": {"rope_type": "longrope", "short_factor": [1.0] * 63, "long_factor": [1.0] * 64}}, "short_factor"),
        ({"scaling": {"rope_type": "longrope", "short_factor": 1.0, "long_factor": [1.0] * 64}}, "short_factor"),
        ({"scaling": {"rope_type": "longrope", "short_factor": "1" * 64, "long_factor": [1.0] * 64}}, "short_factor"),
        (
            {"scaling": {"rope_type": "longrope", "short_factor": [1.0] * 63 + [0.0], "long_factor": []}},
            r"short_factor\[63\]",
        ),
        (
            {
                "scaling": {"rope_type": "longrope", "short_factor": [1.0] * 64, "long_factor": [NAN] * 64},
                "seq_len": 10**6,
            },
            "long_factor",
        ),
        ({"scaling": {"rope_type": "yarn", "factor": 4.0, "beta_fast": 1.0, "beta_slow": 32.0}}, "beta_fast"),
        ({"scaling": {"rope_type": "yarn", "factor": 4.0, "beta_fast": -1.0}}, "beta_fast"),
        ({"scaling": {"rope_type": "yarn", "factor": 4.0, "truncate": "no"}}, "truncate"),
        ({"scaling": {"rope_type": "yarn", "factor": 4.0, "mscale": -1.0, "mscale_all_dim": 1.0}}, "mscale"),
        ({"scaling": {"rope_type": "yarn", "factor": 4.0, "attention_factor": 0.0}}, "attention_factor"),
        (
            {"scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 0}},
            "original_max_position_embeddings",
        ),
        (
            {"scaling": {"rope_type": "yarn", "factor": 4.0}, "max_position_embeddings": None},
            "original_max_position_embeddings",
        ),
        (
            {
                "scaling": {"rope_type": "yarn", "original_max_position_embeddings": 4096},
                "max_position_embeddings": None,
            },
            "factor",
        ),
        (
            {"scaling": {"rope_type": "dynamic", "factor": 2.0}, "max_position_embeddings": None},
            "max_position_embeddings",
        ),
        ({"scaling": {"rope_type": "dynamic", "factor": 2.0}, "head_dim": 2}, "dim"),
        ({"seq_len": -1}, "seq_len"),
        ({"seq_len": 1.5}, "seq_len"),
        ({"max_position_embeddings": 0}, "max_position_embeddings"),
        ({"scaling": {"rope_type": "rope2"}}, "rope_type must be one of 'default', 'linear', 'ntk', 'dynamic'"),
        ({"scaling": {"rope_type": "proportional"}}, "rope_type"),
        ({"scaling": {"rope_type": ["linear"]}}, "rope_type"),
        ({"scaling": "linear"}, "scaling"),
        ({"dtype": torch.float16}, "dtype"),
        ({"device": "tpu"}, "device"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, match):
    call = {"head_dim": 128, "base": 1e4, "scaling": None, "max_position_embeddings": 2048, **kwargs}
    with pytest.raises(ValueError, match=match):
        inv_freq(call.pop("head_dim"), call.pop("base"), call.pop("scaling"), **call)


@pytest.mark.parametrize("rope_type", sorted(ROPE_SCALING_FUNCTIONS))
@pytest.mark.parametrize(("dim", "base", "match"), [(63, 1e4, "dim"), (64, 1.0, "base"), (64, NAN, "base")])
def test_registry_functions_validate_dim_and_base(rope_type, dim, base, match):
    with pytest.raises(ValueError, match=match):
        ROPE_SCALING_FUNCTIONS[rope_type](dim, base, registry_params(64), seq_len=None, max_position_embeddings=4096)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((1.0, 128, 2.0, 100, 50), "base"),
        ((1e4, 2, 2.0, 100, 50), "dim"),
        ((1e4, 128, 0.0, 100, 50), "factor"),
        ((1e4, 128, 2.0, -1, 50), "seq_len"),
        ((1e4, 128, 2.0, 100, 0), "max_position_embeddings"),
    ],
)
def test_dynamic_ntk_base_bad_arguments(args, match):
    with pytest.raises(ValueError, match=match):
        dynamic_ntk_base(*args)
