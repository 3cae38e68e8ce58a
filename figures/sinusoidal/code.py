"""The code behind the sinusoidal figures: the table PE[p, j] from Vaswani's formula in NumPy, for the layout drawn.

Ref: Vaswani et al. 2017, arXiv 1706.03762 §3.5 (see :mod:`posenc_core.sinusoidal` for the three layouts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures.code import Snippet, assignments, code_block, figure_data, index_code, register_code
from figures.shown import shown_channels
from figures.sinusoidal.params import shown
from figures.sinusoidal.table import HEATMAP_PAIRS, HEATMAP_POSITIONS, HEATMAP_WINDOW

_TABLE = {
    # pair i turns at ω_i; channel 2i = sin(p·ω_i), 2i+1 = cos(p·ω_i)
    "interleaved": """
        omega = base ** (-2 * np.arange((d_model + 1) // 2) / d_model)  # ω_i = base^(-2i/d)
        angle = positions[:, None] * omega[None, :]  # (P, pairs): p·ω_i
        pe = np.zeros((len(positions), d_model))
        pe[:, 0::2] = np.sin(angle)  # channel 2i
        pe[:, 1::2] = np.cos(angle[:, : d_model // 2])  # channel 2i + 1
        """,
    # the same ω_i; all sin channels, then all cos channels
    "half": """
        omega = base ** (-2 * np.arange((d_model + 1) // 2) / d_model)  # ω_i = base^(-2i/d)
        angle = positions[:, None] * omega[None, :]  # (P, pairs): p·ω_i
        pe = np.concatenate([np.sin(angle), np.cos(angle[:, : d_model // 2])], axis=1)
        """,
    # timescales 1 .. base: ω_i = base^(-i/(d/2 - 1)); sin channels, cos channels, a zero channel for an odd d
    "t2t": """
        omega = base ** (-np.arange(d_model // 2) / (d_model // 2 - 1))  # ω_i = base^(-i/(d/2 - 1))
        angle = positions[:, None] * omega[None, :]  # (P, pairs): p·ω_i
        pe = np.concatenate([np.sin(angle), np.cos(angle)], axis=1)
        pe = np.pad(pe, ((0, 0), (0, d_model % 2)))  # an odd d_model ends with a zero channel
        """,
}


def table_code(layout: str) -> str:
    """The lines computing ``pe`` (P, d_model) at ``positions`` from ``d_model`` and ``base``."""
    return _TABLE[layout]


@register_code("sinusoidal-heatmap")
def heatmap_code(values: Mapping[str, Any]) -> Snippet:
    positions, _ = shown(values, HEATMAP_WINDOW if values["view"] == "window" else HEATMAP_POSITIONS)
    channels, sampled = shown_channels(values["d_model"], values["layout"], HEATMAP_PAIRS)
    pick = f"pe = pe[:, {index_code(channels)}]  # the channels drawn" if sampled else ""
    source = code_block(
        assignments(values, "d_model", "base"),
        f"positions = {index_code(positions)}  # the rows drawn",
        table_code(values["layout"]),
        pick,
        "result = pe  # (positions, channels), the heatmap",
    )
    return Snippet(source, expected=lambda: figure_data("sinusoidal-heatmap", values)["encoding"])
