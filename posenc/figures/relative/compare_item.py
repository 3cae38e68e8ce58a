"""T5 in Compare: ``t5[:preset]``. Its bias is one learned scalar per bucket, so without trained weights there is
no similarity curve; its panel counts the distinct position signals (buckets) among the distances 0..k."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from posenc.figures.compare.items import CompareCurve, CompareItem, preset_keys, preset_of, register_compare_curve
from posenc.i18n import _
from posenc_core.encodings import relative

DEFAULT_BUCKETS, DEFAULT_MAX_DISTANCE = 32, 128  # T5's own


def _parse(where: str, argument: str, head: str | None, p: Mapping[str, Any]) -> CompareItem:
    if argument and argument.isdigit():
        raise ValueError(_("{where}: t5 takes a preset name after the colon, e.g. t5:t5-base").format(where=where))
    preset = preset_of(where, argument, "t5") if argument else None
    buckets, reach = (
        (preset.t5_num_buckets, preset.t5_max_distance) if preset else (DEFAULT_BUCKETS, DEFAULT_MAX_DISTANCE)
    )
    name = f"T5 {preset.name}" if preset else "T5"
    label = _("{name} ({buckets} buckets, max_distance {reach})").format(name=name, buckets=buckets, reach=reach)
    return CompareItem("t5", label, preset, buckets, max_distance=reach)


def distinct_buckets(item: CompareItem, distances: torch.Tensor) -> torch.Tensor:
    """How many different buckets the distances 0..k (keys k tokens back) fall into, for each k."""
    last = min(int(distances.max()), item.max_distance)  # from max_distance on every distance shares the last bucket
    rel = -torch.arange(last + 1)  # keys k tokens back
    exact = relative.t5_bucket(rel, num_buckets=item.size, max_distance=item.max_distance, device="cpu")
    count = torch.cat([torch.ones(1, dtype=torch.int64), (exact.diff() != 0).long()]).cumsum(0)
    return count[distances.cpu().clamp(max=last)]


def _curve(item: CompareItem, distances: torch.Tensor, p: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
    return distances, distinct_buckets(item, distances)


def _signals(item: CompareItem, p: Mapping[str, Any]) -> float:
    return float(distinct_buckets(item, torch.tensor([p["seq_len"] - 1]))[0])


def _note(item: CompareItem) -> str:
    return _(
        "T5: keys k tokens back, bidirectional buckets; every distance from max_distance on shares one bucket, so T5 "
        "cannot tell those distances apart"
    )


register_compare_curve(
    CompareCurve(
        "t5",
        lambda: f"`t5[:preset]` ({', '.join(preset_keys('t5'))})",
        _parse,
        _curve,
        panel="signals",
        signals=_signals,
        note=_note,
    )
)
