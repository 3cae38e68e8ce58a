"""Slow oracles for posenc_core.rope.scaling: a Python loop over the frequency pairs with math.* in float64, written
straight from each paper / reference implementation, against the vectorised code (float64 tight, float32 to
float32 precision) over many parameter combinations."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posenc_core.rope.scaling import ROPE_SCALING_FUNCTIONS, inv_freq

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# float32: base**(2i/d) loses ~ln(base) * 6e-8 relative, and YaRN's blend adds a few ulp more
RTOL = {torch.float64: 1e-12, torch.float32: 1e-5}

dims = st.sampled_from([4, 8, 16, 24, 32, 64, 80, 96, 128, 256])
bases = st.sampled_from([10.0, 500.0, 1e4, 5e5, 1e6, 1e7])
factors = st.floats(0.25, 128.0)
lengths = st.sampled_from([128, 2048, 4096, 8192, 32768, 131072])
dtypes = st.sampled_from([torch.float32, torch.float64])


def theta(i: int, dim: int, base: float) -> float:
    """Su et al. 2021 (RoFormer, eq. 15): θ_i = base^(-2(i-1)/d) for i = 1..d/2, here 0-based."""
    return base ** (-2 * i / dim)


def oracle_linear(dim, base, factor):
    """kaiokendev / Chen et al. 2023 (PI): positions m -> m / s, i.e. θ_i / s."""
    return [theta(i, dim, base) / factor for i in range(dim // 2)], 1.0


def oracle_ntk(dim, base, factor):
    """bloc97's NTK-aware scaling: base' = base * s^(d / (d - 2))."""
    scaled = base * factor ** (dim / (dim - 2))
    return [theta(i, dim, scaled) for i in range(dim // 2)], 1.0


def oracle_dynamic(dim, base, factor, seq_len, max_position_embeddings):
    """emozilla's dynamic NTK: the NTK base with s = factor * seq_len / L - (factor - 1), only once seq_len > L."""
    length = max_position_embeddings
    seq_len = length if seq_len is None or seq_len < length else seq_len
    scaled = base * (factor * seq_len / length - (factor - 1)) ** (dim / (dim - 2))
    return [theta(i, dim, scaled) for i in range(dim // 2)], 1.0


def oracle_yarn(dim, base, factor, length, beta_fast, beta_slow, truncate, mscale, mscale_all_dim):
    """YaRN (Peng et al. 2023, sec. 3.2-3.4, and its code jquesnelle/yarn): pair i keeps θ_i when the original
    context holds >= beta_fast turns of it, uses θ_i / s when it holds <= beta_slow turns, and ramps linearly
    in the pair index between the two correction dims; cos and sin are scaled by 0.1 ln s + 1."""

    def correction_dim(turns):  # solve L / (2π base^(2i/d)) = turns for i
        return dim * math.log(length / (turns * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    out = []
    for i in range(dim // 2):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)
        out.append(theta(i, dim, base) * (1 - ramp) + theta(i, dim, base) / factor * ramp)

    def temperature(scale, m=1.0):
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

    if mscale and mscale_all_dim:  # DeepSeek-V2: yarn_get_mscale(s, mscale) / yarn_get_mscale(s, mscale_all_dim)
        return out, temperature(factor, mscale) / temperature(factor, mscale_all_dim)
    return out, temperature(factor)


def oracle_longrope(dim, base, short_factor, long_factor, seq_len, length, factor):
    """LongRoPE (Ding et al. 2024) as Phi-3 runs it: θ_i / λ_i with the long rescale factors beyond L, and
    cos/sin scaled by sqrt(1 + ln s / ln L)."""
    rescale = long_factor if seq_len is not None and seq_len > length else short_factor
    out = [theta(i, dim, base) / rescale[i] for i in range(dim // 2)]
    return out, 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(length))


def oracle_llama3(dim, base, factor, low_freq_factor, high_freq_factor, length):
    """Meta llama-models ``apply_scaling`` (Llama 3.1), loop form."""
    low_freq_wavelen, high_freq_wavelen = length / low_freq_factor, length / high_freq_factor
    out = []
    for i in range(dim // 2):
        freq = theta(i, dim, base)
        wavelen = 2 * math.pi / freq
        if wavelen < high_freq_wavelen:
            out.append(freq)
        elif wavelen > low_freq_wavelen:
            out.append(freq / factor)
        else:
            smooth = (length / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            out.append((1 - smooth) * freq / factor + smooth * freq)
    return out, 1.0


def check(actual, expected, dtype) -> None:
    inv, attention = actual
    values, expected_attention = expected
    reference = torch.tensor(values, dtype=torch.float64, device=inv.device).to(dtype)
    assert inv.dtype == dtype
    torch.testing.assert_close(inv, reference, rtol=RTOL[dtype], atol=0)
    assert attention == pytest.approx(expected_attention, rel=1e-12)


@SETTINGS
@given(dim=dims, base=bases, factor=factors, dtype=dtypes)
def test_linear_and_ntk_match_loops(device, dim, base, factor, dtype):
    common = {"device": device, "dtype": dtype}
    check(
        inv_freq(dim, base, {"rope_type": "linear", "factor": factor}, **common),
        oracle_linear(dim, base, factor),
        dtype,
    )
    if base * factor ** (dim / (dim - 2)) > 1:
        check(
            inv_freq(dim, base, {"rope_type": "ntk", "factor": factor}, **common), oracle_ntk(dim, base, factor), dtype
        )
    else:
        with pytest.raises(ValueError, match="factor"):
            inv_freq(dim, base, {"rope_type": "ntk", "factor": factor}, **common)


@SETTINGS
@given(
    dim=dims.filter(lambda d: d > 2),
    base=bases,
    factor=factors,
    length=lengths,
    seq=st.integers(0, 10**6),
    dtype=dtypes,
)
def test_dynamic_matches_loop(device, dim, base, factor, length, seq, dtype):
    actual = inv_freq(
        dim,
        base,
        {"type": "dynamic", "factor": factor},
        seq_len=seq,
        max_position_embeddings=length,
        device=device,
        dtype=dtype,
    )
    check(actual, oracle_dynamic(dim, base, factor, seq, length), dtype)


@SETTINGS
@given(
    dim=dims,
    base=bases,
    factor=factors,
    length=lengths,
    beta=st.tuples(st.sampled_from([8.0, 16.0, 32.0, 64.0, 1000.0]), st.sampled_from([0.5, 1.0, 2.0])),
    truncate=st.booleans(),
    mscales=st.sampled_from([(None, None), (1.0, 1.0), (0.707, 0.707), (1.0, 0.707), (1.0, None), (1.0, 0.0)]),
    dtype=dtypes,
)
def test_yarn_matches_loop(device, dim, base, factor, length, beta, truncate, mscales, dtype):
    scaling = {
        "rope_type": "yarn",
        "factor": factor,
        "original_max_position_embeddings": length,
        "beta_fast": beta[0],
        "beta_slow": beta[1],
        "truncate": truncate,
        "mscale": mscales[0],
        "mscale_all_dim": mscales[1],
    }
    actual = inv_freq(dim, base, scaling, max_position_embeddings=4 * length, device=device, dtype=dtype)
    check(actual, oracle_yarn(dim, base, factor, length, *beta, truncate, *mscales), dtype)


@SETTINGS
@given(
    dim=dims,
    base=bases,
    length=lengths,
    ratio=st.sampled_from([1, 2, 16, 32]),
    seq=st.one_of(st.none(), st.integers(0, 300_000)),
    data=st.data(),
    dtype=dtypes,
)
def test_longrope_matches_loop(device, dim, base, length, ratio, seq, data, dtype):
    rescale = st.lists(st.floats(0.5, 64.0), min_size=dim // 2, max_size=dim // 2)
    short_factor, long_factor = data.draw(rescale), data.draw(rescale)
    scaling = {
        "rope_type": "longrope",
        "short_factor": short_factor,
        "long_factor": long_factor,
        "original_max_position_embeddings": length,
    }
    actual = inv_freq(
        dim, base, scaling, seq_len=seq, max_position_embeddings=ratio * length, device=device, dtype=dtype
    )
    check(actual, oracle_longrope(dim, base, short_factor, long_factor, seq, length, float(ratio)), dtype)


@SETTINGS
@given(
    dim=dims,
    base=bases,
    factor=factors,
    length=lengths,
    bands=st.sampled_from([(1.0, 4.0), (1.0, 2.0), (0.5, 8.0), (2.0, 32.0)]),
    dtype=dtypes,
)
def test_llama3_matches_meta_loop(device, dim, base, factor, length, bands, dtype):
    scaling = {
        "rope_type": "llama3",
        "factor": factor,
        "low_freq_factor": bands[0],
        "high_freq_factor": bands[1],
        "original_max_position_embeddings": length,
    }
    check(
        inv_freq(dim, base, scaling, device=device, dtype=dtype),
        oracle_llama3(dim, base, factor, *bands, length),
        dtype,
    )


@pytest.mark.parametrize("dim", [2, 4, 6, 64, 128])
@pytest.mark.parametrize("base", [2.0, 1e4, 1e6])
def test_default_matches_loop(device, dim, base):
    for dtype in (torch.float32, torch.float64):
        fn = ROPE_SCALING_FUNCTIONS["default"]
        actual = fn(dim, base, {}, seq_len=None, max_position_embeddings=None, device=device, dtype=dtype)
        check(actual, ([theta(i, dim, base) for i in range(dim // 2)], 1.0), dtype)
