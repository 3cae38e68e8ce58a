"""The Vision page's "What to notice" points, worded from the parameters and the numbers drawn."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from posenc.i18n import _


def grid_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    token = data["token"].astype(int)
    rows, columns = token.shape
    points = [
        _(
            "{rows}×{columns} patches become one sequence of {count:,} tokens, read row by row: patch (r, c) is "
            "token {first} + r·{columns} + c."
        ).format(rows=rows, columns=columns, count=token.size, first=int(token[0, 0]))
    ]
    if rows > 1 and columns > 1:
        points.append(
            _(
                "Neighbours on the image are not neighbours in the sequence: the patch below (0, 0) is token "
                "{below}, {columns} tokens away, while token {end} (the end of row 0) sits right before the start of "
                "row 1. A 1-D position cannot say which patches touch; a 2-D one can."
            ).format(below=int(token[1, 0]), columns=columns, end=int(token[0, -1]))
        )
    if p["cls_token"]:
        points.append(
            _(
                "[CLS] comes first (token 0) and has no place on the grid: it gathers the whole image for "
                "classification; in MAE's sin-cos table its position row is all zeros."
            )
        )
    return points


def table_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    dim, columns = int(p["embed_dim"]), p["grid_w"]
    quarter = dim // 4
    slowest = 10000.0 ** (-(quarter - 1) / quarter)
    points = [
        _(
            "The left half (channels 0–{left_end}) encodes the column c: it repeats every {columns} tokens, once per "
            "grid row. The right half (channels {right_first}–{right_end}) encodes the row r: it is the same for "
            "{columns} tokens in a row, then steps."
        ).format(left_end=dim // 2 - 1, columns=columns, right_first=dim // 2, right_end=dim - 1),
        _(
            "Each half is a 1-D sinusoidal encoding of {half} channels: {quarter} sines then {quarter} cosines, "
            "frequencies from 1 rad per patch down to {slowest:.2g} (base 10000): the fast channels on the left of "
            "each block change from patch to patch, the slow ones barely move across the grid."
        ).format(half=dim // 2, quarter=quarter, slowest=slowest),
    ]
    if p["cls_token"]:
        points.append(_("Token 0, [CLS], is the zero row at the top: MAE gives it no position."))
    return points


def similarity_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    grid = data["similarity"]
    row, col = p["patch_row"], p["patch_col"]
    low = np.unravel_index(int(np.argmin(grid)), grid.shape)
    points = [
        _(
            "The chosen patch ({row}, {col}) scores 1 and the score falls with distance, separately along the row "
            "and along the column: the cosine is the mean of a column term and a row term, so the bright area is a "
            "cross over the chosen row and column, not a disc."
        ).format(row=row, col=col),
        _(
            "The least similar patch drawn is ({row}, {col}) at {score:.3f}: with base 10000 most channels turn "
            "slowly, so even far patches stay well above 0."
        ).format(row=int(low[0]), col=int(low[1]), score=float(grid[low])),
    ]
    if 0 < col < grid.shape[1] - 1:
        left, right = float(grid[row, col - 1]), float(grid[row, col + 1])
        points.append(
            _(
                "Left and right neighbours score the same ({left:.4f} and {right:.4f}): the score depends only on the "
                "offset, not on where the patch sits or on the direction."
            ).format(left=left, right=right)
        )
    return points


def resize_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    old, new = p["old_grid"], p["new_grid"]
    difference = np.abs(data["difference"])
    inside = difference[2:-2, 2:-2].max() if new > 4 else difference.max()
    if new == old:
        first = _("The grid is unchanged ({old}×{old}): timm returns the table as it is.").format(old=old)
    else:
        first = (
            _(
                "The {old}×{old} table is enlarged to {new}×{new} as an image: cell i of the new grid reads the old "
                "one at (i + 0.5)·{old}/{new} − 0.5, between its neighbours. The pattern keeps its place on the "
                "image, so a patch keeps roughly the position vector its area had in training."
            )
            if new > old
            else _(
                "The {old}×{old} table is shrunk to {new}×{new} as an image: cell i of the new grid reads the old "
                "one at (i + 0.5)·{old}/{new} − 0.5, between its neighbours. The pattern keeps its place on the "
                "image, so a patch keeps roughly the position vector its area had in training."
            )
        ).format(old=old, new=new)
    points = [
        first,
        _(
            "Against the same smooth waves sampled on the {new}×{new} grid, the resized table is off by at most "
            "{largest:.2g}, {inside:.2g} two patches in from the edge: the edges, where the filter runs out of "
            "neighbours, carry most of the error (the right panel, on the same colour scale)."
        ).format(new=new, largest=float(difference.max()), inside=float(inside)),
        _("[CLS] is not on the grid: its row is copied unchanged ({value:.4f}).").format(value=float(data["cls"][0])),
    ]
    if new < old and p["antialias"]:
        points.append(_("Shrinking with antialias averages over more old cells, so fine detail is smoothed away."))
    if p["resize_mode"] == "bicubic":
        points.append(
            _(
                "Bicubic with antialias uses PIL's cubic (a = −0.5) and drops taps outside the grid; without "
                "antialias PyTorch's bicubic uses a = −0.75 and repeats the edge, so the two differ even when "
                "enlarging."
            )
        )
    return points


def rope_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    head_dim, j = int(p["vision_head_dim"]), p["frequency"]
    quarter = head_dim // 4
    omega = float(p["vision_base"]) ** (-4 * j / head_dim)
    order = data["order"].astype(int)
    rows, columns = order.shape
    points = [
        _(
            "Pair {j} turns with the row only (its angle is the same across a row, {omega:.3g} rad more per row) and "
            "pair {column_pair} with the column only, by the same ω_{j}: one full turn every {period:.3g} patches. "
            "Half of the {pairs} pairs read the row, half the column."
        ).format(j=j, omega=omega, column_pair=quarter + j, period=2 * math.pi / omega, pairs=head_dim // 2),
        _(
            "So q·k between two patches depends on their row offset and their column offset, exactly what 1-D RoPE "
            "does for token offsets, once per axis, whatever the image size."
        ),
    ]
    merge = p["spatial_merge_size"]
    if merge > 1 and rows % merge == 0 and columns % merge == 0:
        block = order[:merge, :merge].ravel()
        points.append(
            _(
                "Qwen2-VL reads the patches in {m}×{m} blocks (tokens {first}–{last} are the top-left block), so each "
                "block's {count} patches are consecutive and its merger can turn them into one language-model token. "
                "The angles belong to the patch, not to its place in this order."
            ).format(m=merge, first=int(block.min()), last=int(block.max()), count=merge * merge)
        )
    elif merge > 1:
        points.append(
            _(
                "The grid is not whole {m}×{m} blocks, so the order panel is row by row: Qwen2-VL resizes images to "
                "multiples of {m} patches before it reads them in blocks."
            ).format(m=merge)
        )
    return points
