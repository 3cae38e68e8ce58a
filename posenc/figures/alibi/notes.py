"""The ALiBi page's "What to notice" points, worded for the parameters and the numbers of the figures drawn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from posenc.figures.alibi.params import reference_span
from posenc.i18n import _

SHALLOWEST_SLOPE = 2.0**-8  # the last head's slope for every power-of-two head count (alibi_bias_max = 8)


def shallowest_span(mass: float = 0.9) -> int:
    """Tokens holding ``mass`` of the attention of a head of slope 2^-8 (unbounded past): about 590 for 90%."""
    return reference_span(SHALLOWEST_SLOPE, mass)


def slope_points(p: Mapping[str, Any]) -> list[str]:
    n, bias_max = p["n_heads"], p["alibi_bias_max"]
    power = 1 << (n.bit_length() - 1)
    if power == n:
        first = _(
            "Each head's slope is 2^(−{bias_max:g}/{n}) = {ratio:.3g} times the one before (from 2^(−{top:g}) down "
            "to 2^(−{bias_max:g})): on the log axis the bars fall on a straight line."
        ).format(bias_max=bias_max, n=n, ratio=2.0 ** (-bias_max / n), top=bias_max / n)
    else:
        first = _(
            "n_heads = {n} is not a power of two: heads 0–{last} take the {power}-head series (a straight line on the "
            "log axis), heads {power}–{n_last} every other slope of the {double}-head series, so their bars land "
            "between the others instead of repeating them."
        ).format(n=n, last=power - 1, power=power, n_last=n - 1, double=2 * power)
    return [
        first,
        _("Presets: *BLOOM-176B* (112 heads, not a power of two) and *MPT-7B* (32 heads, alibi_bias_max = 8)."),
    ]


def bias_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    distance = "i − j" if p["mode"] == "causal" else "|i − j|"
    points = [
        _("Every diagonal is constant: ALiBi depends only on the distance {distance}, not on where i sits.").format(
            distance=distance
        )
    ]
    heads = [int(h) for h in data["heads"]]
    lowest = {h: float(low) for h, low in zip(heads, data["lowest"], strict=True)}
    if len(heads) > 1:
        steep, flat = min(heads, key=lowest.get), max(heads, key=lowest.get)
        ratio = lowest[steep] / lowest[flat] if lowest[flat] else float("inf")
        if p["shared_scale"]:
            points.append(
                _(
                    "On one colour scale the shallow heads are nearly flat: head {flat}'s lowest bias is "
                    "{flat_low:.4g}, head {steep}'s {steep_low:.4g} ({ratio:.3g} times as steep). Over the whole "
                    "context a shallow head penalises the far keys less than a steep head penalises a few."
                ).format(flat=flat, flat_low=lowest[flat], steep=steep, steep_low=lowest[steep], ratio=ratio)
            )
        else:
            points.append(
                _(
                    "Each panel spans its own range (light = 0, dark = its lowest bias), so every head shows the same "
                    "picture: the same matrix −({distance}) times a different slope. Switch on '{toggle}' to see "
                    "head {flat} {ratio:.3g} times flatter than head {steep}."
                ).format(distance=distance, toggle=_("One colour scale"), flat=flat, ratio=ratio, steep=steep)
            )
    return points


def span_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    slopes, spans = data["slope"], data["effective_span"]
    steep, flat = int(np.argmax(slopes)), int(np.argmin(slopes))
    mass, length = p["mass"], p["seq_len"]
    points = [
        _(
            "With equal content each head's weight falls by e^(−m) per token back: head {steep} (m = "
            "{steep_slope:.3g}) keeps {mass:.1%} of its attention on the last {steep_span:,} tokens, head {flat} "
            "(m = {flat_slope:.3g}) on the last {flat_span:,}."
        ).format(
            steep=steep,
            steep_slope=slopes[steep],
            mass=mass,
            steep_span=int(spans[steep]),
            flat=flat,
            flat_slope=slopes[flat],
            flat_span=int(spans[flat]),
        )
    ]
    unbounded = reference_span(float(slopes[flat]), mass)
    if unbounded > length:
        points.append(
            _(
                "At L = {length:,} the shallowest heads reach the start of the context (their bars meet the L line); "
                "head {flat}'s span stops growing at about {unbounded:,} tokens, however long the input."
            ).format(length=length, flat=flat, unbounded=unbounded)
        )
    else:
        points.append(
            _(
                "The span hardly depends on the context: every bar is below L = {length:,}, and a longer input only "
                "moves head {flat}'s towards {unbounded:,} tokens. Past its span a head sees almost nothing; "
                "long-range information has to be carried by the shallow heads and by depth."
            ).format(length=length, flat=flat, unbounded=unbounded)
        )
    return points
