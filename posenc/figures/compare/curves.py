"""Each item's curve against the relative distance k, on one footing, and the distances drawn.

Similarity curves are divided by their value at k = 0, so schemes of any width compare; the "signals" panel
(T5) counts distinct position signals instead. What each scheme's curve is: its ``compare_item`` module.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from posenc.drawing.common import sampled_note
from posenc.figures.compare.items import COMPARE_CURVES, CompareItem
from posenc.i18n import _
from posenc_core import sampling

CURVE_POINTS = 1024  # distances per curve (4 curves: 4096 points)


def curve_of(item: CompareItem, distances: torch.Tensor, p: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
    """(distances kept, values there) on the CPU: the similarity divided by its value at k = 0, or the count of
    distinct signals (T5's panel). ``distances`` hold no 0; a curve may keep fewer (a table stops at its end)."""
    curve = COMPARE_CURVES[item.kind]
    if curve.panel == "signals":
        kept, values = curve.curve(item, distances, p)
        return kept.cpu(), values.cpu()
    with_zero = torch.cat([torch.zeros(1, dtype=torch.int64), distances.cpu()])
    kept, values = curve.curve(item, with_zero, p)
    return kept[1:].cpu(), (values[1:] / values[0]).cpu()


def distances(p: Mapping[str, Any]) -> tuple[torch.Tensor, str]:
    """Exact distances at display resolution (log-spaced from 1, or evenly spaced from 0) and their note."""
    length = p["seq_len"]
    if length < 2:
        raise ValueError(_("seq_len must be at least 2 to compare distances (got {length})").format(length=length))
    if p["distance_axis"] == "linear":
        ks = sampling.sampled_positions(length, CURVE_POINTS)
        return ks, sampled_note(ks.numel(), length, "distances")
    grid = torch.logspace(0, math.log10(length - 1), CURVE_POINTS, dtype=torch.float64).round().long()
    ks = torch.unique(grid)
    if ks.numel() >= length - 1:
        return ks, _("all distances 1 to {last:,} (k = 0 is 1 by definition; a log axis cannot show it)").format(
            last=length - 1
        )
    return ks, _("sampled: {shown:,} of {total:,} distances, log-spaced (exact values at those distances)").format(
        shown=ks.numel(), total=length - 1
    )


def notes(items: list[CompareItem]) -> list[str]:
    """What each drawn kind's curve is, once per sentence, in the order of the items."""
    sentences = []
    for item in items:
        note = COMPARE_CURVES[item.kind].note
        sentence = note(item) if note else ""
        if sentence and sentence not in sentences:
            sentences.append(sentence)
    return sentences
