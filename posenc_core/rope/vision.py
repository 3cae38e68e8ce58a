"""2-D (axial) RoPE for vision towers: half of a head's frequency pairs turn with the patch's row, half with its
column, at the same frequencies.

For head_dim d (a multiple of 4) there are d/4 frequencies ω_j = base^(-4j/d) = base^(-2j/(d/2)), the
default RoPE frequencies of a d/2-dimensional head. Patch (r, c) turns pair j by r·ω_j and pair d/4 + j by
c·ω_j:

    θ[(r, c)] = [r·ω_0, ..., r·ω_{d/4-1}, c·ω_0, ..., c·ω_{d/4-1}]   (d/2 angles)

and the rotation is applied in the half layout (pair i = channels i and i + d/2), so q·k between two patches
depends only on their row offset and column offset.

Qwen2-VL's vision encoder reads the patches in merge order: the spatial_merge_size m x m blocks that its patch
merger later turns into one token each come row by row, and inside a block the m x m patches row by row, so a
block's patches are consecutive in the sequence. The angles of a patch do not depend on that order, only the
token index it gets does.

Ref: HF transformers ``modeling_qwen2_vl.py`` (``Qwen2VLVisionRotaryEmbedding``,
``Qwen2VisionTransformerPretrainedModel``) and ``vision_utils.get_vision_position_ids``; Wang et al. 2024, arXiv
2409.12191 §2.1; Heo et al. 2024, arXiv 2403.13298 (RoPE-Mixed / axial 2-D RoPE for ViT).
"""

from __future__ import annotations

import torch

from posenc_core._checks import check_float, check_float_dtype, check_int
from posenc_core.device import resolve_device, work_dtype
from posenc_core.encodings.vision import MAX_GRID

MAX_PATCHES = 2**20  # patches in one image (1024 x 1024)


def axial_inv_freq(head_dim: int, *, base: float = 10000.0, device=None, dtype: torch.dtype = torch.float32):
    """ω_j = base^(-4j/head_dim), j = 0 .. head_dim/4 - 1: the frequencies both axes share. Shape (head_dim/4,).
    Ref: HF ``Qwen2VLVisionRotaryEmbedding.compute_axial_rope_parameters`` (its spatial_dim = head_dim/2)."""
    head_dim = _check_head_dim(head_dim)
    base = check_float("base", base, greater_than=1.0)
    dtype = check_float_dtype(dtype)
    device = resolve_device(device)
    exponent = torch.arange(0, head_dim // 2, 2, device=device, dtype=work_dtype(device)) / (head_dim // 2)
    return (base**-exponent).to(dtype)


def patch_positions(grid_h: int, grid_w: int, *, spatial_merge_size: int = 1, device=None) -> torch.Tensor:
    """(row, column) of each patch in the encoder's sequence order. Shape (H·W, 2), int64.

    spatial_merge_size 1: row by row (ViT). m > 1 (Qwen2-VL, m = 2): the m x m blocks row by row, and the patches of
    each block row by row; grid_h and grid_w must be multiples of m. Ref: HF ``get_vision_position_ids``.
    """
    grid_h = check_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    grid_w = check_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    merge = check_int("spatial_merge_size", spatial_merge_size, minimum=1, maximum=64)
    if grid_h % merge or grid_w % merge:
        raise ValueError(
            f"grid_h and grid_w must be multiples of spatial_merge_size {merge} (got grid_h={grid_h}, grid_w={grid_w})"
        )
    if grid_h * grid_w > MAX_PATCHES:
        raise ValueError(f"grid_h·grid_w must be <= {MAX_PATCHES:,} (got {grid_h * grid_w:,})")
    device = resolve_device(device)
    block_cols = grid_w // merge
    # sequence index -> (block row, block column, row in block, column in block), the last varying fastest
    index = torch.arange(grid_h * grid_w, device=device)
    inner_col = index % merge
    inner_row = (index // merge) % merge
    block = index // (merge * merge)
    rows = (block // block_cols) * merge + inner_row
    cols = (block % block_cols) * merge + inner_col
    return torch.stack([rows, cols], dim=1)


def axial_angles(
    grid_h: int,
    grid_w: int,
    head_dim: int,
    *,
    base: float = 10000.0,
    spatial_merge_size: int = 1,
    device=None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """θ[n] = [r_n·ω, c_n·ω] for the n-th patch in sequence order (:func:`patch_positions`). Shape (H·W, head_dim/2).

    Pairs 0 .. d/4 - 1 turn with the row, pairs d/4 .. d/2 - 1 with the column; ω from :func:`axial_inv_freq`.
    Products in float64 (float32 on mps), rounded once to dtype. Ref: HF ``Qwen2VLVisionRotaryEmbedding.forward``
    (cos/sin of these angles, each repeated for the two halves of the head).
    """
    dtype = check_float_dtype(dtype)
    device = resolve_device(device)
    work = work_dtype(device)
    positions = patch_positions(grid_h, grid_w, spatial_merge_size=spatial_merge_size, device=device).to(work)
    inv_freq = axial_inv_freq(head_dim, base=base, device=device, dtype=work)
    angles = positions[:, :, None] * inv_freq  # (N, 2, d/4): row angles, column angles
    return angles.flatten(1).to(dtype)


def pair_axis(head_dim: int) -> tuple[str, ...]:
    """The axis each of the head_dim/2 pairs turns with: "row" for the first half, "column" for the second."""
    quarter = _check_head_dim(head_dim) // 4
    return ("row",) * quarter + ("column",) * quarter


def _check_head_dim(head_dim: int) -> int:
    head_dim = check_int("head_dim", head_dim, minimum=4, maximum=4096)
    if head_dim % 4:
        raise ValueError(f"head_dim must be a multiple of 4: d/4 frequencies for each of the two axes (got {head_dim})")
    return head_dim
