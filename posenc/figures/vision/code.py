"""The code behind the Vision (2-D) figures: the patch order, MAE's 2-D sin-cos table and its cosines in NumPy, the
seeded smooth table and timm's resize in PyTorch, and the axial 2-D RoPE angles with Qwen2-VL's merge order.

Ref: MAE ``util/pos_embed.py`` (``get_2d_sincos_pos_embed``); timm ``resample_abs_pos_embed``; HF transformers
``Qwen2VLVisionRotaryEmbedding`` and ``get_vision_position_ids``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, assignments, code_block, figure_data, index_code, register_code
from posenc.figures.vision.params import RESIZE_CHANNELS
from posenc.figures.vision.resize import TABLE_STD
from posenc_core import sampling

SINCOS = """
    omega = 10000.0 ** (-np.arange(dim // 4) / (dim // 4))  # ω_k = 10000^(-4k/dim)
    rows, cols = np.meshgrid(np.arange(grid_h), np.arange(grid_w), indexing="ij")  # patch (r, c), row by row
    col_angle = cols.reshape(-1, 1) * omega  # (H·W, dim/4): c·ω_k
    row_angle = rows.reshape(-1, 1) * omega  # (H·W, dim/4): r·ω_k
    pe = np.concatenate([np.sin(col_angle), np.cos(col_angle), np.sin(row_angle), np.cos(row_angle)], axis=1)
    """


def _expect(figure_id: str, values: Mapping[str, Any], *keys: str):
    """expected(): the figure's arrays ``keys`` (one array for one key, a dict for several)."""

    def expected():
        data = figure_data(figure_id, values)
        return data[keys[0]] if len(keys) == 1 else {key: data[key] for key in keys}

    return expected


@register_code("vision-patch-grid")
def patch_grid_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        assignments(values, "grid_h", "grid_w", "cls_token"),
        """
        first = 1 if cls_token else 0  # [CLS] is token 0
        result = np.arange(grid_h * grid_w).reshape(grid_h, grid_w) + first  # patch (r, c) is token first + r·W + c
        """,
    )
    return Snippet(source, expected=_expect("vision-patch-grid", values, "token"))


@register_code("vision-sincos-table")
def sincos_table_code(values: Mapping[str, Any]) -> Snippet:
    dim, cls = int(values["embed_dim"]), values["cls_token"]
    tokens = sampling.strided_positions(values["grid_h"] * values["grid_w"] + cls, sampling.MAX_CELLS_PER_AXIS)
    channels = sampling.strided_positions(dim, sampling.MAX_CELLS_PER_AXIS)
    source = code_block(
        assignments(values, "grid_h", "grid_w", "cls_token") + f"\ndim = {dim}",
        SINCOS,
        """
        if cls_token:
            pe = np.concatenate([np.zeros((1, dim)), pe])  # [CLS] first, with a zero row
        """,
        f"result = pe[{index_code(tokens)}][:, {index_code(channels)}]  # the tokens and channels drawn",
    )
    return Snippet(source, expected=_expect("vision-sincos-table", values, "table"))


@register_code("vision-sincos-similarity")
def similarity_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        assignments(values, "grid_h", "grid_w", "patch_row", "patch_col") + f"\ndim = {int(values['embed_dim'])}",
        SINCOS,
        """
        chosen = pe[patch_row * grid_w + patch_col]
        cosine = pe @ chosen / (np.linalg.norm(pe, axis=1) * np.linalg.norm(chosen))
        result = cosine.reshape(grid_h, grid_w)  # drawn on the grid
        """,
    )
    return Snippet(source, expected=_expect("vision-sincos-similarity", values, "similarity"))


@register_code("vision-resize")
def resize_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        assignments(values, "old_grid", "new_grid", "resize_mode", "antialias", "channel", "seed")
        + f"\nchannels, waves, std = {RESIZE_CHANNELS}, 3, {TABLE_STD}",
        '''
        def smooth_table(side):
            """[CLS] row + side x side patches: per channel, 3 waves cos(2π(f·y + g·x) + φ) over the image."""
            g = torch.Generator().manual_seed(seed)
            amplitude = torch.randn(channels, waves, generator=g, dtype=torch.float64)
            f = torch.rand(channels, waves, generator=g, dtype=torch.float64) * 3 - 1.5  # cycles per image height
            h = torch.rand(channels, waves, generator=g, dtype=torch.float64) * 3 - 1.5  # ... per image width
            phase = torch.rand(channels, waves, generator=g, dtype=torch.float64) * 2 * math.pi
            cls = torch.randn(1, channels, generator=g, dtype=torch.float64) * std
            centre = (torch.arange(side, dtype=torch.float64) + 0.5) / side  # patch centres in 0..1
            y, x = torch.meshgrid(centre, centre, indexing="ij")
            angle = 2 * math.pi * (y.reshape(-1, 1, 1) * f + x.reshape(-1, 1, 1) * h) + phase
            patches = (amplitude * torch.cos(angle)).sum(-1) * std * math.sqrt(2 / waves)
            return torch.cat([cls, patches]).float()
        ''',
        """
        table = smooth_table(old_grid)  # (1 + old², channels)
        image = table[1:].reshape(1, old_grid, old_grid, channels).permute(0, 3, 1, 2)  # (1, C, H, W)
        resized = F.interpolate(image, size=(new_grid, new_grid), mode=resize_mode, antialias=antialias)
        after = resized[0, channel]  # timm keeps the [CLS] row and resizes the patches like this
        truth = smooth_table(new_grid)[1:, channel].reshape(new_grid, new_grid)  # the same waves on the new grid
        result = {"before": image[0, channel], "after": after, "difference": after - truth}
        """,
        imports=("math", "torch", "torch.nn.functional as F"),
    )
    return Snippet(source, expected=_expect("vision-resize", values, "before", "after", "difference"), atol=1e-6)


@register_code("vision-rope-angles")
def rope_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        assignments(values, "grid_h", "grid_w", "frequency", "spatial_merge_size")
        + f"\nhead_dim = {int(values['vision_head_dim'])}\nbase = {float(values['vision_base'])!r}",
        """
        omega = base ** (-np.arange(0, head_dim // 2, 2) / (head_dim // 2))  # ω_j = base^(-4j/d), d/4 of them
        rows, cols = np.meshgrid(np.arange(grid_h), np.arange(grid_w), indexing="ij")
        row_angle = rows * omega[frequency] % (2 * np.pi)  # pair j turns with the row
        column_angle = cols * omega[frequency] % (2 * np.pi)  # pair d/4 + j with the column
        m = spatial_merge_size if grid_h % spatial_merge_size == 0 and grid_w % spatial_merge_size == 0 else 1
        # Qwen2-VL reads m x m blocks row by row, and the patches of each block row by row
        token = np.arange(grid_h * grid_w).reshape(grid_h // m, grid_w // m, m, m)  # [block r, block c, r, c]
        order = token.transpose(0, 2, 1, 3).reshape(grid_h, grid_w)  # the token each patch becomes
        result = {"row_angle": row_angle, "column_angle": column_angle, "order": order}
        """,
    )
    return Snippet(source, expected=_expect("vision-rope-angles", values, "row_angle", "column_angle", "order"))
