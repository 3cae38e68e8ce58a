"""posenc_core.rope: the numbers of docs/REFERENCE_NUMBERS.md §1 and slow 2x2-rotation oracles written from the paper.

Properties live in test_rope_properties.py, the cos/sin tables and rotate helpers in test_rope_tables.py, bad
arguments in test_rope_arguments.py.
"""

from __future__ import annotations

import pytest
import torch

from posenc_core import rope
from posenc_core.rope import LAYOUTS, apply, channel_pair_index, relative_scores, wavelengths
from posenc_core.rope import scaling as rope_scaling
from tests.core.rope_helpers import F64, default_freq, meta_complex_oracle, rotation_oracle, score_oracle

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
