"""The ALiBi page's "What to notice" points, worded for the parameters and the numbers of the figures drawn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from figures.alibi.params import reference_span

SHALLOWEST_SLOPE = 2.0**-8  # the last head's slope for every power-of-two head count (alibi_bias_max = 8)


def shallowest_span(mass: float = 0.9) -> int:
    """Tokens holding ``mass`` of the attention of a head of slope 2^-8 (unbounded past): about 590 for 90%."""
    return reference_span(SHALLOWEST_SLOPE, mass)


def slope_points(p: Mapping[str, Any]) -> list[str]:
    n, bias_max = p["n_heads"], p["alibi_bias_max"]
    power = 1 << (n.bit_length() - 1)
    if power == n:
        first = f"Each head's slope is 2^(−{bias_max:g}/{n}) = {2.0 ** (-bias_max / n):.3g} times the one before"
        first += f" (from 2^(−{bias_max / n:g}) down to 2^(−{bias_max:g})): on the log axis the bars fall on a "
        first += "straight line."
    else:
        first = (
            f"n_heads = {n} is not a power of two: heads 0–{power - 1} take the {power}-head series (a straight "
            f"line on the log axis), heads {power}–{n - 1} every other slope of the {2 * power}-head series, so their "
            "bars land between the others instead of repeating them."
        )
    return [
        first,
        "Presets: *BLOOM-176B* (112 heads, not a power of two) and *MPT-7B* (32 heads, alibi_bias_max = 8).",
    ]


def bias_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    distance = "i − j" if p["mode"] == "causal" else "|i − j|"
    points = [f"Every diagonal is constant: ALiBi depends only on the distance {distance}, not on where i sits."]
    heads = [int(h) for h in data["heads"]]
    lowest = {h: float(low) for h, low in zip(heads, data["lowest"], strict=True)}
    if len(heads) > 1:
        steep, flat = min(heads, key=lowest.get), max(heads, key=lowest.get)
        ratio = lowest[steep] / lowest[flat] if lowest[flat] else float("inf")
        if p["shared_scale"]:
            points.append(
                f"On one colour scale the shallow heads are nearly flat: head {flat}'s lowest bias is "
                f"{lowest[flat]:.4g}, head {steep}'s {lowest[steep]:.4g} ({ratio:.3g} times as steep). Over the "
                "whole context a shallow head penalises the far keys less than a steep head penalises a few."
            )
        else:
            points.append(
                "Each panel spans its own range (light = 0, dark = its lowest bias), so every head shows the same "
                f"picture: the same matrix −({distance}) times a different slope. Switch on 'One colour scale' to "
                f"see head {flat} {ratio:.3g} times flatter than head {steep}."
            )
    return points


def span_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    slopes, spans = data["slope"], data["effective_span"]
    steep, flat = int(np.argmax(slopes)), int(np.argmin(slopes))
    mass, length = p["mass"], p["seq_len"]
    points = [
        f"With equal content each head's weight falls by e^(−m) per token back: head {steep} (m = "
        f"{slopes[steep]:.3g}) keeps {mass:.1%} of its attention on the last {int(spans[steep]):,} tokens, head "
        f"{flat} (m = {slopes[flat]:.3g}) on the last {int(spans[flat]):,}."
    ]
    unbounded = reference_span(float(slopes[flat]), mass)
    if unbounded > length:
        points.append(
            f"At L = {length:,} the shallowest heads reach the start of the context (their bars meet the L line); "
            f"head {flat}'s span stops growing at about {unbounded:,} tokens, however long the input."
        )
    else:
        points.append(
            f"The span hardly depends on the context: every bar is below L = {length:,}, and a longer input only "
            f"moves head {flat}'s towards {unbounded:,} tokens. Past its span a head sees almost nothing; long-range "
            "information has to be carried by the shallow heads and by depth."
        )
    return points
