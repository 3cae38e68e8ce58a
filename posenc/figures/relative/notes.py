"""The relative page's "What to notice" points, worded for the parameters drawn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.figures.relative.t5 import bucket_segments, max_exact
from posenc.i18n import _


def shaw_points(p: Mapping[str, Any]) -> list[str]:
    k, length = p["clip_distance"], p["seq_len"]
    points = [
        _(
            "Along every diagonal the index is constant: only the offset j − i matters, so the window looks the same "
            "at every start."
        ),
        _(
            "Beyond ±k = ±{k:,} the index saturates at 0 or {top:,}: the model cannot tell a distance of {k:,} from "
            "{far:,}."
        ).format(k=k, top=2 * k, far=10 * k),
    ]
    if k >= length - 1:
        points.append(
            _("At L = {length:,} no offset reaches k = {k:,}: nothing is clipped; lower k or raise seq_len.").format(
                length=length, k=k
            )
        )
    else:
        clipped = (length - k - 1) * (length - k) / (length * length)  # the share of cells with |j − i| > k
        points.append(
            _(
                "At L = {length:,}, {clipped:.0%} of the (query, key) pairs lie beyond ±{k:,} (the dark corners) and "
                "share the two end rows of the table."
            ).format(length=length, clipped=clipped, k=k)
        )
    return points


def t5_points(p: Mapping[str, Any]) -> list[str]:
    exact, distance, buckets = max_exact(p), p["max_distance"], p["num_buckets"]
    segments = bucket_segments(p)
    past = segments[segments["max_rel"] <= 0]
    last = past.iloc[0]  # the farthest past bucket: every offset from min_rel = -inf to max_rel
    side = buckets // 2 if p["bidirectional"] else buckets
    first = -int(last["max_rel"])  # the nearest offset in the last bucket
    if first < distance:
        shared = _(
            "Every offset of {first:,} or more shares the last bucket ({bucket}): its own log-width step "
            "({first:,}–{before:,}) and, clamped into it, every offset from max_distance = {distance:,} on. No new "
            "buckets appear for longer inputs, which is why T5 runs past its training length, but it cannot tell far "
            "tokens apart."
        )
    else:
        shared = _(
            "Every offset of {first:,} or more shares the last bucket ({bucket}): every offset from max_distance = "
            "{distance:,} on. No new buckets appear for longer inputs, which is why T5 runs past its training length, "
            "but it cannot tell far tokens apart."
        )
    points = [
        _(
            "The first {exact} buckets of a side hold one offset each (exact region, |j − i| < {exact}); then bucket "
            "widths grow geometrically (log region): nearby tokens are told apart finely, distant ones coarsely."
        ).format(exact=exact),
        shared.format(first=first, bucket=int(last["bucket"]), before=distance - 1, distance=distance),
    ]
    if p["bidirectional"]:
        points.append(
            _(
                "Bidirectional: the {buckets} buckets are split, {side} for keys before the query and {side} for keys "
                "after it (their bucket + {side})."
            ).format(buckets=buckets, side=side)
        )
    else:
        points.append(
            _("Causal: every key after the query falls into bucket 0; past offsets use all {side} buckets.").format(
                side=side
            )
        )
    if p["seq_len"] - 1 < first:
        points.append(
            _(
                "At L = {length:,} no offset reaches the last bucket: raise seq_len above {first:,} to see it take "
                "over the corners of the matrix."
            ).format(length=p["seq_len"], first=first)
        )
    points.append(_("The preset *T5-base* sets num_buckets = 32 and max_distance = 128 (12 heads, 512 positions)."))
    return points
