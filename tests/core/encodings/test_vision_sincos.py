"""posenc_core.encodings.vision.sincos_2d: MAE's numpy function (written here from its published
``util/pos_embed.py``), a
loop over the formula, properties, and bad arguments."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_core.encodings import vision

F64 = torch.float64


# --- MAE's get_2d_sincos_pos_embed, in numpy and float32 as published (grid_size: an int, or (h, w)) ----------


def mae_1d(embed_dim, pos):
    assert embed_dim % 2 == 0
    omega = np.arange(embed_dim // 2, dtype=np.float32)
    omega /= embed_dim / 2.0
    omega = 1.0 / 10000**omega
    out = np.einsum("m,d->md", pos.reshape(-1), omega)
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


def mae_2d(embed_dim, grid_size, cls_token=False):
    grid_h_size, grid_w_size = (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
    grid_h = np.arange(grid_h_size, dtype=np.float32)
    grid_w = np.arange(grid_w_size, dtype=np.float32)
    grid = np.stack(np.meshgrid(grid_w, grid_h), axis=0)  # w goes first
    grid = grid.reshape([2, 1, grid_h_size, grid_w_size])
    assert embed_dim % 2 == 0
    emb_h = mae_1d(embed_dim // 2, grid[0])  # MAE's name; grid[0] holds the column (w) coordinate
    emb_w = mae_1d(embed_dim // 2, grid[1])
    pos_embed = np.concatenate([emb_h, emb_w], axis=1)
    if cls_token:
        pos_embed = np.concatenate([np.zeros([1, embed_dim]), pos_embed], axis=0)
    return pos_embed


def loop_oracle(grid_h, grid_w, dim, base, cls_token):
    """Straight from the formula: PE[r·W + c] = [sin(c·ω_k)..., cos(c·ω_k)..., sin(r·ω_k)..., cos(r·ω_k)...]."""
    quarter = dim // 4
    rows = [[0.0] * dim] if cls_token else []
    for r in range(grid_h):
        for c in range(grid_w):
            omega = [base ** (-k / quarter) for k in range(quarter)]
            row = [math.sin(c * w) for w in omega] + [math.cos(c * w) for w in omega]
            row += [math.sin(r * w) for w in omega] + [math.cos(r * w) for w in omega]
            rows.append(row)
    return torch.tensor(rows, dtype=F64)


@pytest.mark.parametrize(
    ("grid", "dim", "cls_token"), [(14, 768, True), (14, 1024, False), (16, 64, True), (1, 8, True)]
)
def test_square_grids_equal_maes_function(grid, dim, cls_token):
    expected = torch.from_numpy(mae_2d(dim, grid, cls_token=cls_token))
    got = vision.sincos_2d(grid, grid, dim, cls_token=cls_token, device="cpu", dtype=F64)
    assert got.shape == expected.shape == (grid * grid + cls_token, dim)
    # MAE computes in float32: its angles are off by one float32 rounding (<= 13 rad here, so < 2e-6)
    torch.testing.assert_close(got, expected.to(F64), atol=4e-6, rtol=0)
    torch.testing.assert_close(vision.sincos_2d(grid, grid, dim, cls_token=cls_token, device="cpu"), expected.float())


@pytest.mark.parametrize(("grid_h", "grid_w"), [(3, 5), (5, 3), (24, 14), (1, 7)])
def test_rectangular_grids_follow_maes_meshgrid(grid_h, grid_w):
    expected = torch.from_numpy(mae_2d(32, (grid_h, grid_w), cls_token=True)).to(F64)
    got = vision.sincos_2d(grid_h, grid_w, 32, cls_token=True, device="cpu", dtype=F64)
    torch.testing.assert_close(got, expected, atol=4e-6, rtol=0)


def test_the_first_half_encodes_the_column_and_the_second_half_the_row():
    table = vision.sincos_2d(3, 5, 16, device="cpu", dtype=F64).reshape(3, 5, 16)
    first, second = table[..., :8], table[..., 8:]
    assert torch.equal(first, first[:1].expand(3, -1, -1))  # the same in every row: depends on the column only
    assert torch.equal(second, second[:, :1].expand(-1, 5, -1))  # the same in every column: the row only
    assert not torch.equal(first[:, 0], first[:, 1])


@pytest.mark.parametrize(("grid_h", "grid_w", "dim", "base"), [(4, 6, 8, 10000.0), (3, 3, 12, 100.0), (2, 5, 16, 7.5)])
def test_equals_a_loop_over_the_formula(device, grid_h, grid_w, dim, base):
    got = vision.sincos_2d(grid_h, grid_w, dim, base=base, cls_token=True, device=device, dtype=F64).cpu()
    torch.testing.assert_close(got, loop_oracle(grid_h, grid_w, dim, base, True), atol=1e-12, rtol=0)


@settings(max_examples=40, deadline=None)
@given(
    grid_h=st.integers(1, 12),
    grid_w=st.integers(1, 12),
    quarter=st.integers(1, 16),
    shift=st.tuples(st.integers(0, 3), st.integers(0, 3)),
)
def test_similarity_depends_only_on_the_offset_and_rows_have_norm_sqrt_dim_over_2(grid_h, grid_w, quarter, shift):
    dim = 4 * quarter
    table = vision.sincos_2d(grid_h + 3, grid_w + 3, dim, device="cpu", dtype=F64).reshape(grid_h + 3, grid_w + 3, dim)
    torch.testing.assert_close(table.norm(dim=-1), torch.full(table.shape[:2], math.sqrt(dim / 2), dtype=F64))
    dr, dc = shift
    moved = table[dr : dr + grid_h, dc : dc + grid_w].reshape(-1, dim)
    still = table[:grid_h, :grid_w].reshape(-1, dim)
    torch.testing.assert_close(moved @ moved.T, still @ still.T, atol=1e-10, rtol=0)


def test_transposing_the_grid_swaps_the_halves():
    wide = vision.sincos_2d(3, 7, 24, device="cpu", dtype=F64).reshape(3, 7, 24)
    tall = vision.sincos_2d(7, 3, 24, device="cpu", dtype=F64).reshape(7, 3, 24)
    swapped = torch.cat([tall[..., 12:], tall[..., :12]], dim=-1).transpose(0, 1)
    assert torch.equal(wide, swapped)


def test_cls_row_is_zero_and_the_patches_follow_it():
    with_cls = vision.sincos_2d(4, 4, 16, cls_token=True, device="cpu")
    assert torch.equal(with_cls[0], torch.zeros(16))
    assert torch.equal(with_cls[1:], vision.sincos_2d(4, 4, 16, device="cpu"))


def test_frequencies_run_from_1_down_to_base_to_the_minus_one_plus_4_over_dim():
    omega = vision.frequencies(32, base=10000.0, device="cpu", dtype=F64)
    assert omega.shape == (8,) and omega[0] == 1.0
    assert omega[-1].item() == pytest.approx(10000.0 ** (-7 / 8), rel=1e-15)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"grid_h": 0}, "grid_h"),
        ({"grid_w": 2.5}, "grid_w"),
        ({"dim": 6}, "dim must be a multiple of 4"),
        ({"dim": 0}, "dim"),
        ({"base": -1.0}, "base"),
        ({"cls_token": 1}, "cls_token"),
        ({"dtype": torch.float16}, "dtype"),
        ({"grid_h": 1024, "grid_w": 1024, "dim": 1024}, "grid_h·grid_w·dim"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, name):
    arguments = {"grid_h": 4, "grid_w": 4, "dim": 8} | kwargs
    with pytest.raises(ValueError, match=name):
        vision.sincos_2d(arguments.pop("grid_h"), arguments.pop("grid_w"), arguments.pop("dim"), **arguments)
