"""The vision family's parameters: the patch grid, the embedding width, the chosen patch, the resize and the 2-D
RoPE frequency. Ranges follow the model: a patch inside the grid, a frequency below head_dim/4."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures.params import ParamSpec, index_below, register_param
from posenc_core import vision

MAX_GRID = 64  # patches per side drawn (ViT-L/14 at 896 px); a grid heatmap stays 64 x 64 cells
RESIZE_CHANNELS = 16  # channels of the seeded smooth table the resize figure draws from


EMBED_DIMS = {
    "64": "64",
    "128": "128",
    "256": "256",
    "384": "384 (ViT-S)",
    "768": "768 (ViT-B, MAE)",
    "1024": "1024 (ViT-L)",
    "1280": "1280 (ViT-H)",
}
"""Widths offered for the 2-D sin-cos table: multiples of 4 (a sine and a cosine quarter per axis)."""


VISION_HEAD_DIMS = {
    "16": "16",
    "32": "32",
    "64": "64 (ViT-B, ViT-L)",
    "80": "80 (Qwen2-VL: 1280 / 16 heads)",
    "128": "128",
}
"""Head widths offered for 2-D RoPE: multiples of 4 (d/4 frequencies per axis)."""


register_param(
    ParamSpec("grid_h", "int", 14, "Patch rows (grid_h)", 1, MAX_GRID, help="224 px / 16 px patches = 14 rows.")
)


register_param(
    ParamSpec("grid_w", "int", 14, "Patch columns (grid_w)", 1, MAX_GRID, help="224 px / 16 px patches = 14 columns.")
)


register_param(
    ParamSpec(
        "cls_token",
        "bool",
        True,
        "[CLS] token first",
        help="ViT and MAE put a [CLS] token before the patches; its position row is zeros in MAE's sin-cos table.",
    )
)


register_param(
    ParamSpec(
        "embed_dim",
        "choice",
        "256",
        "Embedding width (dim)",
        choices=tuple(EMBED_DIMS),
        choice_labels=EMBED_DIMS,
        help="A quarter of the channels each: sin(column), cos(column), sin(row), cos(row).",
    )
)


register_param(
    ParamSpec(
        "patch_row",
        "int",
        4,
        "Chosen patch: row",
        0,
        MAX_GRID - 1,
        limits=index_below("grid_h", "the grid has {n} rows"),
    )
)


register_param(
    ParamSpec(
        "patch_col",
        "int",
        9,
        "Chosen patch: column",
        0,
        MAX_GRID - 1,
        limits=index_below("grid_w", "the grid has {n} columns"),
    )
)


register_param(
    ParamSpec("old_grid", "int", 14, "Trained grid (side)", 2, MAX_GRID, help="ViT-B/16 at 224 px: 14 x 14 patches.")
)


register_param(
    ParamSpec("new_grid", "int", 24, "New grid (side)", 2, MAX_GRID, help="ViT-B/16 at 384 px: 24 x 24 patches.")
)


register_param(
    ParamSpec(
        "resize_mode",
        "choice",
        "bicubic",
        "Interpolation",
        choices=vision.RESIZE_MODES,
        help="timm's default is bicubic with antialias.",
    )
)


register_param(
    ParamSpec(
        "antialias",
        "bool",
        True,
        "Antialias",
        help="PyTorch's antialiased resampling (PIL's filters: bicubic with a = -0.5, edges renormalised); without "
        "it, bicubic uses a = -0.75 and repeats the edge. timm's default: on.",
    )
)


register_param(
    ParamSpec(
        "channel",
        "int",
        0,
        "Channel drawn",
        0,
        RESIZE_CHANNELS - 1,
        help=f"One of the {RESIZE_CHANNELS} channels of the seeded smooth table.",
    )
)


register_param(
    ParamSpec(
        "vision_head_dim",
        "choice",
        "80",
        "Head dimension",
        choices=tuple(VISION_HEAD_DIMS),
        choice_labels=VISION_HEAD_DIMS,
        help="d/4 frequencies, each turning one pair with the row and one with the column.",
    )
)


register_param(
    ParamSpec(
        "vision_base",
        "float",
        10000.0,
        "Base (vision rope_theta)",
        1.0001,
        1e12,
        log=True,
        help="The vision tower's own RoPE base (Qwen2-VL's vision_config: 10000), not the language model's.",
    )
)


def _frequency_limits(values: Mapping[str, Any]) -> tuple[int, int, str] | None:
    """A frequency index j below head_dim / 4."""
    if "vision_head_dim" not in values:
        return None
    quarter = int(values["vision_head_dim"]) // 4
    return 0, quarter - 1, f"head_dim {values['vision_head_dim']} has {quarter} frequencies per axis"


register_param(
    ParamSpec(
        "frequency",
        "int",
        2,
        "Frequency j",
        0,
        int(max(VISION_HEAD_DIMS, key=int)) // 4 - 1,
        help="Pair j turns with the row and pair d/4 + j with the column, both by ω_j = base^(-4j/d) per patch.",
        limits=_frequency_limits,
    )
)
