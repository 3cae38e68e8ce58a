"""posenc_core.rope.scaling against the installed HF transformers (v5 ``ROPE_INIT_FUNCTIONS`` with a LlamaConfig
carrying ``rope_parameters``): inv_freq and attention factor agree to float32 precision. Skips without transformers."""

from __future__ import annotations

import copy

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

transformers = pytest.importorskip("transformers")
from transformers import LlamaConfig  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding  # noqa: E402

from posenc_core.rope.scaling import ROPE_SCALING_FUNCTIONS, inv_freq  # noqa: E402

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
PHI3_SHORT = [1.0 + 0.05 * i for i in range(48)]
PHI3_LONG = [1.0 + 1.5 * i for i in range(48)]


pytestmark = pytest.mark.usefixtures("quiet_transformers")  # tests/core/conftest.py


def hf_config(head_dim, base, scaling, max_position_embeddings, partial_rotary_factor=1.0) -> LlamaConfig:
    rope_parameters = {"rope_theta": base, **copy.deepcopy(scaling)}
    if partial_rotary_factor != 1.0:
        rope_parameters["partial_rotary_factor"] = partial_rotary_factor
    return LlamaConfig(
        hidden_size=2 * head_dim,
        num_attention_heads=2,
        head_dim=head_dim,
        max_position_embeddings=max_position_embeddings,
        rope_parameters=rope_parameters,
    )


def compare(device, scaling, *, head_dim=128, base=1e4, max_position_embeddings=4096, seq_len=None, fraction=1.0):
    config = hf_config(head_dim, base, scaling, max_position_embeddings, fraction)
    expected, expected_attention = ROPE_INIT_FUNCTIONS[scaling["rope_type"]](config, device, seq_len=seq_len)
    actual, attention = inv_freq(
        head_dim,
        base,
        scaling,
        seq_len=seq_len,
        partial_rotary_factor=fraction,
        max_position_embeddings=max_position_embeddings,
        device=device,
    )
    assert actual.shape == expected.shape and actual.dtype == expected.dtype == torch.float32
    torch.testing.assert_close(actual, expected, rtol=1e-6, atol=0)
    assert attention == pytest.approx(float(expected_attention), rel=1e-12)


def test_hf_registry_is_covered():
    """Every HF v5 type we model is in our registry ("proportional" is Gemma-specific and left out)."""
    assert set(ROPE_INIT_FUNCTIONS) - {"proportional"} <= set(ROPE_SCALING_FUNCTIONS)


@pytest.mark.parametrize(("head_dim", "base"), [(64, 1e4), (128, 1e4), (128, 5e5), (256, 1e6), (96, 1e4)])
def test_default(head_dim, base):
    config = hf_config(head_dim, base, {"rope_type": "default"}, 4096)
    expected, expected_attention = LlamaRotaryEmbedding.compute_default_rope_parameters(config)
    actual, attention = inv_freq(head_dim, base, config.rope_parameters, device="cpu")
    torch.testing.assert_close(actual, expected, rtol=1e-6, atol=0)
    assert attention == expected_attention == 1.0


@pytest.mark.parametrize("factor", [0.5, 2.0, 10.0, 20.0])
@pytest.mark.parametrize("fraction", [1.0, 0.5, 0.25])
def test_linear(device, factor, fraction):
    compare(device, {"rope_type": "linear", "factor": factor}, fraction=fraction)


@pytest.mark.parametrize("factor", [2.0, 10.0])
@pytest.mark.parametrize("seq_len", [None, 1, 2048, 4096, 4097, 16384, 100_000])
@pytest.mark.parametrize("max_position_embeddings", [2048, 4096])
def test_dynamic(device, factor, seq_len, max_position_embeddings):
    compare(
        device,
        {"rope_type": "dynamic", "factor": factor},
        seq_len=seq_len,
        max_position_embeddings=max_position_embeddings,
    )


YARN_CASES = {
    "hf-test-f10": ({"factor": 10.0}, 128, 1e4, 2048),
    "f4-L4096": ({"factor": 4.0, "original_max_position_embeddings": 4096}, 128, 1e4, 16384),
    "f4-L4096-untruncated": (
        {"factor": 4.0, "original_max_position_embeddings": 4096, "truncate": False},
        128,
        1e4,
        16384,
    ),
    "qwen2.5": ({"factor": 4.0, "original_max_position_embeddings": 32768}, 128, 1e6, 131072),
    "deepseek-v3": (
        {
            "factor": 40.0,
            "beta_fast": 32,
            "beta_slow": 1,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
            "original_max_position_embeddings": 4096,
        },
        64,
        1e4,
        163840,
    ),
    "deepseek-v2-lite": (
        {"factor": 40.0, "mscale": 0.707, "mscale_all_dim": 0.707, "original_max_position_embeddings": 4096},
        64,
        1e4,
        163840,
    ),
    "mscale-ratio": (
        {"factor": 16.0, "mscale": 1.0, "mscale_all_dim": 0.5, "original_max_position_embeddings": 4096},
        64,
        1e4,
        65536,
    ),
    "mscale-only": ({"factor": 16.0, "mscale": 1.0, "original_max_position_embeddings": 4096}, 64, 1e4, 65536),
    "factor-derived": ({"factor": None, "original_max_position_embeddings": 4096}, 128, 1e4, 32768),
    "factor-below-1": ({"factor": 0.5, "original_max_position_embeddings": 4096}, 128, 1e4, 4096),
    "attention-override": (
        {"factor": 8.0, "attention_factor": 0.75, "original_max_position_embeddings": 2048},
        128,
        1e4,
        16384,
    ),
    "betas": (
        {"factor": 8.0, "beta_fast": 16.0, "beta_slow": 2.0, "original_max_position_embeddings": 2048},
        128,
        5e5,
        16384,
    ),
    "huge-beta-fast": ({"factor": 10.0, "beta_fast": 1000, "beta_slow": 1}, 128, 1e4, 2048),
    "degenerate-range": (
        {"factor": 4.0, "beta_fast": 2.0, "original_max_position_embeddings": 10**6},
        8,
        100.0,
        4 * 10**6,
    ),
}


@pytest.mark.parametrize("case", sorted(YARN_CASES))
def test_yarn_cases(device, case):
    extra, head_dim, base, max_position_embeddings = YARN_CASES[case]
    compare(
        device,
        {"rope_type": "yarn", **extra},
        head_dim=head_dim,
        base=base,
        max_position_embeddings=max_position_embeddings,
    )


@SETTINGS
@given(
    head_dim=st.sampled_from([32, 64, 96, 128, 256]),
    base=st.sampled_from([1e4, 5e5, 1e6]),
    factor=st.floats(1.0, 64.0),
    original=st.sampled_from([2048, 4096, 8192, 32768]),
    truncate=st.booleans(),
    beta_fast=st.sampled_from([16.0, 32.0, 64.0]),
    beta_slow=st.sampled_from([0.5, 1.0, 2.0]),
)
def test_yarn_random(device, head_dim, base, factor, original, truncate, beta_fast, beta_slow):
    scaling = {
        "rope_type": "yarn",
        "factor": factor,
        "original_max_position_embeddings": original,
        "truncate": truncate,
        "beta_fast": beta_fast,
        "beta_slow": beta_slow,
    }
    compare(device, scaling, head_dim=head_dim, base=base, max_position_embeddings=int(factor * original))


@pytest.mark.parametrize("seq_len", [None, 0, 4096, 4097, 131072])
@pytest.mark.parametrize(
    "extra", [{}, {"factor": 32.0}, {"factor": 1.0}, {"attention_factor": 1.25}], ids=["derived", "f32", "f1", "attn"]
)
def test_longrope_phi3(device, seq_len, extra):
    scaling = {
        "rope_type": "longrope",
        "short_factor": PHI3_SHORT,
        "long_factor": PHI3_LONG,
        "original_max_position_embeddings": 4096,
        **extra,
    }
    compare(device, scaling, head_dim=96, max_position_embeddings=131072, seq_len=seq_len)


@pytest.mark.parametrize(
    ("factor", "low", "high", "original", "base"),
    [
        (8.0, 1.0, 4.0, 8192, 5e5),
        (10.0, 1.0, 4.0, 2048, 1e4),
        (2.0, 1.0, 4.0, 2048, 1e4),
        (32.0, 1.0, 4.0, 8192, 5e5),
        (10.0, 1.0, 1000.0, 2048, 1e4),
        (8.0, 0.5, 8.0, 4096, 1e6),
        (16.0, 1.0, 1.0, 8192, 5e5),  # Llama 4 Scout Instruct: no band to blend in (HF warns, then computes)
    ],
)
def test_llama3(device, factor, low, high, original, base):
    scaling = {
        "rope_type": "llama3",
        "factor": factor,
        "low_freq_factor": low,
        "high_freq_factor": high,
        "original_max_position_embeddings": original,
    }
    compare(device, scaling, base=base, max_position_embeddings=16 * original)


def test_rotary_module_end_to_end():
    """HF's LlamaRotaryEmbedding after its dynamic updates: dynamic NTK grows with the positions, LongRoPE switches
    to long_factor past the original length and back; ours reproduces each state from seq_len alone."""
    dynamic = LlamaRotaryEmbedding(hf_config(128, 1e4, {"rope_type": "dynamic", "factor": 4.0}, 2048))
    longrope_scaling = {
        "rope_type": "longrope",
        "short_factor": PHI3_SHORT,
        "long_factor": PHI3_LONG,
        "original_max_position_embeddings": 4096,
    }
    longrope = LlamaRotaryEmbedding(hf_config(96, 1e4, longrope_scaling, 131072))
    x = torch.zeros(1, 1, 8)
    for module, head_dim, scaling, max_pos, seq_len in [
        (dynamic, 128, {"rope_type": "dynamic", "factor": 4.0}, 2048, 5000),
        (longrope, 96, longrope_scaling, 131072, 5000),
        (longrope, 96, longrope_scaling, 131072, 100),
    ]:
        module(x, torch.arange(seq_len)[None])
        expected, attention = inv_freq(
            head_dim, 1e4, scaling, seq_len=seq_len, max_position_embeddings=max_pos, device="cpu"
        )
        torch.testing.assert_close(module.inv_freq, expected, rtol=1e-6, atol=0)
        assert module.attention_scaling == pytest.approx(attention, rel=1e-12)
