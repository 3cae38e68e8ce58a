"""posenc_core.rope: the numbers of docs/REFERENCE_NUMBERS.md §1, slow 2x2-rotation oracles written from the paper,
properties, bad arguments."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posenc_core import rope, rope_scaling
from posenc_core.rope import (
    LAYOUTS,
    angles,
    apply,
    channel_pair_index,
    cos_sin,
    layout_permutation,
    relative_scores,
    rotate_every_two,
    rotate_half,
    wavelengths,
)

F64 = torch.float64
DEVICE_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def default_freq(dim, base=10000.0, *, device="cpu", dtype=F64):
    return rope_scaling.default_inv_freq(dim, base, device=device, dtype=dtype)


# --- slow oracles, one loop per formula -------------------------------------------------------------------


def pairs_of(dim, layout):
    """The channels (a, b) of pair i: (2i, 2i+1) interleaved, (i, i + d/2) half."""
    return [(2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + dim // 2) for i in range(dim // 2)]


def rotation_oracle(x, positions, freq, layout, rotary_dim=None, attention_factor=1.0):
    """R(m) x with explicit 2x2 rotations [[cos, -sin], [sin, cos]] of angle m·θ_i per pair (Su et al. eq. 13)."""
    rotary_dim = rotary_dim or 2 * len(freq)
    out = []
    for row, m in zip(x.tolist(), positions, strict=True):
        new = list(row)
        for i, (a, b) in enumerate(pairs_of(rotary_dim, layout)):
            c, s = math.cos(m * freq[i]), math.sin(m * freq[i])
            new[a] = attention_factor * (c * row[a] - s * row[b])
            new[b] = attention_factor * (s * row[a] + c * row[b])
        out.append(new)
    return torch.tensor(out, dtype=F64)


def meta_complex_oracle(x, positions, freq):
    """Meta llama ``apply_rotary_emb``: view pairs (2i, 2i+1) as complex numbers, multiply by polar(1, m·θ_i)."""
    theta = torch.outer(torch.tensor(positions, dtype=F64), torch.tensor(freq, dtype=F64))
    rotated = torch.view_as_complex(x.reshape(x.shape[0], -1, 2).contiguous()) * torch.polar(
        torch.ones_like(theta), theta
    )
    return torch.view_as_real(rotated).flatten(-2)


def score_oracle(q, k, m, n, freq, layout):
    """(R_m q)·(R_n k) by rotating both with the 2x2 loop and summing the products."""
    rq = rotation_oracle(q[None], [m], freq, layout)[0]
    rk = rotation_oracle(k[None], [n], freq, layout)[0]
    rest = q.shape[0] - 2 * len(freq)
    tail = float(q[-rest:] @ k[-rest:]) if rest else 0.0
    return float(rq[: 2 * len(freq)] @ rk[: 2 * len(freq)]) + tail


# --- reference numbers (§1) -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        ("interleaved", [-1.1426396, 1.9220755, 2.9598505, 4.0297995]),
        ("half", [-1.9841106, 1.9599006, 2.4623780, 4.0197997]),
    ],
)
def test_spec_vector_x_1234_at_position_1(device, layout, expected):
    freq, attention_factor = rope.inv_freq(4, 10000.0, device=device)
    assert attention_factor == 1.0
    torch.testing.assert_close(freq.cpu(), torch.tensor([1.0, 0.01]))  # input sanity
    out = apply(torch.tensor([[1.0, 2.0, 3.0, 4.0]], device=device), [1], freq, layout=layout)
    torch.testing.assert_close(out.cpu(), torch.tensor([expected]), rtol=0, atol=1e-6)


def test_spec_inv_freq_and_wavelengths_through_the_reexport():
    freq, _ = rope.inv_freq(128, 10000.0, device="cpu")
    torch.testing.assert_close(freq[[0, 1, 16, 63]], torch.tensor([1.0, 0.86596, 0.1, 1.1548e-4]), rtol=1e-4, atol=0)
    assert wavelengths(freq)[-1].item() == pytest.approx(54410.1, rel=1e-5)
    assert rope.inv_freq is rope_scaling.inv_freq


def test_spec_wavelength_per_channel_uses_the_pair_index():
    """docs/REFERENCE_NUMBERS.md §9(d): d = 128, channels 0, 1, 2, 126, 127 (interleaved) -> 6.283, 6.283, 7.256,
    5.441e4, 5.441e4."""
    per_channel = wavelengths(default_freq(128))[channel_pair_index(128, "interleaved", device="cpu")]
    torch.testing.assert_close(
        per_channel[[0, 1, 2, 126, 127]],
        torch.tensor([6.283, 6.283, 7.256, 5.441e4, 5.441e4], dtype=F64),
        rtol=2e-4,
        atol=0,
    )


@pytest.mark.parametrize("layout", LAYOUTS)
def test_spec_relative_property(device, layout):
    q, k = torch.randn(2, 64, dtype=F64, generator=torch.Generator().manual_seed(0)).to(device)
    freq = default_freq(64, device=device)
    near = relative_scores(q, k, [5], freq, key_positions=[3], layout=layout)
    far = relative_scores(q, k, [12], freq, key_positions=[10], layout=layout)
    torch.testing.assert_close(near, far, rtol=1e-12, atol=1e-12)


# --- oracles ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [2, 4, 8, 64])
@pytest.mark.parametrize("base", [10.0, 10000.0, 500000.0])
def test_apply_matches_the_2x2_rotation_loop(device, layout, dim, base):
    positions = [0, 1, 7, 1000, 123456]
    x = torch.randn(len(positions), dim, dtype=F64, generator=torch.Generator().manual_seed(dim))
    freq = default_freq(dim, base)
    out = apply(x.to(device), positions, freq.to(device), layout=layout)
    torch.testing.assert_close(out.cpu(), rotation_oracle(x, positions, freq.tolist(), layout), rtol=1e-9, atol=1e-9)


def test_interleaved_matches_metas_complex_form():
    positions = [0, 3, 99, 4096]
    x = torch.randn(4, 16, dtype=F64, generator=torch.Generator().manual_seed(1))
    freq = default_freq(16)
    expected = meta_complex_oracle(x, positions, freq.tolist())
    torch.testing.assert_close(apply(x, positions, freq, layout="interleaved"), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_float32_path_matches_the_oracle_and_keeps_the_dtype(device, layout):
    x = torch.randn(3, 8, generator=torch.Generator().manual_seed(2))
    out = apply(x.to(device), [0, 5, 50], default_freq(8, device=device, dtype=torch.float32), layout=layout)
    assert out.dtype == torch.float32 and out.device.type == device.type
    expected = rotation_oracle(x.double(), [0, 5, 50], default_freq(8).tolist(), layout).float()
    torch.testing.assert_close(out.cpu(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_partial_rotary_gpt_neox_20b_shape(device, layout):
    """GPT-NeoX-20B: head 96, rotary_pct 0.25 -> 24 rotated channels, exponent denominator 24 (§1.3)."""
    freq, _ = rope.inv_freq(96, 10000.0, partial_rotary_factor=0.25, device=device, dtype=F64)
    assert freq.numel() == 12 and freq[1].item() == pytest.approx(10000 ** (-2 / 24))
    x = torch.randn(2, 5, 96, dtype=F64, generator=torch.Generator().manual_seed(3)).to(device)
    out = apply(x, range(5), freq, layout=layout, rotary_dim=24)
    assert torch.equal(out[..., 24:], x[..., 24:])
    expected = rotation_oracle(x[1, :, :24].cpu(), range(5), freq.tolist(), layout)
    torch.testing.assert_close(out[1, :, :24].cpu(), expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_relative_scores_match_the_loop_and_pass_through_channels(device, layout):
    q, k = torch.randn(2, 12, dtype=F64, generator=torch.Generator().manual_seed(4))
    freq = default_freq(8)  # rotary 8 of head 12: 4 pass-through channels add a constant q·k term
    m, n = [0, 3, 1000], [0, 2, 7, 50000]
    scores = relative_scores(q.to(device), k.to(device), m, freq.to(device), key_positions=n, layout=layout)
    expected = torch.tensor([[score_oracle(q, k, a, b, freq.tolist(), layout) for b in n] for a in m], dtype=F64)
    torch.testing.assert_close(scores.cpu(), expected, rtol=1e-9, atol=1e-9)


def test_relative_scores_on_sampled_positions_over_a_million(device):
    positions = torch.linspace(0, 1_000_000, 1000).round().to(torch.int64)
    q, k = torch.randn(2, 128, generator=torch.Generator().manual_seed(5)).to(device)
    scores = relative_scores(q, k, positions, default_freq(128, device=device, dtype=torch.float32))
    assert scores.shape == (1000, 1000) and bool(torch.isfinite(scores).all())
    torch.testing.assert_close(scores.diagonal(), (q @ k).expand(1000), rtol=1e-4, atol=1e-3)  # R_m q·R_m k = q·k


# --- properties -------------------------------------------------------------------------------------------

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


# --- tables and helpers -----------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cos_sin_layouts_and_factor(device, layout):
    freq = default_freq(6, device=device)
    cos, sin = cos_sin([0, 2, 5], freq, attention_factor=2.0, layout=layout, device=device, dtype=F64)
    assert cos.shape == sin.shape == (3, 6) and cos.dtype == F64 and cos.device.type == device.type
    theta = angles([0, 2, 5], freq)
    expanded = torch.cat((theta, theta), -1) if layout == "half" else theta.repeat_interleave(2, -1)
    torch.testing.assert_close(cos, 2.0 * expanded.cos(), rtol=0, atol=1e-15)
    torch.testing.assert_close(sin, 2.0 * expanded.sin(), rtol=0, atol=1e-15)
    pair = channel_pair_index(6, layout, device=device)
    torch.testing.assert_close(cos, 2.0 * theta[:, pair].cos(), rtol=0, atol=1e-15)


def test_angles_shape_and_precision(device):
    freq32 = default_freq(8, device=device, dtype=torch.float32)
    assert angles([0, 1, 2], freq32).dtype == torch.float32
    theta = angles(torch.tensor([1e6, -3.5], dtype=F64), freq32)
    assert theta.shape == (2, 4) and theta.dtype == F64
    assert theta[0, 0].item() == 1e6 and theta[1, 0].item() == -3.5
    assert angles(torch.arange(5, device=device), freq32)[4, 1].item() == pytest.approx(4 * 0.1)


def test_channel_pair_index_and_permutation():
    assert channel_pair_index(8, "interleaved", device="cpu").tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert channel_pair_index(8, "half", device="cpu").tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    assert layout_permutation(8, device="cpu").tolist() == [0, 2, 4, 6, 1, 3, 5, 7]
    assert rotate_half(torch.tensor([1.0, 2.0, 3.0, 4.0])).tolist() == [-3.0, -4.0, 1.0, 2.0]
    assert rotate_every_two(torch.tensor([1.0, 2.0, 3.0, 4.0])).tolist() == [-2.0, 1.0, -4.0, 3.0]


# --- bad arguments ----------------------------------------------------------------------------------------

FREQ = default_freq(4)
X = torch.zeros(2, 6, dtype=F64)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: apply(X, [0, 1], FREQ, rotary_dim=3), "rotary_dim"),
        (lambda: apply(X, [0, 1], FREQ, rotary_dim=8), "rotary_dim"),
        (lambda: apply(X, [0, 1], FREQ, rotary_dim=6), "rotary_dim"),  # != 2 * len(inv_freq)
        (lambda: apply(X, [0, 1], default_freq(8)), "rotary_dim"),  # 8 rotary channels > head_dim 6
        (lambda: apply(X, [0], FREQ), "positions"),
        (lambda: apply(X, [0, float("nan")], FREQ), "positions"),
        (lambda: apply(X, [[0, 1]], FREQ), "positions"),
        (lambda: apply(X, "ab", FREQ), "positions"),
        (lambda: apply(X, [0, 1], FREQ, layout="gptj"), "layout"),
        (lambda: apply(X, [0, 1], FREQ, attention_factor=0.0), "attention_factor"),
        (lambda: apply(X, [0, 1], FREQ, attention_factor=float("nan")), "attention_factor"),
        (lambda: apply(X.long(), [0, 1], FREQ), "x"),
        (lambda: apply([[0.0, 1.0]], [0], FREQ), "x"),
        (lambda: apply(X, [0, 1], torch.tensor([1.0, float("nan")])), "inv_freq"),
        (lambda: apply(X, [0, 1], torch.tensor([1, 2])), "inv_freq"),
        (lambda: apply(X, [0, 1], torch.tensor([])), "inv_freq"),
        (lambda: cos_sin([0], FREQ, dtype=torch.float16), "dtype"),
        (lambda: cos_sin([0], FREQ, device="tpu"), "device"),
        (lambda: angles([True, False], FREQ), "positions"),
        (lambda: rotate_half(torch.zeros(3)), "x"),
        (lambda: rotate_every_two(torch.zeros(2, 5)), "x"),
        (lambda: layout_permutation(3), "dim"),
        (lambda: channel_pair_index(0, "half"), "dim"),
        (lambda: channel_pair_index(4, "t2t"), "layout"),
        (lambda: relative_scores(torch.zeros(4), torch.zeros(6), [0], FREQ), "q and k"),
        (lambda: relative_scores(torch.zeros(2, 4), torch.zeros(2, 4), [0], FREQ), "q"),
        (lambda: relative_scores(torch.zeros(4), torch.zeros(4), [0], FREQ, key_positions=[math.inf]), "key_positions"),
    ],
)
def test_bad_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
