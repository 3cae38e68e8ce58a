"""The vision family's parameters: the patch grid, the embedding width, the chosen patch, the resize and the 2-D
RoPE frequency. Ranges follow the model: a patch inside the grid, a frequency below head_dim/4."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.params import ParamSpec, index_below, register_param
from posenc.i18n import N_, _
from posenc_core.encodings import vision

MAX_GRID = 64  # patches per side drawn (ViT-L/14 at 896 px); a grid heatmap stays 64 x 64 cells
RESIZE_CHANNELS = 16  # channels of the seeded smooth table the resize figure draws from (the "channel" help says 16)


EMBED_DIMS = {  # choice labels, shown with _()
    "64": N_("64"),
    "128": N_("128"),
    "256": N_("256"),
    "384": N_("384 (ViT-S)"),
    "768": N_("768 (ViT-B, MAE)"),
    "1024": N_("1024 (ViT-L)"),
    "1280": N_("1280 (ViT-H)"),
}
"""Widths offered for the 2-D sin-cos table: multiples of 4 (a sine and a cosine quarter per axis)."""


VISION_HEAD_DIMS = {  # choice labels, shown with _()
    "16": N_("16"),
    "32": N_("32"),
    "64": N_("64 (ViT-B, ViT-L)"),
    "80": N_("80 (Qwen2-VL: 1280 / 16 heads)"),
    "128": N_("128"),
}
"""Head widths offered for 2-D RoPE: multiples of 4 (d/4 frequencies per axis)."""


register_param(
    ParamSpec("grid_h", "int", 14, N_("Patch rows (grid_h)"), 1, MAX_GRID, help=N_("224 px / 16 px patches = 14 rows."))
)


register_param(
    ParamSpec(
        "grid_w", "int", 14, N_("Patch columns (grid_w)"), 1, MAX_GRID, help=N_("224 px / 16 px patches = 14 columns.")
    )
)


register_param(
    ParamSpec(
        "cls_token",
        "bool",
        True,
        N_("[CLS] token first"),
        help=N_("ViT and MAE put a [CLS] token before the patches; its position row is zeros in MAE's sin-cos table."),
    )
)


register_param(
    ParamSpec(
        "embed_dim",
        "choice",
        "256",
        N_("Embedding width (dim)"),
        choices=tuple(EMBED_DIMS),
        choice_labels=EMBED_DIMS,
        help=N_("A quarter of the channels each: sin(column), cos(column), sin(row), cos(row)."),
    )
)


register_param(
    ParamSpec(
        "patch_row",
        "int",
        4,
        N_("Chosen patch: row"),
        0,
        MAX_GRID - 1,
        limits=index_below("grid_h", N_("the grid has {n} rows")),
    )
)


register_param(
    ParamSpec(
        "patch_col",
        "int",
        9,
        N_("Chosen patch: column"),
        0,
        MAX_GRID - 1,
        limits=index_below("grid_w", N_("the grid has {n} columns")),
    )
)


register_param(
    ParamSpec(
        "old_grid", "int", 14, N_("Trained grid (side)"), 2, MAX_GRID, help=N_("ViT-B/16 at 224 px: 14 x 14 patches.")
    )
)


register_param(
    ParamSpec(
        "new_grid", "int", 24, N_("New grid (side)"), 2, MAX_GRID, help=N_("ViT-B/16 at 384 px: 24 x 24 patches.")
    )
)


register_param(
    ParamSpec(
        "resize_mode",
        "choice",
        "bicubic",
        N_("Interpolation"),
        choices=vision.RESIZE_MODES,
        help=N_("timm's default is bicubic with antialias."),
    )
)


register_param(
    ParamSpec(
        "antialias",
        "bool",
        True,
        N_("Antialias"),
        help=N_(
            "PyTorch's antialiased resampling (PIL's filters: bicubic with a = -0.5, edges renormalised); without "
            "it, bicubic uses a = -0.75 and repeats the edge. timm's default: on."
        ),
    )
)


register_param(
    ParamSpec(
        "channel",
        "int",
        0,
        N_("Channel drawn"),
        0,
        RESIZE_CHANNELS - 1,
        help=N_("One of the 16 channels of the seeded smooth table."),  # 16: RESIZE_CHANNELS
    )
)


register_param(
    ParamSpec(
        "vision_head_dim",
        "choice",
        "80",
        N_("Head dimension"),
        choices=tuple(VISION_HEAD_DIMS),
        choice_labels=VISION_HEAD_DIMS,
        help=N_("d/4 frequencies, each turning one pair with the row and one with the column."),
    )
)


register_param(
    ParamSpec(
        "vision_base",
        "float",
        10000.0,
        N_("Base (vision rope_theta)"),
        1.0001,
        1e12,
        log=True,
        help=N_("The vision tower's own RoPE base (Qwen2-VL's vision_config: 10000), not the language model's."),
    )
)


def _frequency_limits(values: Mapping[str, Any]) -> tuple[int, int, str] | None:
    """A frequency index j below head_dim / 4."""
    if "vision_head_dim" not in values:
        return None
    quarter = int(values["vision_head_dim"]) // 4
    reason = _("head_dim {head_dim} has {count} frequencies per axis")
    return 0, quarter - 1, reason.format(head_dim=values["vision_head_dim"], count=quarter)


register_param(
    ParamSpec(
        "frequency",
        "int",
        2,
        N_("Frequency j"),
        0,
        int(max(VISION_HEAD_DIMS, key=int)) // 4 - 1,
        help=N_("Pair j turns with the row and pair d/4 + j with the column, both by ω_j = base^(-4j/d) per patch."),
        limits=_frequency_limits,
    )
)
