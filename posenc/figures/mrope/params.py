"""The M-RoPE family's parameters (segments, spatial merge, mrope_section, layout) and limits."""

from __future__ import annotations

from posenc.drawing.params import ParamSpec, register_param
from posenc.i18n import N_
from posenc_core.rope import mrope

MAX_TOKENS = 4096  # tokens after merging: the three id rows stay a few thousand points each


MAX_ITEMS = 64


AXES = ("T", "H", "W")


AXIS_NAMES = {"T": N_("temporal"), "H": N_("height"), "W": N_("width")}  # shown with _()


LAYOUT_NAMES = {"qwen2_vl": N_("Qwen2-VL blocks"), "interleaved": N_("Qwen3-VL interleaved")}  # shown with _()


register_param(
    ParamSpec(
        "segments",
        "text",
        "text:3,image:1x4x6,text:2,video:2x4x4",
        N_("Segments"),
        help=N_(
            "Comma-separated: text:N (N tokens), image:TxHxW or image:HxW, video:TxHxW (patches; H and W "
            "divisible by spatial_merge_size). Example: text:3,image:1x4x6,text:2,video:2x4x4"
        ),
    )
)


register_param(
    ParamSpec(
        "spatial_merge_size",
        "int",
        2,
        N_("spatial_merge_size"),
        1,
        8,
        help=N_("m x m patches merge into one token (2)."),
    )
)


register_param(
    ParamSpec(
        "mrope_section",
        "ints",
        (16, 24, 24),
        N_("mrope_section (T, H, W pairs)"),
        1,
        256,
        max_items=8,
        unique=False,
        help=N_("Frequency pairs per axis, in order T, H, W; they must add up to head_dim/2 (Qwen2-VL: 16,24,24)."),
    )
)


register_param(
    ParamSpec(
        "mrope_layout",
        "choice",
        "qwen2_vl",
        N_("Pair order"),
        choices=mrope.LAYOUTS,
        choice_labels={"qwen2_vl": N_("Qwen2-VL (blocks)"), "interleaved": N_("Qwen3-VL (interleaved)")},
        help=N_("Which pairs each axis gets: contiguous sections (Qwen2-VL, Qwen2.5-VL) or THWTHW… (Qwen3-VL)."),
    )
)


register_param(
    ParamSpec(
        "vision_index",
        "int",
        1,
        N_("Image/video in the grid (1 = first)"),
        1,
        MAX_ITEMS,
        help=N_("Counts both kinds."),
    )
)
