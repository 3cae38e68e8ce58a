"""posenc_core.rope.yarn (the YaRN helpers the scaling variants and the app use): docs/REFERENCE_NUMBERS.md §2.3-2.4
numbers,
properties (the ramp's polarity against the paper's rotations r = L/λ), bad arguments."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from posenc_core.rope.yarn import (
    attention_logit_multiplier,
    get_mscale,
    linear_ramp,
    yarn_attention_factor,
    yarn_correction_dim,
    yarn_correction_range,
    yarn_ramp,
    yarn_softmax_scale,
)

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("scale", "mscale", "expected"),
    [
        (0.5, 1.0, 1.0),
        (1.0, 1.0, 1.0),
        (4.0, 1.0, 1.1386294),
        (10.0, 1.0, 1.230259),
        (40.0, 1.0, 1.3688879),
        (40.0, 0.707, 1.2608038),
        (40.0, 0.0, 1.0),
    ],
)
def test_get_mscale(scale, mscale, expected):
    assert get_mscale(scale, mscale) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("factor", "mscale", "mscale_all_dim", "expected"),
    [
        (40.0, 1.0, 1.0, 1.0),  # DeepSeek-V3
        (40.0, 0.707, 0.707, 1.0),  # DeepSeek-V2 / V2-Lite
        (40.0, 1.0, None, 1.3688879),  # one of the two unset: plain get_mscale(factor)
        (40.0, 1.0, 0.0, 1.3688879),  # HF tests truthiness: 0 counts as unset
        (40.0, 1.0, 0.707, 1.3688879 / 1.2608038),
        (4.0, None, None, 1.1386294),
        (0.5, 1.0, 0.707, 1.0),
    ],
)
def test_yarn_attention_factor(factor, mscale, mscale_all_dim, expected):
    assert yarn_attention_factor(factor, mscale, mscale_all_dim) == pytest.approx(expected, abs=1e-6)


def test_logit_multiplier_and_deepseek_softmax_scale():
    assert attention_logit_multiplier(1.1386294361) == pytest.approx(1.2964770, abs=1e-7)
    assert yarn_softmax_scale(192, 40.0, 1.0) == pytest.approx(0.1352338, abs=1e-7)  # DeepSeek-V3
    assert yarn_softmax_scale(192, 40.0, 0.707) == pytest.approx(0.1147214, abs=1e-7)  # DeepSeek-V2
    assert yarn_softmax_scale(192, 40.0) == 192**-0.5
    assert yarn_softmax_scale(128, 1.0, 1.0) == 128**-0.5


def test_correction_ranges_of_the_presets():
    assert yarn_correction_range(128, 1e4, 2048) == (16.0, 41.0)
    assert yarn_correction_range(128, 1e4, 4096) == (20.0, 46.0)
    assert yarn_correction_range(128, 1e4, 4096, truncate=False) == pytest.approx((20.94448, 45.02688), abs=1e-5)
    assert yarn_correction_range(128, 1e6, 32768) == (23.0, 40.0)
    assert yarn_correction_range(64, 1e4, 4096) == (10.0, 23.0)
    assert all(isinstance(value, float) for value in yarn_correction_range(64, 1e4, 4096))


def test_correction_range_is_clamped_to_zero_and_dim_minus_one():
    assert yarn_correction_range(64, 1e4, 8)[0] == 0.0  # tiny context: even pair 0 turns < 32 times
    assert yarn_correction_range(64, 2.0, 10**9)[1] == 63.0  # HF clamps high to dim - 1 (not dim/2 - 1)


def test_correction_range_of_a_subnormal_beta_slow_is_clamped_not_an_overflow():
    # L / (2π β) overflows to inf for β = 1e-320; the range must still be the clamped one: every pair above
    # the fast bound is divided (high = dim - 1), as for any β_slow small enough.
    assert yarn_correction_range(128, 1e4, 4096, beta_slow=1e-320) == (20.0, 127.0)
    assert yarn_correction_range(128, 1e4, 4096, beta_slow=1e-320) == yarn_correction_range(
        128, 1e4, 4096, beta_slow=1e-9
    )
    assert bool((yarn_ramp(128, 1e4, 4096, beta_slow=1e-320)[21:] > 0).all())


def test_ramp_dim128_L4096(device):
    ramp = yarn_ramp(128, 1e4, 4096, device=device)
    assert ramp.shape == (64,) and ramp.dtype == torch.float32 and ramp.device.type == device.type
    assert bool((ramp[:21] == 0).all() and (ramp[46:] == 1).all())
    torch.testing.assert_close(ramp[21:46], (torch.arange(21, 46, device=device) - 20.0) / 26, rtol=1e-6, atol=0)
    smooth = yarn_ramp(128, 1e4, 4096, truncate=False, device=device, dtype=torch.float64)
    assert smooth.dtype == torch.float64
    assert smooth[20] == 0 and smooth[21].item() == pytest.approx((21 - 20.94448162) / (45.02688127 - 20.94448162))


def test_linear_ramp_equal_ends_becomes_a_step(device):
    ramp = linear_ramp(3.0, 3.0, 6, device=device)
    torch.testing.assert_close(ramp, torch.tensor([0, 0, 0, 0, 1, 1.0], device=device), rtol=0, atol=0)


# ---------------------------------------------------------------- properties

dims = st.sampled_from([8, 16, 32, 64, 96, 128, 256])
bases = st.sampled_from([100.0, 1e4, 5e5, 1e6])
lengths = st.sampled_from([16, 256, 2048, 4096, 32768, 10**6])
betas = st.tuples(st.floats(1.5, 256.0), st.floats(0.05, 1.4))


@SETTINGS
@given(dim=dims, base=bases, length=lengths, rotations=st.floats(0.01, 1000.0))
def test_correction_dim_is_where_the_context_holds_that_many_turns(dim, base, length, rotations):
    index = yarn_correction_dim(dim, base, length, rotations)
    wavelength = 2 * math.pi * base ** (2 * index / dim)
    assert length / wavelength == pytest.approx(rotations, rel=1e-9)


@SETTINGS
@given(dim=dims, base=bases, length=lengths, beta=betas, truncate=st.booleans())
def test_ramp_polarity_matches_the_paper(device, dim, base, length, beta, truncate):
    """YaRN paper: keep pairs with r = L/λ >= beta_fast, interpolate those with r <= beta_slow (§9 c)."""
    beta_fast, beta_slow = beta
    low, high = yarn_correction_range(dim, base, length, beta_fast, beta_slow, truncate=truncate)
    assume(low <= high)  # else HF's clamp flips the ramp: see test_degenerate_range_follows_hf
    ramp = yarn_ramp(dim, base, length, beta_fast, beta_slow, truncate=truncate, device=device, dtype=torch.float64)
    assert ramp.shape == (dim // 2,) and bool(((ramp >= 0) & (ramp <= 1)).all())
    rotations = torch.tensor(
        [length / (2 * math.pi * base ** (2 * i / dim)) for i in range(dim // 2)], dtype=torch.float64, device=device
    )
    assert bool((ramp[rotations >= beta_fast * (1 + 1e-9)] == 0).all())
    assert bool((ramp[rotations <= beta_slow * (1 - 1e-9)] == 1).all())
    assert bool((ramp[1:] >= ramp[:-1]).all())


def test_degenerate_range_follows_hf(device):
    """HF quirk, kept for parity: when every pair turns > beta_fast times in L (low clamps above high = dim - 1),
    the clamped range is reversed and every pair is interpolated; when every pair turns < beta_slow times (high < 0,
    low clamps to 0), every pair is kept. The paper would do the opposite in both cases."""
    assert yarn_correction_range(8, 100.0, 10**6, 2.0, 1.0) == (9.0, 7.0)
    assert bool((yarn_ramp(8, 100.0, 10**6, 2.0, 1.0, device=device) == 1).all())
    low, high = yarn_correction_range(8, 1e4, 2, truncate=False)
    assert low == 0.0 and high < 0
    assert bool((yarn_ramp(8, 1e4, 2, truncate=False, device=device) == 0).all())


@SETTINGS
@given(dim=dims, base=bases, length=lengths, beta=betas)
def test_truncation_widens_the_range(dim, base, length, beta):
    exact = yarn_correction_range(dim, base, length, *beta, truncate=False)
    low, high = yarn_correction_range(dim, base, length, *beta)
    assert low == max(math.floor(exact[0]), 0) or low == 0
    assert low <= max(exact[0], 0) and high >= min(exact[1], dim - 1)


# ---------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: get_mscale(0.0), "scale"),
        (lambda: get_mscale(float("nan")), "scale"),
        (lambda: get_mscale(2.0, -1.0), "mscale"),
        (lambda: attention_logit_multiplier(0.0), "attention_factor"),
        (lambda: yarn_softmax_scale(0, 40.0, 1.0), "q_head_dim"),
        (lambda: yarn_softmax_scale(192, -1.0, 1.0), "scale"),
        (lambda: yarn_correction_dim(128, 1.0, 4096, 32.0), "base"),
        (lambda: yarn_correction_dim(128, 1e4, 0, 32.0), "original_max_position_embeddings"),
        (lambda: yarn_correction_dim(128, 1e4, 4096, 0.0), "rotations"),
        (lambda: yarn_correction_dim(1, 1e4, 4096, 1.0), "dim"),
        (lambda: yarn_correction_range(128, 1e4, 4096, 1.0, 32.0), "beta_fast must be > beta_slow"),
        (lambda: yarn_correction_range(128, 1e4, 4096, 32.0, 32.0), "beta_fast"),
        (lambda: yarn_correction_range(128, 1e4, 4096, 32.0, 0.0), "beta_slow"),
        (lambda: yarn_correction_range(128, 1e4, 4096, truncate=1), "truncate"),
        (lambda: yarn_ramp(128, 1e4, 4096, dtype=torch.bfloat16), "dtype"),
        (lambda: linear_ramp(0.0, 1.0, 0), "n"),
        (lambda: linear_ramp(float("nan"), 1.0, 4), "low"),
    ],
)
def test_bad_arguments_name_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()
