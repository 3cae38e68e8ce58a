"""posenc_core.encodings.sinusoidal properties: PE(p)·PE(p+k) depends on k only, the linear map, wavelengths, channel
subsets."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posenc_core.encodings import sinusoidal
from posenc_core.encodings.sinusoidal import (
    LAYOUTS,
    channel_pair_index,
    encoding,
    inv_freq,
    linear_map,
    relative_similarity,
    wavelengths,
)
from tests.core.sinusoidal_helpers import F64

DEVICE_SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


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
