"""Absolute positions for image patches (ViT): the 2-D sin-cos table with its [CLS] row, and resizing a learned
patch table (or a learned sequence table) to a new length.

A ViT cuts an image into an H x W grid of patches and reads them row by row: patch (r, c) is token
1 + r·W + c after the [CLS] token (token 0). Its position vector is a row of an (1 + H·W, C) table.

2-D sin-cos (MAE, MoCo v3): half the channels encode the column c, half the row r, each with the 1-D
sinusoid of C/2 channels (all sines, then all cosines), and [CLS] gets a row of zeros:

    ω_k = base^(-k / (C/4)),  k = 0 .. C/4 - 1
    PE[(r, c)] = [sin(c·ω), cos(c·ω), sin(r·ω), cos(r·ω)]   (four blocks of C/4 channels)

MAE's ``get_2d_sincos_pos_embed`` builds ``np.meshgrid(grid_w, grid_h)`` and encodes its first array (the
column, "w goes first") into the first half, so the first half is the column even though MAE calls it
``emb_h``.

Resizing a learned table (DeiT, timm, MAE fine-tuning at a larger resolution): the prefix rows ([CLS],
distillation or register tokens) are kept; the H x W patch rows are laid out as an image of C channels and
interpolated to the new grid (``torch.nn.functional.interpolate``, align_corners=False: output cell i reads the
input at (i + 0.5)·H/H' - 0.5), in float32 as timm does.

Ref: Dosovitskiy et al. 2021, arXiv 2010.11929 §3.1 and App. D.4; He et al. 2022, arXiv 2111.06377 (MAE
``util/pos_embed.py``); timm ``layers/pos_embed.py`` (``resample_abs_pos_embed``); Touvron et al. 2021, arXiv
2012.12877 (DeiT, resolution change).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F

from posenc_core._checks import check_choice, check_float, check_float_dtype, check_int
from posenc_core.device import resolve_device, work_dtype

RESIZE_MODES = ("bicubic", "bilinear")
MAX_GRID = 1024  # patches per side (a 14-pixel patch: 14,336 pixels)
MAX_TABLE_ELEMENTS = 2**28  # 1 GiB of float32


def sincos_2d(
    grid_h: int,
    grid_w: int,
    dim: int,
    *,
    base: float = 10000.0,
    cls_token: bool = False,
    device=None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """MAE's 2-D sin-cos table: PE[r·W + c] = [sin(c·ω), cos(c·ω), sin(r·ω), cos(r·ω)], ω_k = base^(-4k/dim).

    Shape (H·W, dim), or (1 + H·W, dim) with a zero row first for [CLS] when ``cls_token``. dim must be a
    multiple of 4 (MAE asserts dim and dim/2 even). Angles in float64 (float32 on mps), rounded once to dtype.
    Ref: MAE ``get_2d_sincos_pos_embed`` (square grids there; the same construction for H != W).
    """
    grid_h = check_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    grid_w = check_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    dim = check_int("dim", dim, minimum=4)
    if dim % 4:
        raise ValueError(f"dim must be a multiple of 4: half the channels per axis, sin and cos each (got {dim})")
    if (grid_h * grid_w + 1) * dim > MAX_TABLE_ELEMENTS:
        raise ValueError(f"grid_h·grid_w·dim must be <= {MAX_TABLE_ELEMENTS:,} (got {grid_h * grid_w * dim:,})")
    base = check_float("base", base, greater_than=0.0)
    if not isinstance(cls_token, bool):
        raise ValueError(f"cls_token must be True or False (got {cls_token!r})")
    dtype = check_float_dtype(dtype)
    device = resolve_device(device)
    work = work_dtype(device)
    omega = frequencies(dim, base=base, device=device, dtype=work)  # (dim/4,)
    rows = torch.arange(grid_h, device=device, dtype=work).repeat_interleave(grid_w)  # r of patch r·W + c
    cols = torch.arange(grid_w, device=device, dtype=work).repeat(grid_h)  # c of patch r·W + c
    col_angles, row_angles = cols[:, None] * omega, rows[:, None] * omega  # (H·W, dim/4) each
    table = torch.cat([col_angles.sin(), col_angles.cos(), row_angles.sin(), row_angles.cos()], dim=1)
    if cls_token:
        table = torch.cat([torch.zeros(1, dim, device=device, dtype=work), table])
    return table.to(dtype)


def frequencies(dim: int, *, base: float = 10000.0, device=None, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """ω_k = base^(-k / (dim/4)), k = 0 .. dim/4 - 1: the frequencies each axis's quarter of sines (and of
    cosines) turns at in :func:`sincos_2d`. Shape (dim/4,)."""
    dim = check_int("dim", dim, minimum=4)
    if dim % 4:
        raise ValueError(f"dim must be a multiple of 4 (got {dim})")
    base = check_float("base", base, greater_than=0.0)
    device = resolve_device(device)
    exponent = torch.arange(dim // 4, device=device, dtype=work_dtype(device)) / (dim // 4)
    return (base**-exponent).to(dtype)


def grid_of(value: Any, name: str) -> tuple[int, int]:
    """(rows, columns) from one int (a square grid) or a pair; a ValueError names ``name``."""
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        if len(value) != 2:
            raise ValueError(f"{name} must be an int or a pair (rows, columns) (got {value!r})")
        return tuple(check_int(f"{name}[{k}]", v, minimum=1, maximum=MAX_GRID) for k, v in enumerate(value))
    side = check_int(name, value, minimum=1, maximum=MAX_GRID)
    return side, side


def resize_table(
    table: torch.Tensor,
    new_grid: int | Sequence[int],
    *,
    old_grid: int | Sequence[int] | None = None,
    num_prefix_tokens: int = 1,
    mode: str = "bicubic",
    antialias: bool = True,
) -> torch.Tensor:
    """A learned patch table (P + H·W, C) resized to (P + H'·W', C): the P prefix rows kept, the patch rows
    interpolated as a C-channel H x W image to H' x W' (align_corners=False).

    Bicubic is Keys' cubic convolution with a = -0.5 under ``antialias`` (the default: PyTorch takes PIL's
    filter) and a = -0.75 without it (PyTorch's plain ``upsample_bicubic2d``); with ``antialias`` the filter is
    also widened by the shrink ratio when shrinking, a low-pass. old_grid None: a square grid,
    H = W = sqrt(rows - P). The interpolation runs in float32 and the result is cast back to the table's dtype;
    an unchanged grid returns the table's values unchanged. Ref: timm ``resample_abs_pos_embed``; PyTorch
    ``aten/src/ATen/native/UpSample.h`` (A = -0.75) and the antialiased kernels' ``bicubic_filter`` (a = -0.5).
    """
    if not isinstance(table, torch.Tensor) or table.dim() != 2 or not table.is_floating_point():
        raise ValueError(f"table must be a 2-D float tensor (rows, channels) (got {_describe(table)})")
    rows, channels = table.shape
    prefix = check_int("num_prefix_tokens", num_prefix_tokens, minimum=0, maximum=max(rows - 1, 0))
    mode = check_choice("mode", mode, RESIZE_MODES)
    if not isinstance(antialias, bool):
        raise ValueError(f"antialias must be True or False (got {antialias!r})")
    new_h, new_w = grid_of(new_grid, "new_grid")
    if old_grid is None:
        side = math.isqrt(rows - prefix)
        if side * side != rows - prefix or side == 0:
            raise ValueError(
                f"old_grid is needed: the table's {rows - prefix} patch rows (rows - num_prefix_tokens) are not a "
                "square number"
            )
        old_h, old_w = side, side
    else:
        old_h, old_w = grid_of(old_grid, "old_grid")
        if old_h * old_w != rows - prefix:
            raise ValueError(
                f"old_grid {old_h}x{old_w} must hold the table's {rows - prefix} patch rows (rows - num_prefix_tokens)"
            )
    if (prefix + new_h * new_w) * channels > MAX_TABLE_ELEMENTS:
        raise ValueError(f"new_grid {new_h}x{new_w} with {channels} channels is larger than {MAX_TABLE_ELEMENTS:,}")
    if (old_h, old_w) == (new_h, new_w):
        return table.clone()
    patches = table[prefix:].float().reshape(1, old_h, old_w, channels).permute(0, 3, 1, 2)  # (1, C, H, W)
    resized = F.interpolate(patches, size=(new_h, new_w), mode=mode, antialias=antialias, align_corners=False)
    resized = resized.permute(0, 2, 3, 1).reshape(new_h * new_w, channels).to(table.dtype)
    return torch.cat([table[:prefix], resized])


def resize_sequence_table(table: torch.Tensor, new_len: int, *, align_corners: bool = False) -> torch.Tensor:
    """A learned sequence table (L, C) linearly interpolated to (L', C), each channel on its own.

    Row m of the result reads the table at s = (m + 0.5)·L/L' - 0.5 (align_corners=False, clamped to
    [0, L - 1]) or s = m·(L - 1)/(L' - 1) (align_corners=True: the first and last rows kept), mixing rows
    floor(s) and floor(s) + 1 with weights 1 - (s - floor(s)) and s - floor(s). In the table's dtype.
    Ref: ``torch.nn.functional.interpolate(mode="linear")``; position interpolation for learned tables as in
    ViT's resolution change (Dosovitskiy et al. 2021, §3.2), in one dimension.
    """
    if not isinstance(table, torch.Tensor) or table.dim() != 2 or not table.is_floating_point():
        raise ValueError(f"table must be a 2-D float tensor (rows, channels) (got {_describe(table)})")
    if table.dtype not in (torch.float32, torch.float64):
        raise ValueError(f"table must be float32 or float64 (got {table.dtype})")
    length, channels = table.shape
    if length < 1:
        raise ValueError("table must have at least one row")
    new_len = check_int("new_len", new_len, minimum=1, maximum=MAX_TABLE_ELEMENTS // max(channels, 1))
    if not isinstance(align_corners, bool):
        raise ValueError(f"align_corners must be True or False (got {align_corners!r})")
    columns = table.T[None]  # (1, C, L)
    resized = F.interpolate(columns, size=new_len, mode="linear", align_corners=align_corners)
    return resized[0].T.contiguous()


def smooth_random_table(
    grid_h: int,
    grid_w: int,
    dim: int,
    *,
    num_prefix_tokens: int = 1,
    waves: int = 3,
    std: float = 0.02,
    seed: int = 0,
    device=None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """A seeded stand-in for a trained patch table: each channel a sum of ``waves`` smooth 2-D waves. (P + H·W, dim).

    channel j of patch (r, c) = std·sqrt(2/waves)·Σ_k a_jk·cos(2π(f_jk·y + g_jk·x) + φ_jk), y = (r + 0.5)/H,
    x = (c + 0.5)/W, with a ~ N(0, 1), f, g ~ U(-1.5, 1.5) cycles per image and φ ~ U(0, 2π); the P prefix rows
    are N(0, std²). The same image coordinates on any grid: grid (H', W') samples the same smooth functions.
    Drawn on the CPU in float64 from ``torch.Generator().manual_seed(seed)``. Not a trained table.
    """
    grid_h = check_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    grid_w = check_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    dim = check_int("dim", dim, minimum=1, maximum=MAX_TABLE_ELEMENTS // (grid_h * grid_w + 1))
    prefix = check_int("num_prefix_tokens", num_prefix_tokens, minimum=0, maximum=16)
    waves = check_int("waves", waves, minimum=1, maximum=16)
    std = check_float("std", std, greater_than=0.0)
    seed = check_int("seed", seed, minimum=0, maximum=2**32 - 1)
    dtype = check_float_dtype(dtype)
    generator = torch.Generator().manual_seed(seed)
    amplitude = torch.randn(dim, waves, generator=generator, dtype=torch.float64)
    along_y = torch.rand(dim, waves, generator=generator, dtype=torch.float64) * 3 - 1.5
    along_x = torch.rand(dim, waves, generator=generator, dtype=torch.float64) * 3 - 1.5
    phase = torch.rand(dim, waves, generator=generator, dtype=torch.float64) * 2 * math.pi
    prefix_rows = torch.randn(prefix, dim, generator=generator, dtype=torch.float64) * std
    y = ((torch.arange(grid_h, dtype=torch.float64) + 0.5) / grid_h).repeat_interleave(grid_w)  # (H·W,)
    x = ((torch.arange(grid_w, dtype=torch.float64) + 0.5) / grid_w).repeat(grid_h)
    angle = 2 * math.pi * (y[:, None, None] * along_y + x[:, None, None] * along_x) + phase  # (H·W, dim, waves)
    patches = (amplitude * torch.cos(angle)).sum(-1) * std * math.sqrt(2 / waves)
    return torch.cat([prefix_rows, patches]).to(device=resolve_device(device), dtype=dtype)


def _describe(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"{value.dtype} tensor of shape {tuple(value.shape)}"
    return type(value).__name__
