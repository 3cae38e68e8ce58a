"""The ``segments`` parameter (text, image and video items) parsed, and the position ids the core gives them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

from posenc.figures.mrope.params import MAX_ITEMS, MAX_TOKENS
from posenc.i18n import _
from posenc_core.rope import mrope


@dataclass(frozen=True)
class Segment:
    """One parsed item: ``count`` text tokens, or an image/video of t x h x w patches."""

    kind: str
    t: int = 0
    h: int = 0
    w: int = 0
    count: int = 0  # tokens after merging

    @property
    def label(self) -> str:
        if self.kind == "text":
            return _("text ×{count}").format(count=self.count)
        shape = f"{self.t}×{self.h}×{self.w}"
        return (
            _("image {shape}").format(shape=shape) if self.kind == "image" else _("video {shape}").format(shape=shape)
        )


def parse_segments(text: str, spatial_merge_size: int) -> list[Segment]:
    """``text:3,image:1x4x6,video:2x4x4`` -> segments, or a ValueError naming the bad item and the rule."""
    items = [item.strip() for item in str(text).lower().split(",") if item.strip()]
    if not items:
        raise ValueError(_("segments must list at least one item, e.g. text:3,image:1x4x6,text:2"))
    if len(items) > MAX_ITEMS:
        raise ValueError(
            _("segments must list at most {most} items (got {count})").format(most=MAX_ITEMS, count=len(items))
        )
    segments = [
        _parse_item(_("segments item {number} ({item})").format(number=i, item=repr(item)), item, spatial_merge_size)
        for i, item in enumerate(items, 1)
    ]
    total = sum(s.count for s in segments)
    if total > MAX_TOKENS:
        raise ValueError(
            _(
                "segments hold {total:,} tokens after merging; at most {most:,} are drawn: use fewer or smaller items"
            ).format(total=total, most=MAX_TOKENS)
        )
    return segments


def _parse_item(where: str, item: str, merge: int) -> Segment:
    kind, _colon, size = (part.strip() for part in item.partition(":"))
    if kind == "text":
        if not size.isdigit() or int(size) < 1:
            raise ValueError(_("{where}: text takes a token count of at least 1, e.g. text:3").format(where=where))
        return Segment("text", count=int(size))
    if kind not in ("image", "video"):
        raise ValueError(
            _("{where}: the kind must be text, image or video, e.g. text:3 or image:1x4x6").format(where=where)
        )
    dims = [part.strip() for part in size.split("x")]
    lengths = (2, 3) if kind == "image" else (3,)
    if not all(part.isdigit() and int(part) >= 1 for part in dims) or len(dims) not in lengths:
        message = (
            _("{where}: image takes TxHxW or HxW patch counts of at least 1, e.g. image:1x4x6")
            if kind == "image"
            else _("{where}: video takes TxHxW patch counts of at least 1, e.g. video:1x4x6")
        )
        raise ValueError(message.format(where=where))
    t, h, w = (1, *map(int, dims)) if len(dims) == 2 else map(int, dims)
    for name, value in (("h", h), ("w", w)):
        if value % merge:
            raise ValueError(
                _("{where}: {name}={value} must be divisible by spatial_merge_size={merge}").format(
                    where=where, name=name, value=value, merge=merge
                )
            )
    return Segment(kind, t, h, w, t * (h // merge) * (w // merge))


def core_segments(segments: list[Segment]) -> list[Any]:
    made = []
    for s in segments:
        if s.kind == "text":
            made.append(mrope.TextSegment(s.count))
        elif s.kind == "image":
            made.append(mrope.ImageSegment(s.t, s.h, s.w))
        else:
            made.append(mrope.VideoSegment(s.t, s.h, s.w))
    return made


def position_ids(p: Mapping[str, Any]) -> tuple[list[Segment], torch.Tensor]:
    """The parsed segments and their (3, N) position ids from the core (rows T, H, W)."""
    segments = parse_segments(p["segments"], p["spatial_merge_size"])
    ids = mrope.position_ids(core_segments(segments), spatial_merge_size=p["spatial_merge_size"], device=p["device"])
    return segments, ids.cpu()


def segment_spans(segments: list[Segment]) -> list[tuple[Segment, int, int]]:
    """(segment, first token, last token + 1) of every segment."""
    spans, start = [], 0
    for s in segments:
        spans.append((s, start, start + s.count))
        start += s.count
    return spans
