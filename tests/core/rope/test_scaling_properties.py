"""posenc_core.rope.scaling properties (each variant against the default frequencies) and every registry function."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posenc_core.rope.scaling import ROPE_SCALING_FUNCTIONS, default_inv_freq, inv_freq, llama3_ramp
from posenc_core.rope.yarn import yarn_correction_range
from tests.core.rope_scaling_helpers import LLAMA, LLAMA31, phi3_scaling, registry_params, rope

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
dims = st.sampled_from([8, 16, 24, 32, 64, 96, 128, 256])
bases = st.sampled_from([100.0, 1e4, 5e5, 1e6])
factors = st.floats(1.0, 64.0)
lengths = st.sampled_from([64, 512, 2048, 4096, 8192, 32768])


@SETTINGS
@given(dim=dims, base=bases, factor=st.floats(0.1, 64.0))
def test_linear_property(device, dim, base, factor):
    inv, _ = rope({"rope_type": "linear", "factor": factor}, head_dim=dim, base=base, device=device)
    torch.testing.assert_close(inv, default_inv_freq(dim, base, device=device) / factor, rtol=0, atol=0)


@SETTINGS
@given(dim=dims, base=bases, factor=factors, length=lengths, extra=st.integers(0, 10**6))
def test_dynamic_properties(device, dim, base, factor, length, extra):
    """Default up to L; beyond it the lowest frequency is divided by k = factor*s/L - (factor - 1) exactly."""
    scaling = {"rope_type": "dynamic", "factor": factor}
    common = {"head_dim": dim, "base": base, "max_position_embeddings": length, "device": device}
    inside, _ = rope(scaling, seq_len=extra % (length + 1), **common)
    torch.testing.assert_close(inside, default_inv_freq(dim, base, device=device), rtol=0, atol=0)
    seq_len = length + extra
    inv, _ = rope(scaling, seq_len=seq_len, dtype=torch.float64, **common)
    default = default_inv_freq(dim, base, device=device, dtype=torch.float64)
    k = factor * seq_len / length - (factor - 1)
    assert inv[0] == 1.0 and inv[-1].item() == pytest.approx(default[-1].item() / k, rel=1e-9)
    assert bool((inv <= default * (1 + 1e-12)).all())


@SETTINGS
@given(dim=dims, base=bases, factor=st.floats(0.1, 64.0))
def test_ntk_divides_the_lowest_frequency_by_factor(device, dim, base, factor):
    inv, attention = rope(
        {"rope_type": "ntk", "factor": factor}, head_dim=dim, base=base, device=device, dtype=torch.float64
    )
    default = default_inv_freq(dim, base, device=device, dtype=torch.float64)
    assert inv[0] == 1.0 and attention == 1.0
    assert inv[-1].item() == pytest.approx(default[-1].item() / factor, rel=1e-9)


@SETTINGS
@given(dim=dims, base=bases, factor=factors, length=lengths, truncate=st.booleans())
def test_yarn_bracketing_and_ends(device, dim, base, factor, length, truncate):
    """default/factor <= yarn <= default; = default for i <= low and default/factor for i >= high."""
    scaling = {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": length, "truncate": truncate}
    inv, _ = rope(scaling, head_dim=dim, base=base, device=device, dtype=torch.float64)
    default = default_inv_freq(dim, base, device=device, dtype=torch.float64)
    assert bool((inv >= default / factor * (1 - 1e-12)).all() and (inv <= default * (1 + 1e-12)).all())
    low, high = yarn_correction_range(dim, base, length, truncate=truncate)
    index = torch.arange(dim // 2, device=device)
    keep, divide = index <= low, index >= high
    torch.testing.assert_close(inv[keep], default[keep], rtol=1e-12, atol=0)
    torch.testing.assert_close(inv[divide], default[divide] / factor, rtol=1e-12, atol=0)
    assert bool((inv[1:] <= inv[:-1]).all())  # frequencies stay ordered


def test_yarn_huge_beta_fast_interpolates_all_but_first(device):
    """HF test: beta_fast 1000 -> every pair but the first is interpolated, the last 20 fully."""
    scaling = {"rope_type": "yarn", "factor": 10.0, "beta_fast": 1000, "beta_slow": 1}
    inv, _ = rope(scaling, **LLAMA, device=device)
    default = default_inv_freq(128, device=device)
    assert inv[0] == default[0] and bool((inv[1:] < default[1:]).all())
    torch.testing.assert_close(inv[-20:], default[-20:] / 10)


@SETTINGS
@given(
    dim=dims, base=bases, factor=factors, length=lengths, bands=st.sampled_from([(1.0, 4.0), (1.0, 2.0), (0.5, 8.0)])
)
def test_llama3_bracketing_and_bands(device, dim, base, factor, length, bands):
    low, high = bands
    scaling = {**LLAMA31, "factor": factor, "original_max_position_embeddings": length}
    scaling.update(low_freq_factor=low, high_freq_factor=high)
    inv, _ = rope(scaling, head_dim=dim, base=base, device=device, dtype=torch.float64)
    default = default_inv_freq(dim, base, device=device, dtype=torch.float64)
    assert bool((inv >= default / factor * (1 - 1e-12)).all() and (inv <= default * (1 + 1e-12)).all())
    wavelen = 2 * math.pi / default
    torch.testing.assert_close(inv[wavelen < length / high], default[wavelen < length / high], rtol=0, atol=0)
    far = wavelen > length / low
    torch.testing.assert_close(inv[far], default[far] / factor, rtol=1e-12, atol=0)
    ramp = llama3_ramp(dim, base, length, low, high, device=device, dtype=torch.float64)
    assert bool(((ramp >= 0) & (ramp <= 1)).all() and (ramp[1:] >= ramp[:-1]).all())


@pytest.mark.parametrize(
    ("seq_len", "which"), [(None, 1.0), (0, 1.0), (1, 1.0), (4096, 1.0), (4097, 2.0), (10**6, 2.0)]
)
def test_longrope_switches_after_original_length(device, seq_len, which):
    """Newest HF: long_factor only once seq_len > original_max_position_embeddings (dynamic switch)."""
    scaling = phi3_scaling(original_max_position_embeddings=4096)
    inv, _ = rope(scaling, head_dim=96, seq_len=seq_len, max_position_embeddings=131072, device=device)
    torch.testing.assert_close(inv, default_inv_freq(96, device=device) / which, rtol=1e-6, atol=0)


@pytest.mark.parametrize("rope_type", sorted(ROPE_SCALING_FUNCTIONS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("seq_len", [None, 100_000])
def test_every_registry_function(device, rope_type, dtype, seq_len):
    fn = ROPE_SCALING_FUNCTIONS[rope_type]
    inv, attention = fn(
        64, 1e4, registry_params(64), seq_len=seq_len, max_position_embeddings=4096, device=device, dtype=dtype
    )
    assert inv.shape == (32,) and inv.dtype == dtype and inv.device.type == device.type
    assert bool(torch.isfinite(inv).all() and (inv > 0).all())
    assert isinstance(attention, float) and math.isfinite(attention) and attention > 0
    via_dict, same = inv_freq(
        64,
        1e4,
        {"rope_type": rope_type, **registry_params(64)},
        seq_len=seq_len,
        max_position_embeddings=4096,
        device=device,
        dtype=dtype,
    )
    torch.testing.assert_close(via_dict, inv, rtol=0, atol=0)
    assert same == attention
