"""The code behind the ALiBi figures: slopes, biases and the attention they leave, in NumPy.

Ref: Press et al. 2022, arXiv 2108.12409; MosaicML llm-foundry ``gen_slopes`` (``alibi_bias_max``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures.code import Snippet, assignments, code_block, figure_data, register_code

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
