"""posenc_core.sinusoidal: docs/REFERENCE_NUMBERS.md §7 numbers, slow oracles written from the papers, properties,
bad arguments."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posenc_core import sinusoidal
from posenc_core.sinusoidal import (
    LAYOUTS,
    channel_pair_index,
    encoding,
    inv_freq,
    linear_map,
    relative_similarity,
    wavelengths,
)

F64 = torch.float64
DEVICE_SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


# --- slow oracles, one loop per formula -------------------------------------------------------------------


def vaswani_oracle(positions, d, base=10000.0):
    """PE(p, 2i) = sin(p / base^(2i/d)), PE(p, 2i+1) = cos(p / base^(2i/d)) (Vaswani et al. 2017 §3.5)."""
    table = []
    for p in positions:
        row = []
        for j in range(d):
            angle = p / base ** (2 * (j // 2) / d)
            row.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
        table.append(row)
    return torch.tensor(table, dtype=F64)


def marian_oracle(positions, d, base=10000.0):
    """Same angles; sin(angle[:, 0::2]) in the first ceil(d/2) channels, cos(angle[:, 1::2]) after (HF Marian)."""
    sentinel = d // 2 if d % 2 == 0 else d // 2 + 1
    table = []
    for p in positions:
        row = [0.0] * d
        for j in range(d):
            angle = p / base ** (2 * (j // 2) / d)
            if j % 2 == 0:
                row[j // 2] = math.sin(angle)
            else:
                row[sentinel + j // 2] = math.cos(angle)
        table.append(row)
    return torch.tensor(table, dtype=F64)


def t2t_oracle(positions, d, base=10000.0):
    """inv_timescale_i = exp(-i·ln(max/min)/(d//2 - 1)), min 1, max base; [sin..., cos...], odd d zero-padded
    (tensor2tensor get_timing_signal_1d, fairseq get_embedding)."""
    half = d // 2
    increment = math.log(base / 1.0) / (half - 1)
    table = []
    for p in positions:
        scaled = [p * 1.0 * math.exp(-i * increment) for i in range(half)]
        row = [math.sin(a) for a in scaled] + [math.cos(a) for a in scaled] + [0.0] * (d % 2)
        table.append(row)
    return torch.tensor(table, dtype=F64)


ORACLES = {"interleaved": vaswani_oracle, "half": marian_oracle, "t2t": t2t_oracle}


# --- reference numbers (§7) -----------------------------------------------------------------------------------

SPEC_POS_1 = [
    ("interleaved", 4, [0.841471, 0.540302, 0.00999983, 0.99995]),
    ("interleaved", 6, [0.841471, 0.540302, 0.0463992, 0.998923, 0.00215443, 0.999998]),
    ("half", 4, [0.841471, 0.00999983, 0.540302, 0.99995]),
    ("t2t", 4, [0.841471, 0.0001, 0.540302, 1.0]),
    ("t2t", 6, [0.841471, 0.00999983, 0.0001, 0.540302, 0.99995, 1.0]),
]


@pytest.mark.parametrize(("layout", "d", "expected"), SPEC_POS_1)
def test_spec_values_at_position_1(device, layout, d, expected):
    row = encoding(2, d, layout=layout, device=device)[1]
    assert row.device.type == device.type
    torch.testing.assert_close(row.cpu(), torch.tensor(expected), atol=1e-6, rtol=0)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", [4, 5, 6, 7, 64])
def test_position_0_is_sin_0_cos_1(device, layout, d):
    expected = {
        "interleaved": [0.0, 1.0] * (d // 2) + [0.0] * (d % 2),
        "half": [0.0] * ((d + 1) // 2) + [1.0] * (d // 2),
        "t2t": [0.0] * (d // 2) + [1.0] * (d // 2) + [0.0] * (d % 2),
    }[layout]
    row = encoding(1, d, layout=layout, device=device)[0]
    torch.testing.assert_close(row.cpu(), torch.tensor(expected), atol=0, rtol=0)


def test_spec_last_frequencies():
    """t2t's last frequency is exactly 1e-4; Vaswani's is 10000^(-(d-2)/d)."""
    assert inv_freq(64, layout="t2t", device="cpu", dtype=F64)[-1].item() == pytest.approx(1e-4, rel=1e-15)
    assert inv_freq(64, device="cpu", dtype=F64)[-1].item() == pytest.approx(10000 ** (-62 / 64), rel=1e-15)


def test_spec_9d_wavelengths_use_the_pair_index():
    """docs/REFERENCE_NUMBERS.md §9(d): d = 128, channels 0, 1, 2, 126, 127 -> 6.283, 6.283, 7.256, 5.441e4,
    5.441e4."""
    got = wavelengths(128, device="cpu", dtype=F64)[[0, 1, 2, 126, 127]]
    torch.testing.assert_close(got, torch.tensor([6.283, 6.283, 7.256, 5.441e4, 5.441e4], dtype=F64), rtol=2e-4, atol=0)


# --- oracles -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", [4, 5, 6, 7, 16, 33])
@pytest.mark.parametrize("base", [10000.0, 500.5])
def test_matches_oracle(device, layout, d, base):
    positions = [0, 1, 2, 7, 100, 4095, 123456.5]
    expected = ORACLES[layout](positions, d, base)
    got = encoding(None, d, base=base, layout=layout, positions=positions, device=device, dtype=F64)
    torch.testing.assert_close(got.cpu(), expected, atol=1e-9, rtol=0)
    got32 = encoding(None, d, base=base, layout=layout, positions=positions, device=device)
    torch.testing.assert_close(got32.cpu(), expected.float(), atol=1e-6, rtol=0)


def test_large_positions_are_exact_in_float32(device):
    """Angles are computed in float64, then rounded once: float32 output stays within one rounding of the truth
    at p ~ 1e6 (float32 angles would be off by up to 0.03 there)."""
    positions = [1_048_575, 999_999, 524_289]
    got = encoding(None, 64, positions=positions, device=device).cpu()
    torch.testing.assert_close(got, vaswani_oracle(positions, 64).float(), atol=1.2e-7, rtol=0)


def test_default_device_and_dtype():
    table = encoding(3, 8)
    assert table.shape == (3, 8) and table.dtype == torch.float32
    assert encoding(0, 8).shape == (0, 8)


# --- properties ----------------------------------------------------------------------------------------------


@DEVICE_SETTINGS
@given(layout=st.sampled_from(LAYOUTS), d=st.integers(4, 80), base=st.floats(1.5, 1e6))
def test_values_in_unit_range(device, layout, d, base):
    table = encoding(None, d, base=base, layout=layout, positions=[0, 1, 17, 10**6, 2.5], device=device)
    assert bool((table.abs() <= 1).all())


@DEVICE_SETTINGS
@given(
    layout=st.sampled_from(LAYOUTS),
    half=st.integers(2, 40),
    odd=st.booleans(),
    p=st.integers(0, 10**5),
    k=st.integers(-500, 500),
)
def test_dot_depends_on_offset_only(device, layout, half, odd, p, k):
    """PE(p)·PE(p+k) = relative_similarity(k) for every p: even d in every layout, and t2t with padding."""
    d = 2 * half + (odd and layout == "t2t")
    rows = encoding(None, d, layout=layout, positions=[p, p + k], device=device, dtype=F64)
    expected = relative_similarity([k], d, layout=layout, position=123.0, device=device, dtype=F64)
    torch.testing.assert_close(rows[0] @ rows[1], expected[0], atol=1e-9, rtol=0)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("p", [0, 3, 250])
def test_odd_d_relative_similarity_is_exact_at_its_position(device, layout, p):
    d = 9
    ks = torch.arange(-20, 40)
    rows = encoding(None, d, layout=layout, positions=torch.cat([torch.tensor([p]), p + ks]), device=device, dtype=F64)
    expected = rows[1:] @ rows[0]
    got = relative_similarity(ks, d, layout=layout, position=p, device=device, dtype=F64)
    torch.testing.assert_close(got, expected, atol=1e-10, rtol=0)


def test_relative_similarity_closed_form(device):
    """Σ_i cos(k·ω_i) from the frequencies, including float offsets; s(0) = d/2."""
    d = 32
    offsets = [0.0, 1.0, 2.5, 1000.0]
    freq = [10000 ** (-2 * i / d) for i in range(d // 2)]
    expected = torch.tensor([sum(math.cos(k * w) for w in freq) for k in offsets], dtype=F64)
    got = relative_similarity(offsets, d, device=device, dtype=F64)
    torch.testing.assert_close(got.cpu(), expected, atol=1e-12, rtol=0)
    assert relative_similarity([0], d, device=device)[0].item() == d / 2


@DEVICE_SETTINGS
@given(layout=st.sampled_from(LAYOUTS), d=st.integers(4, 40), p=st.integers(0, 10**4), k=st.integers(-300, 300))
def test_linear_map_moves_positions(device, layout, d, p, k):
    """M_k PE(p) = PE(p+k) on every paired channel (and on the t2t padding)."""
    rows = encoding(None, d, layout=layout, positions=[p, p + k], device=device, dtype=F64)
    moved = linear_map(k, d, layout=layout, device=device, dtype=F64) @ rows[0]
    exact = torch.ones(d, dtype=torch.bool, device=device)
    if d % 2 and layout != "t2t":  # the unpaired sin channel has no cos partner to rotate with
        exact[(channel_pair_index(d, layout, device=device) == d // 2)] = False
    torch.testing.assert_close(moved[exact], rows[1][exact], atol=1e-9, rtol=0)


def test_linear_map_is_block_rotation(device):
    m = linear_map(7, 8, device=device, dtype=F64)
    torch.testing.assert_close(m @ m.T, torch.eye(8, dtype=F64, device=device), atol=1e-12, rtol=0)
    torch.testing.assert_close(linear_map(0, 8, device=device), torch.eye(8, device=device))
    w = 10000 ** (-2 / 8)
    expected = torch.tensor([[math.cos(7 * w), math.sin(7 * w)], [-math.sin(7 * w), math.cos(7 * w)]], dtype=F64)
    torch.testing.assert_close(m[2:4, 2:4].cpu(), expected, atol=1e-12, rtol=0)


@pytest.mark.parametrize("d", [4, 7, 128])
def test_sin_and_cos_channel_of_a_pair_share_a_wavelength(d):
    lam = wavelengths(d, device="cpu", dtype=F64)
    torch.testing.assert_close(lam[0 : 2 * (d // 2) : 2], lam[1 : 2 * (d // 2) : 2], atol=0, rtol=0)
    lam_half = wavelengths(d, layout="half", device="cpu", dtype=F64)
    n_sin = (d + 1) // 2
    torch.testing.assert_close(lam_half[: d // 2], lam_half[n_sin:], atol=0, rtol=0)


def test_wavelengths_t2t_padding_is_constant():
    lam = wavelengths(7, layout="t2t", device="cpu", dtype=F64)
    assert math.isinf(lam[-1].item())
    torch.testing.assert_close(lam[:3], 2 * math.pi / inv_freq(7, layout="t2t", device="cpu", dtype=F64)[:3])


@pytest.mark.parametrize(
    ("layout", "d", "expected"),
    [
        ("interleaved", 5, [0, 0, 1, 1, 2]),
        ("half", 5, [0, 1, 2, 0, 1]),
        ("t2t", 5, [0, 1, 0, 1, 2]),
        ("t2t", 6, [0, 1, 2, 0, 1, 2]),
    ],
)
def test_channel_pair_index(layout, d, expected):
    assert channel_pair_index(d, layout, device="cpu").tolist() == expected


@pytest.mark.parametrize("layout", LAYOUTS)
def test_positions_and_channels_subset_equal_slicing(device, layout):
    d = 37
    full = encoding(300, d, layout=layout, device=device)
    positions = torch.tensor([0, 5, 299, 17, 5])
    channels = np.array([36, 0, 1, 18, 19, 18])
    got = encoding(300, d, layout=layout, positions=positions, channels=channels, device=device)
    torch.testing.assert_close(got, full[positions][:, channels], atol=0, rtol=0)
    assert encoding(300, d, layout=layout, channels=[], device=device).shape == (300, 0)


def test_chunked_computation_matches_single_chunk(monkeypatch):
    full = encoding(50, 12, layout="half", device="cpu")
    monkeypatch.setattr(sinusoidal, "_CHUNK_ELEMENTS", 30)
    torch.testing.assert_close(encoding(50, 12, layout="half", device="cpu"), full, atol=0, rtol=0)
    chunked = relative_similarity(range(40), 12, device="cpu")
    monkeypatch.undo()
    torch.testing.assert_close(chunked, relative_similarity(range(40), 12, device="cpu"), atol=0, rtol=0)


# --- bad arguments ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"seq_len": -1}, "seq_len"),
        ({"seq_len": 2.5}, "seq_len"),
        ({"seq_len": None}, "seq_len"),
        ({"d_model": 0}, "d_model"),
        ({"d_model": True}, "d_model"),
        ({"base": 1.0}, "base"),
        ({"base": 0.5}, "base"),
        ({"base": float("nan")}, "base"),
        ({"base": float("inf")}, "base"),
        ({"layout": "rotate_half"}, "layout"),
        ({"layout": "t2t", "d_model": 2}, "d_model"),
        ({"layout": "t2t", "d_model": 3}, "d_model"),
        ({"dtype": torch.float16}, "dtype"),
        ({"positions": [[0, 1]]}, "positions"),
        ({"positions": [0.0, float("nan")]}, "positions"),
        ({"positions": [True, False]}, "positions"),
        ({"positions": "abc"}, "positions"),
        ({"channels": [0, 8]}, "channels"),
        ({"channels": [-1]}, "channels"),
        ({"channels": [0.0, 1.0]}, "channels"),
        ({"seq_len": 2**22, "d_model": 128}, "positions"),
        ({"device": "tpu"}, "device"),
    ],
)
def test_encoding_rejects_bad_arguments(kwargs, name):
    args = {"seq_len": 4, "d_model": 8, "device": "cpu", **kwargs}
    with pytest.raises(ValueError, match=name):
        encoding(args.pop("seq_len"), args.pop("d_model"), **args)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: inv_freq(0), "d_model"),
        (lambda: inv_freq(8, base=float("nan")), "base"),
        (lambda: inv_freq(8, layout="x"), "layout"),
        (lambda: wavelengths(8, base=-3), "base"),
        (lambda: channel_pair_index(8, "x"), "layout"),
        (lambda: relative_similarity([1.0, float("inf")], 8), "offsets"),
        (lambda: relative_similarity([1], 8, position=float("nan")), "position"),
        (lambda: linear_map(float("nan"), 8), "offset"),
        (lambda: linear_map(1, 8, layout="t2t", dtype=torch.int64), "dtype"),
    ],
)
def test_other_functions_reject_bad_arguments(call, name):
    with pytest.raises(ValueError, match=name):
        call()
