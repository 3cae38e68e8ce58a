"""The code behind the relative-position figures: Shaw's clipped index and T5's buckets, in PyTorch.

T5's bucket is computed with float32 logs and truncation, as HF does (a float64 version can land one bucket lower).
Ref: Shaw et al. 2018, arXiv 1803.02155; Raffel et al. 2020, arXiv 1910.10683; HF ``modeling_t5``
``T5Attention._relative_position_bucket``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, assignments, code_block, figure_data, index_code, register_code
from posenc.drawing.shown import shown_positions
from posenc.figures.relative.shaw import MATRIX_CELLS
from posenc.figures.relative.t5 import max_exact

T5_BUCKET = """
    def bucket(rel, bidirectional):  # T5's bucket of rel = j - i (key minus query)
        side = num_buckets // 2 if bidirectional else num_buckets  # buckets per side
        offset = (rel > 0).long() * side if bidirectional else torch.zeros_like(rel)  # keys after: the upper half
        n = rel.abs() if bidirectional else (-rel).clamp(min=0)  # the distance
        exact = side // 2  # distances below this get a bucket each
        log_bucket = (torch.log(n.clamp(min=exact).float() / exact) / math.log(max_distance / exact) * (side - exact))
        return offset + torch.where(n < exact, n, (exact + log_bucket.long()).clamp(max=side - 1))
    """


@register_code("relative-shaw")
def shaw_code(values: Mapping[str, Any]) -> Snippet:
    positions, _ = shown_positions(values, values["seq_len"], MATRIX_CELLS)
    source = code_block(
        assignments(values, "clip_distance"),
        f"""
        positions = {index_code(positions, "torch")}  # the rows (queries i) and columns (keys j) drawn
        rel = positions[None, :] - positions[:, None]  # j - i
        result = rel.clamp(-clip_distance, clip_distance) + clip_distance  # a row of a (2k + 1)-row table
        """,
        imports=("torch",),
    )
    return Snippet(source, expected=lambda: figure_data("relative-shaw", values)["index"])


@register_code("relative-t5-matrix")
def t5_matrix_code(values: Mapping[str, Any]) -> Snippet:
    positions, _ = shown_positions(values, values["seq_len"], MATRIX_CELLS)
    source = code_block(
        assignments(values, "num_buckets", "max_distance", "bidirectional"),
        T5_BUCKET,
        f"""
        positions = {index_code(positions, "torch")}  # the rows (queries i) and columns (keys j) drawn
        result = bucket(positions[None, :] - positions[:, None], bidirectional)
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=lambda: figure_data("relative-t5-matrix", values)["bucket"])


@register_code("relative-t5-bucket")
def t5_bucket_code(values: Mapping[str, Any]) -> Snippet:
    distance = values["max_distance"]
    drawn = [  # the variant chosen, and the other one where its exact buckets fit below max_distance
        (name, bidirectional)
        for name, bidirectional in (("bidirectional", True), ("causal", False))
        if bidirectional == values["bidirectional"] or distance > max_exact(values, bidirectional)
    ]
    reach = distance + max(distance // 4, 4)
    source = code_block(
        assignments(values, "num_buckets", "max_distance"),
        T5_BUCKET,
        f"""
        n = torch.arange(max_distance + 2)  # distances 0 .. max_distance + 1: further, nothing changes
        result = {{}}
        for name, bidirectional in {drawn}:
            past = bucket(-n, bidirectional)  # keys n tokens before the query
            buckets = past.unique().flip(0).tolist()  # along j - i: the farthest bucket first
            # a segment starts at its bucket's farthest offset; the farthest bucket runs on (drawn from -{reach})
            starts = [-{reach}] + [-int(n[past == b].max()) for b in buckets[1:]]
            if bidirectional:  # keys after the query: each bucket starts at its nearest offset
                future = bucket(n[1:], True)
                starts += [int(n[1:][future == b].min()) for b in future.unique()]
                buckets += future.unique().tolist()
            result[f"{{name}}_bucket_start"], result[f"{{name}}_bucket"] = starts, buckets
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=lambda: figure_data("relative-t5-bucket", values))
