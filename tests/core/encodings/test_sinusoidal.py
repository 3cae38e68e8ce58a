"""posenc_core.encodings.sinusoidal: docs/REFERENCE_NUMBERS.md §7 numbers and slow oracles written from the papers.

Properties live in test_sinusoidal_properties.py, bad arguments in test_sinusoidal_arguments.py.
"""

from __future__ import annotations

import pytest
import torch

from posenc_core.encodings.sinusoidal import LAYOUTS, encoding, inv_freq, wavelengths
from tests.core.sinusoidal_helpers import F64, ORACLES, vaswani_oracle

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
