"""The M-RoPE page's "What to notice" points and the position-id figure's caption, worded for the segments, the
layout and the numbers drawn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from figures.mrope.params import AXES
from figures.mrope.segments import Segment, parse_segments, segment_spans


def vision_sentence(segments: list[Segment]) -> str:
    """What T does for the images and videos among ``segments``: one T id per frame, so all tokens share one only
    when t = 1."""
    vision = [s for s in segments if s.kind != "text"]
    parts = []
    if any(s.t == 1 for s in vision):
        parts.append("an image (t = 1: one frame) keeps one T id for all its tokens")
    if any(s.t > 1 for s in vision):
        parts.append("a video (or any item with t > 1) steps T once per frame: its tokens share a T id per frame")
    return " and ".join(parts) + "; H follows the token rows and W the columns"


def id_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    segments = parse_segments(p["segments"], p["spatial_merge_size"])
    points = ["Text tokens climb the dotted diagonal on all three rows: with text only, M-RoPE *is* 1-D RoPE."]
    vision = [(s, first, end) for s, first, end in segment_spans(segments) if s.kind != "text"]
    if not vision:
        return points
    m = p["spatial_merge_size"]
    s, first, end = vision[0]
    t_ids, ids = data["t"][first:end], np.stack([data[a.lower()][first:end] for a in AXES])
    low, high = int(ids.min()), int(ids.max())
    time = (
        f"all its tokens share T id {int(t_ids[0])} (t = 1)"
        if s.t == 1
        else f"T steps once per frame, ids {int(t_ids.min())}–{int(t_ids.max())} for its {s.t} frames"
    )
    points.append(
        f"The {s.kind} {s.t}×{s.h}×{s.w} (merged {m}×{m}: {s.t}×{s.h // m}×{s.w // m} = {s.count} tokens) uses "
        f"only the ids {low}–{high}: {time}, H steps once per token row and W sweeps each row."
    )
    delta = int(max(data[a.lower()].max() for a in AXES)) + 1 - len(data["t"])
    points.append(
        "The text after a vision item resumes from its largest id + 1, below the dotted line: the rope delta is "
        f"{delta} (the next generated token gets position N + delta on all three axes)."
    )
    if any(s.t > 1 for s, _, _ in vision):
        points.append(
            "With t > 1 (a video: one temporal patch per 2 frames) the T id steps once per frame, so the same patch "
            "in the next frame is one T id away; only t = 1 keeps one T id for the whole item."
        )
    return points


def pair_points(p: Mapping[str, Any], data: Mapping[str, np.ndarray]) -> list[str]:
    axis, wavelength = data["axis"].astype(int), data["wavelength"]
    pairs = {name: np.flatnonzero(axis == a) for a, name in enumerate(AXES)}
    half = len(axis)
    if p["mrope_layout"] == "qwen2_vl":
        blocks = ", ".join(
            f"{name} pairs {pairs[name][0]}–{pairs[name][-1]} (wavelengths {_tokens(wavelength[pairs[name][0]])}–"
            f"{_tokens(wavelength[pairs[name][-1]])} tokens)"
            for name in AXES
            if pairs[name].size
        )
        order = (
            f"Qwen2-VL's blocks: {blocks}. T takes the fastest-turning frequencies, W the slowest. In the angle "
            "heatmap the T columns stay constant across an image, the H columns change between its rows, the W "
            "columns along each row."
        )
    else:
        first = {name: int(pairs[name][0]) for name in AXES if pairs[name].size}
        tail = int(3 * max(pairs["H"].size, pairs["W"].size))
        order = (
            f"Qwen3-VL's interleaved order: pairs cycle T, H, W, T, H, W, … (H from pair {first.get('H', '-')}, W "
            f"from pair {first.get('W', '-')}), so every axis gets fast and slow frequencies"
            + (f"; pairs {tail}–{half - 1} all go to T" if tail < half else "")
            + ". In the angle heatmap the H and W columns change across an image at every speed, not only in the "
            "slow half."
        )
    return [
        order,
        f"The sections must add up to head_dim / 2 = {half}: Qwen2-VL-7B uses 16, 24, 24 (head_dim 128, base "
        "1,000,000) in blocks; Qwen3-VL interleaves 24, 20, 20.",
    ]


def grid_points(data: Mapping[str, np.ndarray]) -> list[str]:
    if not len(data.get("t", ())):
        return ["Add an image or a video to the segments to see its grid."]
    t, h, w = (data[a] for a in ("t", "h", "w"))
    frames = int(t.max() - t.min()) + 1
    time = (
        f"every token has the same T id ({int(t[0])}): one frame"
        if frames == 1
        else f"the T id steps once per frame ({int(t.min())}–{int(t.max())}): tokens share it only within a frame"
    )
    return [
        f"H runs {int(h.min())}–{int(h.max())} down the rows and W {int(w.min())}–{int(w.max())} along them: the "
        "ids are the grid coordinates plus one offset, so neighbouring patches are one id apart in each direction.",
        f"T: {time}.",
    ]


def _tokens(value: float) -> str:
    """54.4, 1,720, 54,400: three significant digits, without exponents."""
    return f"{float(f'{value:.3g}'):,.0f}" if value >= 100 else f"{value:.3g}"
