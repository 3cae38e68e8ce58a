"""The code behind the RoPE figures, in PyTorch as HF computes it: inv_freq in float32, angles m·θ_i.

Ref: Su et al. 2021, arXiv 2104.09864 eq. (15); HF ``LlamaRotaryEmbedding`` (default rope init).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures.code import Snippet, code_block, figure_data, index_code, literal, register_code
from figures.rope.angles import ANGLE_POSITIONS
from figures.rope.frequencies import rotary_dim
from figures.shown import shown_positions

INV_FREQ = "inv_freq = 1.0 / base ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim)  # θ_i = base^(-2i/d)"


def rotary_lines(values: Mapping[str, Any]) -> str:
    """``base`` and ``rotary_dim`` (= int(head_dim · partial_rotary_factor)) as literals."""
    factor = values["partial_rotary_factor"]
    dim = f"rotary_dim = {rotary_dim(values)}"
    if factor != 1.0:
        dim += f"  # int(head_dim {values['head_dim']} × partial_rotary_factor {factor:g})"
    return f"base = {literal(values['base'])}\n{dim}"


@register_code("rope-angles")
def angles_code(values: Mapping[str, Any]) -> Snippet:
    positions, _ = shown_positions(values, values["seq_len"], ANGLE_POSITIONS)
    source = code_block(
        rotary_lines(values),
        f"""
        {INV_FREQ}
        positions = {index_code(positions, "torch")}  # the columns drawn
        angle = positions[:, None].float() * inv_freq[None, :]  # (P, d/2): m·θ_i, float32 like HF
        result = torch.remainder(angle, 2 * math.pi).T  # (pairs, positions), the heatmap
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=lambda: figure_data("rope-angles", values)["angle_mod_2pi"])
