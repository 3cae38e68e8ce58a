"""The M-RoPE page's "What to notice" points and the position-id figure's caption, worded for the segments, the
layout and the numbers drawn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from posenc.figures.mrope.params import AXES
from posenc.figures.mrope.segments import Segment, parse_segments, segment_spans
from posenc.i18n import _


def vision_sentence(segments: list[Segment]) -> str:
    """What T does for the images and videos among ``segments``: one T id per temporal patch (two frames), so all
    tokens share one only when t = 1."""
    vision = [s for s in segments if s.kind != "text"]
    image, video = any(s.t == 1 for s in vision), any(s.t > 1 for s in vision)
    if image and video:
        return _(
            "an image (t = 1: one temporal patch) keeps one T id for all its tokens and a video (or any item with "
            "t > 1) steps T once per temporal patch (two frames); H follows the token rows and W the columns"
        )
    if image:
        return _(
            "an image (t = 1: one temporal patch) keeps one T id for all its tokens; H follows the token rows and W "
            "the columns"
        )
    return _(
        "a video (or any item with t > 1) steps T once per temporal patch (two frames); H follows the token rows and "
        "W the columns"
    )


def id_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    segments = parse_segments(p["segments"], p["spatial_merge_size"])
    points = [_("Text tokens climb the dotted diagonal on all three rows: with text only, M-RoPE *is* 1-D RoPE.")]
    vision = [(s, first, end) for s, first, end in segment_spans(segments) if s.kind != "text"]
    if not vision:
        return points
    m = p["spatial_merge_size"]
    s, first, end = vision[0]
    t_ids, ids = data["t"][first:end], np.stack([data[a.lower()][first:end] for a in AXES])
    low, high = int(ids.min()), int(ids.max())
    time = (
        _("all its tokens share T id {id} (t = 1)").format(id=int(t_ids[0]))
        if s.t == 1
        else _("T steps once per temporal patch, ids {low}–{high} for its {frames} temporal patches").format(
            low=int(t_ids.min()), high=int(t_ids.max()), frames=s.t
        )
    )
    message = (
        _(
            "The image {t}×{h}×{w} (merged {m}×{m}: {t}×{rows}×{columns} = {count} tokens) uses only the ids "
            "{low}–{high}: {time}, H steps once per token row and W sweeps each row."
        )
        if s.kind == "image"
        else _(
            "The video {t}×{h}×{w} (merged {m}×{m}: {t}×{rows}×{columns} = {count} tokens) uses only the ids "
            "{low}–{high}: {time}, H steps once per token row and W sweeps each row."
        )
    )
    points.append(
        message.format(
            t=s.t, h=s.h, w=s.w, m=m, rows=s.h // m, columns=s.w // m, count=s.count, low=low, high=high, time=time
        )
    )
    delta = int(max(data[a.lower()].max() for a in AXES)) + 1 - len(data["t"])
    points.append(
        _(
            "The text after a vision item resumes from its largest id + 1, below the dotted line: the rope delta is "
            "{delta} (the next generated token gets position N + delta on all three axes)."
        ).format(delta=delta)
    )
    if any(s.t > 1 for s, _first, _end in vision):
        points.append(
            _(
                "With t > 1 (a video: one temporal patch per 2 frames) the T id steps once per temporal patch, so "
                "the same patch two frames later is one T id away; only t = 1 keeps one T id for the whole item. "
                "Qwen2.5-VL steps T by absolute time instead: temporal patch × seconds per temporal patch × "
                "tokens_per_second (2 ids per temporal patch for a 2-fps video)."
            )
        )
    return points


def pair_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    axis, wavelength = data["axis"].astype(int), data["wavelength"]
    pairs = {name: np.flatnonzero(axis == a) for a, name in enumerate(AXES)}
    half = len(axis)
    if p["mrope_layout"] == "qwen2_vl":
        blocks = ", ".join(
            _("{axis} pairs {first}–{last} (wavelengths {short}–{long} tokens)").format(
                axis=name,
                first=pairs[name][0],
                last=pairs[name][-1],
                short=_tokens(wavelength[pairs[name][0]]),
                long=_tokens(wavelength[pairs[name][-1]]),
            )
            for name in AXES
            if pairs[name].size
        )
        order = _(
            "Qwen2-VL's blocks: {blocks}. T takes the fastest-turning frequencies, W the slowest. In the angle "
            "heatmap the T columns stay constant across an image, the H columns change between its rows, the W "
            "columns along each row."
        ).format(blocks=blocks)
    else:
        first = {name: int(pairs[name][0]) for name in AXES if pairs[name].size}
        tail = int(3 * max(pairs["H"].size, pairs["W"].size))
        tail_note = _("; pairs {first}–{last} all go to T").format(first=tail, last=half - 1) if tail < half else ""
        order = _(
            "Qwen3-VL's interleaved order: pairs cycle T, H, W, T, H, W, … (H from pair {h}, W from pair {w}), so "
            "every axis gets fast and slow frequencies{tail}. In the angle heatmap the H and W columns change across "
            "an image at every speed, not only in the slow half."
        ).format(h=first.get("H", "-"), w=first.get("W", "-"), tail=tail_note)
    return [
        order,
        _(
            "The sections must add up to head_dim / 2 = {half}: Qwen2-VL-7B uses 16, 24, 24 (head_dim 128, base "
            "1,000,000) in blocks; Qwen3-VL interleaves 24, 20, 20."
        ).format(half=half),
    ]


def grid_points(data: Mapping[str, np.ndarray]) -> list[str]:
    if not len(data.get("t", ())):
        return [_("Add an image or a video to the segments to see its grid.")]
    t, h, w = (data[a] for a in ("t", "h", "w"))
    frames = int(t.max() - t.min()) + 1
    time = (
        _("every token has the same T id ({id}): one temporal patch").format(id=int(t[0]))
        if frames == 1
        else _(
            "the T id steps once per temporal patch ({low}–{high}): tokens share it only within a temporal patch "
            "(two frames)"
        ).format(low=int(t.min()), high=int(t.max()))
    )
    return [
        _(
            "H runs {h_low}–{h_high} down the rows and W {w_low}–{w_high} along them: the ids are the grid "
            "coordinates plus one offset, so neighbouring patches are one id apart in each direction."
        ).format(h_low=int(h.min()), h_high=int(h.max()), w_low=int(w.min()), w_high=int(w.max())),
        _("T: {time}.").format(time=time),
    ]


def _tokens(value: float) -> str:
    """54.4, 1,720, 54,400: three significant digits, without exponents."""
    return f"{float(f'{value:.3g}'):,.0f}" if value >= 100 else f"{value:.3g}"
