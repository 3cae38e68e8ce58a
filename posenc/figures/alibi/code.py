"""The code behind the ALiBi figures: slopes, biases and the attention they leave, in NumPy.

Ref: Press et al. 2022, arXiv 2108.12409; MosaicML llm-foundry ``gen_slopes`` (``alibi_bias_max``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, assignments, code_block, figure_data, index_code, register_code
from posenc.drawing.shown import shown_positions
from posenc.figures.alibi.attention import DISTANCE_POINTS
from posenc.figures.alibi.bias import BIAS_CELLS
from posenc.figures.alibi.params import chosen_heads
from posenc_core import sampling

SLOPES = """
    padded = 2 ** math.ceil(math.log2(n_heads))  # heads rounded up to a power of two
    slopes = 2.0 ** (-alibi_bias_max * np.arange(1, padded + 1) / padded)  # m_k = 2^(-max·k/n')
    if padded != n_heads:  # the odd-numbered slopes first, then the others (MPT's order)
        slopes = np.concatenate([slopes[1::2], slopes[::2]])[:n_heads]
    """


@register_code("alibi-slopes")
def slopes_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        assignments(values, "n_heads", "alibi_bias_max"),
        SLOPES,
        "result = slopes  # one bar per head",
        imports=("math", "numpy as np"),
    )
    return Snippet(source, expected=lambda: figure_data("alibi-slopes", values)["slope"])


@register_code("alibi-attention")
def attention_code(values: Mapping[str, Any]) -> Snippet:
    length = values["seq_len"]
    if length <= DISTANCE_POINTS:
        distances = "distances = np.arange(seq_len)"
    else:  # every distance near 0, log-spaced beyond
        distances = (
            f"spaced = np.logspace(0, np.log10(seq_len), {DISTANCE_POINTS}).round().astype(int) - 1\n"
            f"distances = np.unique(np.concatenate([np.arange({min(DISTANCE_POINTS // 4, length)}), "
            "spaced.clip(0, seq_len - 1)]))"
        )
    source = code_block(
        assignments(values, "n_heads", "alibi_bias_max", "seq_len"),
        SLOPES,
        f"""
        {distances}
        # the query at seq_len - 1 with equal content logits: softmax over the keys of -m·d, d = 0 .. seq_len - 1
        m, d = slopes[:, None], distances[None, :]
        weight = np.exp(-m * d) * -np.expm1(-m) / -np.expm1(-m * seq_len)  # e^(-m·d)(1 - e^(-m)) / (1 - e^(-m·L))
        result = {{"distance": distances, "weight": weight.clip(min=1e-30), "slope": slopes}}
        """,
        imports=("math", "numpy as np"),
    )
    return Snippet(source, expected=lambda: figure_data("alibi-attention", values))


@register_code("alibi-bias")
def bias_code(values: Mapping[str, Any]) -> Snippet:
    heads = chosen_heads(values)
    side = min(sampling.MAX_CELLS_PER_AXIS, int(math.sqrt(BIAS_CELLS / len(heads))))
    positions, _ = shown_positions(values, values["seq_len"], side)
    if values["mode"] == "causal":
        bias = "bias = np.where(i >= j, -m * (i - j), -np.inf)  # -m·(i - j); keys after the query are masked"
    else:
        bias = "bias = -m * np.abs(i - j)  # -m·|i - j|"
    source = code_block(
        assignments(values, "n_heads", "alibi_bias_max"),
        SLOPES,
        f"""
        heads = {list(heads)}
        positions = {index_code(positions)}  # the rows (queries i) and columns (keys j) drawn
        m = slopes[heads][:, None, None]
        i, j = positions[None, :, None], positions[None, None, :]
        {bias}
        result = bias  # (heads, queries, keys)
        """,
        imports=("math", "numpy as np"),
    )
    return Snippet(source, expected=lambda: figure_data("alibi-bias", values)["bias"])


@register_code("alibi-span")
def span_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        assignments(values, "n_heads", "alibi_bias_max", "seq_len", "mass"),
        SLOPES,
        """
        # the n most recent keys hold 1 - e^(-m·n) of the weight; all seq_len keys hold 1 - e^(-m·seq_len)
        target = mass * -np.expm1(-slopes * seq_len)
        span = np.ceil(-np.log1p(-target) / slopes)  # the fewest n with 1 - e^(-m·n) >= target
        result = np.minimum(span, seq_len)
        """,
        imports=("math", "numpy as np"),
    )
    return Snippet(source, expected=lambda: figure_data("alibi-span", values)["effective_span"])
