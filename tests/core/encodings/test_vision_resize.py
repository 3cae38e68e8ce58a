"""posenc_core.encodings.vision.resize_table / resize_sequence_table / smooth_random_table: timm's
``resample_abs_pos_embed`` (written here from its published ``timm/layers/pos_embed.py``), separable loop oracles
of PyTorch's interpolation (bilinear and bicubic, with and without antialias), properties, and bad arguments."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_core.encodings import vision

F64 = torch.float64


# --- timm's resample_abs_pos_embed, written from its published code (posemb: (1, N, C)) ------------------------


def timm_resample(posemb, new_size, old_size=None, num_prefix_tokens=1, interpolation="bicubic", antialias=True):
    num_pos_tokens = posemb.shape[1]
    num_new_tokens = new_size[0] * new_size[1] + num_prefix_tokens
    if num_new_tokens == num_pos_tokens:
        if old_size is not None and old_size[0] == new_size[0] and old_size[1] == new_size[1]:
            return posemb
        if old_size is None and new_size[0] == new_size[1]:
            return posemb
    if old_size is None:
        hw = int(math.sqrt(num_pos_tokens - num_prefix_tokens))
        old_size = hw, hw
    if num_prefix_tokens:
        posemb_prefix, posemb = posemb[:, :num_prefix_tokens], posemb[:, num_prefix_tokens:]
    else:
        posemb_prefix = None
    embed_dim, orig_dtype = posemb.shape[-1], posemb.dtype
    posemb = posemb.float().reshape(1, old_size[0], old_size[1], -1).permute(0, 3, 1, 2)
    posemb = F.interpolate(posemb, size=new_size, mode=interpolation, antialias=antialias)
    posemb = posemb.permute(0, 2, 3, 1).reshape(1, -1, embed_dim).to(orig_dtype)
    return posemb if posemb_prefix is None else torch.cat([posemb_prefix, posemb], dim=1)


# --- loop oracles: one weight matrix per axis (output cell i x input cell j), applied to rows then columns -------


def cubic(x, a):
    """Keys' cubic convolution kernel with coefficient a (PyTorch: -0.75 plain, -0.5 antialiased as PIL)."""
    x = abs(x)
    if x <= 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a if x < 2 else 0.0


def plain_weights(n_in, n_out, mode):
    """align_corners=False: output i reads the input at s = (i + 0.5)·n_in/n_out - 0.5 (linear: s >= 0), from taps
    floor(s) (+1) for linear or floor(s) - 1 .. floor(s) + 2 for cubic (a = -0.75), indices clamped to the edge."""
    weights = torch.zeros(n_out, n_in, dtype=F64)
    for i in range(n_out):
        source = (i + 0.5) * n_in / n_out - 0.5
        if mode == "bilinear":
            source = max(source, 0.0)
            low = math.floor(source)
            taps = {low: 1 - (source - low), low + 1: source - low}
        else:
            low = math.floor(source)
            taps = {low + k: cubic(source - (low + k), -0.75) for k in (-1, 0, 1, 2)}
        for j, w in taps.items():
            weights[i, min(max(j, 0), n_in - 1)] += w
    return weights


def antialiased_weights(n_in, n_out, mode):
    """PIL-style resampling: a filter (triangle, or cubic a = -0.5) widened by the scale when shrinking, centred at
    (i + 0.5)·n_in/n_out, taps outside the input dropped and the rest renormalised to sum 1."""
    scale = n_in / n_out
    support = (2.0 if mode == "bicubic" else 1.0) * max(scale, 1.0)
    stretch = 1 / scale if scale >= 1 else 1.0
    weights = torch.zeros(n_out, n_in, dtype=F64)
    for i in range(n_out):
        centre = scale * (i + 0.5)
        taps = range(max(int(centre - support + 0.5), 0), min(int(centre + support + 0.5), n_in))
        filt = [(j - centre + 0.5) * stretch for j in taps]
        raw = [cubic(x, -0.5) if mode == "bicubic" else max(0.0, 1 - abs(x)) for x in filt]
        for j, w in zip(taps, raw, strict=True):
            weights[i, j] = w / sum(raw)
    return weights


def loop_resize(table, old, new, prefix, mode, antialias):
    weights = antialiased_weights if antialias else plain_weights
    rows, cols = weights(old[0], new[0], mode), weights(old[1], new[1], mode)
    image = table[prefix:].to(F64).reshape(old[0], old[1], -1)
    resized = torch.einsum("ih,hwc,jw->ijc", rows, image, cols).reshape(new[0] * new[1], -1)
    return torch.cat([table[:prefix].to(F64), resized])


CASES = [
    ((14, 14), (24, 24), 1),
    ((14, 14), (7, 7), 1),
    ((16, 12), (20, 30), 0),
    ((8, 8), (12, 8), 4),
    ((24, 24), (14, 14), 2),
    ((5, 9), (5, 9), 1),
]


@pytest.mark.parametrize(("old", "new", "prefix"), CASES)
@pytest.mark.parametrize("mode", vision.RESIZE_MODES)
@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_equals_timms_resample_abs_pos_embed(old, new, prefix, mode, antialias, dtype):
    table = torch.randn(prefix + old[0] * old[1], 12, generator=torch.Generator().manual_seed(3), dtype=dtype)
    expected = timm_resample(table[None], list(new), list(old), prefix, mode, antialias)[0]
    got = vision.resize_table(table, new, old_grid=old, num_prefix_tokens=prefix, mode=mode, antialias=antialias)
    assert got.dtype == expected.dtype == dtype
    assert torch.equal(got, expected)
    if old[0] == old[1]:  # old_grid left out: a square grid, as timm assumes
        square = timm_resample(table[None], list(new), None, prefix, mode, antialias)[0]
        got = vision.resize_table(table, new, num_prefix_tokens=prefix, mode=mode, antialias=antialias)
        assert torch.equal(got, square)


@pytest.mark.parametrize(("old", "new", "prefix"), CASES)
@pytest.mark.parametrize("mode", vision.RESIZE_MODES)
@pytest.mark.parametrize("antialias", [True, False])
def test_equals_a_separable_loop_oracle(old, new, prefix, mode, antialias):
    table = torch.randn(prefix + old[0] * old[1], 5, generator=torch.Generator().manual_seed(1), dtype=F64)
    got = vision.resize_table(table, new, old_grid=old, num_prefix_tokens=prefix, mode=mode, antialias=antialias)
    expected = loop_resize(table, old, new, prefix, mode, antialias)
    torch.testing.assert_close(got.to(F64), expected, atol=1e-5, rtol=0)  # PyTorch interpolates in float32


def test_growing_bilinear_is_the_same_with_and_without_antialias_but_bicubic_is_not():
    """Antialiasing only widens the filter when shrinking, so bilinear upsampling is unchanged; PyTorch's
    antialiased bicubic uses PIL's a = -0.5 and renormalised edges instead of a = -0.75 and clamped edges."""
    table = vision.smooth_random_table(14, 14, 6, device="cpu", dtype=F64)
    for mode, same in (("bilinear", True), ("bicubic", False)):
        with_aa = vision.resize_table(table, 24, mode=mode, antialias=True)
        without = vision.resize_table(table, 24, mode=mode, antialias=False)
        assert torch.allclose(with_aa, without, atol=1e-7) is same, mode


def test_prefix_rows_are_kept_and_a_constant_table_stays_constant():
    table = torch.cat([torch.tensor([[7.0, -7.0]]), torch.full((16, 2), 0.25)])
    for mode in vision.RESIZE_MODES:
        for antialias in (True, False):
            resized = vision.resize_table(table, (6, 3), mode=mode, antialias=antialias)
            assert resized.shape == (1 + 18, 2)
            assert torch.equal(resized[0], table[0])
            torch.testing.assert_close(resized[1:], torch.full((18, 2), 0.25))


def test_a_smooth_table_resized_is_close_to_the_same_waves_sampled_on_the_new_grid():
    small = vision.smooth_random_table(14, 14, 16, seed=5, device="cpu", dtype=F64)
    large = vision.smooth_random_table(24, 24, 16, seed=5, device="cpu", dtype=F64)
    assert torch.equal(small[0], large[0])  # the same [CLS] row
    resized = vision.resize_table(small, 24)  # timm's defaults: bicubic, antialias
    error = ((resized[1:] - large[1:]).abs() / large[1:].abs().max()).reshape(24, 24, 16).amax(-1)
    assert error[2:-2, 2:-2].max() < 0.01  # waves of <= 1.5 cycles per image followed to 1% inside
    assert 0.01 < error.max() < 0.1  # the edges, where the filter runs out of neighbours, to 10%


@settings(max_examples=30, deadline=None)
@given(old_len=st.integers(1, 20), new_len=st.integers(1, 50), align=st.booleans())
def test_sequence_table_equals_a_linear_interpolation_loop(old_len, new_len, align):
    table = torch.randn(old_len, 3, generator=torch.Generator().manual_seed(old_len), dtype=F64)
    got = vision.resize_sequence_table(table, new_len, align_corners=align)
    assert got.shape == (new_len, 3) and got.dtype == F64
    for m in range(new_len):
        if align:
            source = m * (old_len - 1) / (new_len - 1) if new_len > 1 else 0.0
        else:
            source = min(max((m + 0.5) * old_len / new_len - 0.5, 0.0), old_len - 1)
        low = min(math.floor(source), old_len - 1)
        high, t = min(low + 1, old_len - 1), source - low
        torch.testing.assert_close(got[m], (1 - t) * table[low] + t * table[high], atol=1e-12, rtol=0)


def test_sequence_table_with_corners_aligned_keeps_the_first_and_last_rows():
    table = torch.arange(10, dtype=torch.float32).reshape(5, 2)
    longer = vision.resize_sequence_table(table, 9, align_corners=True)
    assert torch.equal(longer[0], table[0]) and torch.equal(longer[-1], table[-1])
    assert torch.equal(longer[1], (table[0] + table[1]) / 2)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda t: vision.resize_table(t.int(), 4), "table"),
        (lambda t: vision.resize_table(t[0], 4), "table"),
        (lambda t: vision.resize_table(t, 0), "new_grid"),
        (lambda t: vision.resize_table(t, (2, 3, 4)), "new_grid"),
        (lambda t: vision.resize_table(t, 4, mode="nearest"), "mode"),
        (lambda t: vision.resize_table(t, 4, antialias="yes"), "antialias"),
        (lambda t: vision.resize_table(t, 4, num_prefix_tokens=2), "old_grid is needed"),
        (lambda t: vision.resize_table(t, 4, old_grid=(3, 4)), "old_grid 3x4"),
        (lambda t: vision.resize_table(t, 4, num_prefix_tokens=-1), "num_prefix_tokens"),
        (lambda t: vision.resize_sequence_table(t, 0), "new_len"),
        (lambda t: vision.resize_sequence_table(t.half(), 4), "float32 or float64"),
        (lambda t: vision.smooth_random_table(4, 4, 8, waves=0), "waves"),
        (lambda t: vision.smooth_random_table(4, 4, 8, std=0.0), "std"),
    ],
)
def test_bad_arguments_name_themselves(call, name):
    with pytest.raises(ValueError, match=name):
        call(torch.zeros(1 + 9, 4))
