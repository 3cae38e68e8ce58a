"""posenc_core.rope tables and helpers: cos/sin, angles, channel pairing, layout permutation, rotate_half/every_two."""

from __future__ import annotations

import pytest
import torch

from posenc_core.rope import (
    LAYOUTS,
    angles,
    channel_pair_index,
    cos_sin,
    layout_permutation,
    rotate_every_two,
    rotate_half,
)
from tests.core.rope_helpers import F64, default_freq


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
