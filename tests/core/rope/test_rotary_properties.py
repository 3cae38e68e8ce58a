"""posenc_core.rope properties: norms kept, scores depend on m - n only, half = interleaved permuted, partial rotary."""

from __future__ import annotations

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posenc_core.rope import LAYOUTS, apply, layout_permutation, relative_scores, rotate_every_two, rotate_half
from tests.core.rope_helpers import F64, default_freq

DEVICE_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
dims = st.sampled_from([2, 4, 8, 16, 64, 128])
bases = st.sampled_from([2.0, 100.0, 10000.0, 1e6])
positions_st = st.lists(st.integers(-(10**6), 10**6), min_size=1, max_size=6)


@DEVICE_SETTINGS
@given(dim=dims, base=bases, positions=positions_st, layout=st.sampled_from(LAYOUTS), seed=st.integers(0, 99))
def test_rotation_preserves_norms(device, dim, base, positions, layout, seed):
    x = torch.randn(len(positions), dim, dtype=F64, generator=torch.Generator().manual_seed(seed)).to(device)
    out = apply(x, positions, default_freq(dim, base, device=device), layout=layout)
    torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1), rtol=1e-12, atol=1e-12)


@DEVICE_SETTINGS
@given(
    dim=dims,
    base=bases,
    m=st.integers(0, 10**6),
    n=st.integers(0, 10**6),
    shift=st.integers(-(10**5), 10**5),
    layout=st.sampled_from(LAYOUTS),
)
def test_relative_score_depends_only_on_m_minus_n(device, dim, base, m, n, shift, layout):
    q, k = torch.randn(2, dim, dtype=F64, generator=torch.Generator().manual_seed(dim)).to(device)
    freq = default_freq(dim, base, device=device)
    here = relative_scores(q, k, [m], freq, key_positions=[n], layout=layout)
    there = relative_scores(q, k, [m + shift], freq, key_positions=[n + shift], layout=layout)
    torch.testing.assert_close(here, there, rtol=1e-8, atol=1e-8)


@DEVICE_SETTINGS
@given(dim=dims, positions=positions_st, seed=st.integers(0, 99))
def test_half_layout_is_the_interleaved_layout_permuted(device, dim, positions, seed):
    """rotate_half(P x) == P rotate_every_two(x) and apply(x[P], half) == apply(x, interleaved)[P] (§1.2)."""
    perm = layout_permutation(dim, device=device)
    x = torch.randn(len(positions), dim, dtype=F64, generator=torch.Generator().manual_seed(seed)).to(device)
    torch.testing.assert_close(rotate_half(x[..., perm]), rotate_every_two(x)[..., perm], rtol=0, atol=0)
    freq = default_freq(dim, device=device)
    half = apply(x[..., perm], positions, freq, layout="half")
    torch.testing.assert_close(half, apply(x, positions, freq, layout="interleaved")[..., perm], rtol=1e-12, atol=1e-12)


@DEVICE_SETTINGS
@given(
    rotary_pairs=st.integers(1, 8),
    extra=st.integers(0, 9),
    layout=st.sampled_from(LAYOUTS),
    factor=st.floats(0.1, 3.0),
    seed=st.integers(0, 99),
)
def test_partial_rotary_and_attention_factor(device, rotary_pairs, extra, layout, factor, seed):
    rotary_dim = 2 * rotary_pairs
    x = torch.randn(3, 4, rotary_dim + extra, dtype=F64, generator=torch.Generator().manual_seed(seed)).to(device)
    freq = default_freq(rotary_dim, device=device)
    plain = apply(x, [0, 1, 2, 3], freq, layout=layout, rotary_dim=rotary_dim)
    scaled = apply(x, [0, 1, 2, 3], freq, layout=layout, attention_factor=factor)
    assert torch.equal(plain[..., rotary_dim:], x[..., rotary_dim:])  # pass-through untouched
    assert torch.equal(scaled[..., rotary_dim:], x[..., rotary_dim:])  # HF scales cos/sin only
    torch.testing.assert_close(scaled[..., :rotary_dim], factor * plain[..., :rotary_dim], rtol=1e-12, atol=1e-12)


def test_attention_factor_scales_scores_by_its_square():
    q, k = torch.randn(2, 16, dtype=F64, generator=torch.Generator().manual_seed(6))
    freq = default_freq(16)
    plain = relative_scores(q, k, [0, 9], freq, key_positions=[4])
    scaled = relative_scores(q, k, [0, 9], freq, key_positions=[4], attention_factor=1.2965)
    torch.testing.assert_close(scaled, 1.2965**2 * plain, rtol=1e-12, atol=1e-12)
