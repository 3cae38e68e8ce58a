"""M-RoPE (Qwen2-VL): three position ids per token (temporal, height, width) and the frequency pairs each drives.

Text tokens get the same id on all three axes, one more per token. An image or video of t x h x w patches
becomes t·(h/m)·(w/m) tokens (m = spatial_merge_size) whose ids are their (t, h/m, w/m) grid coordinates plus
the next free id; the text after it continues from the largest id + 1. The first mrope_section[0] frequency
pairs turn with the T id, the next mrope_section[1] with H, the last with W (Qwen2-VL; Qwen3-VL interleaves).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from figures.common import as_array, sampled_note
from figures.params import ParamSpec, register_param
from figures.registry import FigureResult, register
from figures.theme import COLORWAY, CYCLIC_SCALE, SEQUENTIAL_SCALE
from posenc_core import mrope, rope, sampling

MAX_TOKENS = 4096  # tokens after merging: the three id rows stay a few thousand points each
MAX_ITEMS = 64
AXES = ("T", "H", "W")
AXIS_NAMES = {"T": "temporal", "H": "height", "W": "width"}
LAYOUT_NAMES = {"qwen2_vl": "Qwen2-VL blocks", "interleaved": "Qwen3-VL interleaved"}
SHADES = {"image": "rgba(31,119,180,0.10)", "video": "rgba(255,127,14,0.12)"}
GRID_FRAMES = 4  # frames of a video drawn side by side in the grid figure
GRID_LABELS = 144  # cells up to which the grid prints each token's ids


register_param(
    ParamSpec(
        "segments",
        "text",
        "text:3,image:1x4x6,text:2,video:2x4x4",
        "Segments",
        help="Comma-separated: text:N (N tokens), image:TxHxW or image:HxW, video:TxHxW (patches; H and W "
        "divisible by spatial_merge_size). Example: text:3,image:1x4x6,text:2,video:2x4x4",
    )
)
register_param(
    ParamSpec(
        "spatial_merge_size", "int", 2, "spatial_merge_size", 1, 8, help="m x m patches merge into one token (2)."
    )
)
register_param(
    ParamSpec(
        "mrope_section",
        "ints",
        (16, 24, 24),
        "mrope_section (T, H, W pairs)",
        1,
        256,
        max_items=8,
        unique=False,
        help="Frequency pairs per axis, in order T, H, W; they must add up to head_dim/2 (Qwen2-VL: 16,24,24).",
    )
)
register_param(
    ParamSpec(
        "mrope_layout",
        "choice",
        "qwen2_vl",
        "Pair order",
        choices=mrope.LAYOUTS,
        choice_labels={"qwen2_vl": "Qwen2-VL (blocks)", "interleaved": "Qwen3-VL (interleaved)"},
        help="Which pairs each axis gets: contiguous sections (Qwen2-VL, Qwen2.5-VL) or THWTHW… (Qwen3-VL).",
    )
)
register_param(
    ParamSpec("vision_index", "int", 1, "Image/video in the grid (1 = first)", 1, MAX_ITEMS, help="Counts both kinds.")
)


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
        return f"text ×{self.count}" if self.kind == "text" else f"{self.kind} {self.t}×{self.h}×{self.w}"


def parse_segments(text: str, spatial_merge_size: int) -> list[Segment]:
    """``text:3,image:1x4x6,video:2x4x4`` -> segments, or a ValueError naming the bad item and the rule."""
    items = [item.strip() for item in str(text).lower().split(",") if item.strip()]
    if not items:
        raise ValueError("segments must list at least one item, e.g. text:3,image:1x4x6,text:2")
    if len(items) > MAX_ITEMS:
        raise ValueError(f"segments must list at most {MAX_ITEMS} items (got {len(items)})")
    segments = [
        _parse_item(f"segments item {i} ({item!r})", item, spatial_merge_size) for i, item in enumerate(items, 1)
    ]
    total = sum(s.count for s in segments)
    if total > MAX_TOKENS:
        raise ValueError(
            f"segments hold {total:,} tokens after merging; at most {MAX_TOKENS:,} are drawn: use fewer or "
            "smaller items"
        )
    return segments


def _parse_item(where: str, item: str, merge: int) -> Segment:
    kind, _, size = (part.strip() for part in item.partition(":"))
    if kind == "text":
        if not size.isdigit() or int(size) < 1:
            raise ValueError(f"{where}: text takes a token count of at least 1, e.g. text:3")
        return Segment("text", count=int(size))
    if kind not in ("image", "video"):
        raise ValueError(f"{where}: the kind must be text, image or video, e.g. text:3 or image:1x4x6")
    dims = [part.strip() for part in size.split("x")]
    lengths = (2, 3) if kind == "image" else (3,)
    if not all(part.isdigit() and int(part) >= 1 for part in dims) or len(dims) not in lengths:
        shape = "TxHxW or HxW" if kind == "image" else "TxHxW"
        raise ValueError(f"{where}: {kind} takes {shape} patch counts of at least 1, e.g. {kind}:1x4x6")
    t, h, w = (1, *map(int, dims)) if len(dims) == 2 else map(int, dims)
    for name, value in (("h", h), ("w", w)):
        if value % merge:
            raise ValueError(f"{where}: {name}={value} must be divisible by spatial_merge_size={merge}")
    return Segment(kind, t, h, w, t * (h // merge) * (w // merge))


def _core_segments(segments: list[Segment]) -> list[Any]:
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
    ids = mrope.position_ids(_core_segments(segments), spatial_merge_size=p["spatial_merge_size"], device=p["device"])
    return segments, ids.cpu()


def _spans(segments: list[Segment]) -> list[tuple[Segment, int, int]]:
    """(segment, first token, last token + 1) of every segment."""
    spans, start = [], 0
    for s in segments:
        spans.append((s, start, start + s.count))
        start += s.count
    return spans


@register(
    "mrope-position-ids",
    title="M-RoPE position ids (T, H, W) of a text/image/video sequence",
    page="mrope",
    params=("segments", "spatial_merge_size"),
)
def position_id_rows(p: Mapping[str, Any]) -> FigureResult:
    segments, ids = position_ids(p)
    delta = mrope.mrope_position_delta(_core_segments(segments), spatial_merge_size=p["spatial_merge_size"])
    n = ids.shape[1]
    token = np.arange(n, dtype=np.float32)
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.06)
    mode = "lines+markers" if n <= 64 else "lines"
    for row, axis in enumerate(AXES, start=1):
        fig.add_scatter(
            x=token,
            y=as_array(ids[row - 1]),
            mode=mode,
            line={"shape": "hv", "color": COLORWAY[row - 1]},
            name=f"{axis} ({AXIS_NAMES[axis]})",
            hovertemplate=f"token %{{x:,}}<br>{axis} id %{{y:,}}<extra></extra>",
            row=row,
            col=1,
        )
        fig.add_scatter(
            x=token,
            y=token,
            mode="lines",
            line={"dash": "dot", "color": "#999999", "width": 1},
            name="1-D RoPE position (token index)",
            showlegend=row == 1,
            hoverinfo="skip",
            row=row,
            col=1,
        )
        fig.update_yaxes(title_text=f"{axis} id", row=row, col=1)
    for s, first, end in _spans(segments):
        if s.kind != "text":
            fig.add_vrect(x0=first - 0.5, x1=end - 0.5, fillcolor=SHADES[s.kind], line_width=0, layer="below")
            fig.add_annotation(
                x=(first + end - 1) / 2, y=1.0, yref="paper", yanchor="bottom", text=s.label, showarrow=False
            )
    fig.update_xaxes(title_text="token index (position in the sequence)", row=3, col=1)
    fig.update_layout(
        title=f"M-RoPE position ids of {n:,} tokens, spatial_merge_size={p['spatial_merge_size']}: "
        f"rope delta = max id + 1 − N = {delta:,}",
        height=620,
        margin={"t": 110},
        legend={"orientation": "h", "y": -0.16},
    )
    data = {"token": token, **{axis.lower(): as_array(ids[i]) for i, axis in enumerate(AXES)}}
    data["segment"] = np.repeat(np.arange(len(segments), dtype=np.float32), [s.count for s in segments])
    notes = [
        f"rope delta = {int(ids.max()):,} + 1 − {n:,} = {delta:,}: the next generated token gets position "
        f"N + delta = {n + delta:,} on all three axes (decoding adds delta to the cache position)",
    ]
    if all(s.kind == "text" for s in segments):
        notes.append("text only: T = H = W = token index on every token, so M-RoPE is exactly 1-D RoPE (delta 0)")
    else:
        notes.append(
            "text tokens have T = H = W and step by 1, parallel to the dotted 1-D line; an image keeps one T id "
            "for all its tokens and spreads its token rows over H and its columns over W"
        )
    return FigureResult(fig, data, tuple(notes))


def _check_section(section: tuple[int, ...], head_dim: int) -> tuple[int, ...]:
    if len(section) != 3:
        raise ValueError(f"mrope_section must have 3 items (T, H, W pairs) (got {len(section)}: {section})")
    if sum(section) != head_dim // 2:
        raise ValueError(
            f"mrope_section must add up to head_dim/2 = {head_dim // 2} (got "
            f"{' + '.join(map(str, section))} = {sum(section)})"
        )
    return section


@register(
    "mrope-channels",
    title="M-RoPE: which frequency pairs each axis drives, and the angles they give",
    page="mrope",
    params=("segments", "spatial_merge_size", "mrope_section", "mrope_layout", "head_dim", "base"),
)
def channel_map(p: Mapping[str, Any]) -> FigureResult:
    head_dim, section = p["head_dim"], _check_section(tuple(p["mrope_section"]), p["head_dim"])
    layout = p["mrope_layout"]
    inv_freq = rope.inv_freq(head_dim, p["base"], device=p["device"])[0]
    axis_of = mrope.channel_axes(section, layout=layout, device=p["device"]).cpu()  # (d/2,) 0 = T, 1 = H, 2 = W
    _, ids = position_ids(p)
    shown = sampling.strided_positions(ids.shape[1], sampling.MAX_CELLS_PER_AXIS)
    theta = mrope.angles(ids[:, shown], inv_freq, section, layout=layout).cpu()  # (P, d/2)
    pairs = np.arange(head_dim // 2, dtype=np.float32)
    wavelength = as_array(rope.wavelengths(inv_freq))
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.35, 0.65],
        vertical_spacing=0.08,
        subplot_titles=("wavelength 2π/θ_i of each pair, by the axis that turns it", "angle mod 2π per token and pair"),
    )
    for a, axis in enumerate(AXES):
        chosen = (axis_of == a).numpy()
        fig.add_scatter(
            x=pairs[chosen],
            y=wavelength[chosen],
            mode="markers",
            marker={"color": COLORWAY[a], "size": 6},
            name=f"{axis}: {int(chosen.sum())} pairs ({AXIS_NAMES[axis]} id)",
            hovertemplate=f"pair %{{x}}<br>axis {axis}<br>wavelength %{{y:.6g}} tokens<extra></extra>",
            row=1,
            col=1,
        )
    fig.add_heatmap(
        z=as_array(torch.remainder(theta, 2 * math.pi)),
        x=pairs,
        y=as_array(shown),
        colorscale=CYCLIC_SCALE,
        zmin=0,
        zmax=2 * math.pi,
        colorbar={"title": {"text": "rad"}, "len": 0.6, "y": 0.3},
        hovertemplate="token %{y:,}<br>pair %{x}<br>angle mod 2π %{z:.4f}<extra></extra>",
        row=2,
        col=1,
    )
    if layout == "qwen2_vl":
        for boundary in np.cumsum(section)[:-1]:
            fig.add_vline(x=float(boundary) - 0.5, line={"color": "#333333", "dash": "dash", "width": 1})
    fig.update_yaxes(type="log", title_text="wavelength (tokens)", row=1, col=1)
    fig.update_yaxes(autorange="reversed", title_text="token index", row=2, col=1)
    fig.update_xaxes(title_text="pair index i", row=2, col=1)
    fig.update_layout(
        title=f"M-RoPE pairs per axis, mrope_section={','.join(map(str, section))} ({LAYOUT_NAMES[layout]}), "
        f"head_dim={head_dim}, base={p['base']:g}",
        height=760,
        legend={"orientation": "h", "y": -0.1},
    )
    check = _text_only_difference(ids.shape[1], inv_freq, section, layout)
    notes = (
        _pairs_note(section, layout, head_dim),
        "angle heatmap: " + sampled_note(shown.numel(), ids.shape[1], "tokens"),
        f"text only ({ids.shape[1]:,} text tokens): the M-RoPE angles equal the 1-D RoPE angles m·θ_i, largest "
        f"difference {check:.1g}",
    )
    data = {"pair": pairs, "axis": as_array(axis_of), "wavelength": wavelength, "tokens": as_array(shown)}
    data["angles"] = as_array(theta)
    return FigureResult(fig, data, notes)


def _pairs_note(section: tuple[int, ...], layout: str, head_dim: int) -> str:
    half = head_dim // 2
    if layout == "qwen2_vl":
        h_end = section[0] + section[1]
        where = f"pairs 0–{section[0] - 1} (the fastest) turn with T, {section[0]}–{h_end - 1} with H, "
        where += f"{h_end}–{half - 1} with W"
    else:
        where = "pairs cycle T, H, W, T, H, W, … (each axis gets fast and slow frequencies); the rest go to T"
    return f"{where}; in the half layout pair i is channels i and i + {half}"


def _text_only_difference(n: int, inv_freq: torch.Tensor, section: tuple[int, ...], layout: str) -> float:
    """max |M-RoPE angle − 1-D RoPE angle| over a text-only sequence of n tokens (0: they are the same)."""
    ids = mrope.position_ids([mrope.TextSegment(n)], device=inv_freq.device)
    text_angles = mrope.angles(ids, inv_freq, section, layout=layout)
    return float((text_angles - rope.angles(torch.arange(n), inv_freq)).abs().max())


@register(
    "mrope-grid",
    title="M-RoPE: the (T, H, W) ids of one image or video on its token grid",
    page="mrope",
    params=("segments", "spatial_merge_size", "vision_index"),
)
def vision_grid(p: Mapping[str, Any]) -> FigureResult:
    segments, ids = position_ids(p)
    merge, vision = p["spatial_merge_size"], [span for span in _spans(segments) if span[0].kind != "text"]
    if not vision:
        fig = go.Figure()
        fig.add_annotation(text="segments hold no image or video", showarrow=False, xref="paper", yref="paper")
        fig.update_layout(title="M-RoPE token grid: no image or video in segments", height=260)
        return FigureResult(fig, {}, ("add an item such as image:1x4x6 to see its grid",))
    index = min(p["vision_index"], len(vision))  # the last one when segments hold fewer
    s, first, end = vision[index - 1]
    gt, gh, gw = s.t, s.h // merge, s.w // merge
    block = ids[:, first:end].reshape(3, gt, gh, gw)  # t-major order, as Qwen2-VL flattens the grid
    frames = min(gt, GRID_FRAMES)
    rows = sampling.strided_positions(gh, sampling.MAX_CELLS_PER_AXIS // 2)
    cols = sampling.strided_positions(gw, sampling.MAX_CELLS_PER_AXIS // 2)
    fig = make_subplots(rows=1, cols=frames, subplot_titles=[f"frame t = {f}" for f in range(frames)])
    token = torch.arange(first, end).reshape(gt, gh, gw)
    for f in range(frames):
        t_id, h_id, w_id = (block[a, f][rows][:, cols] for a in range(3))
        label = np.char.add(np.char.add(h_id.numpy().astype(str), ","), w_id.numpy().astype(str))
        fig.add_heatmap(
            z=as_array(token[f][rows][:, cols]),
            x=as_array(cols),
            y=as_array(rows),
            customdata=np.stack([t_id.numpy(), h_id.numpy(), w_id.numpy()], axis=-1),
            text=label if label.size <= GRID_LABELS else None,
            texttemplate="%{text}" if label.size <= GRID_LABELS else None,
            colorscale=SEQUENTIAL_SCALE,
            coloraxis="coloraxis",
            hovertemplate="token %{z:,}<br>row %{y}, column %{x}<br>T, H, W ids = %{customdata[0]}, "
            "%{customdata[1]}, %{customdata[2]}<extra></extra>",
            row=1,
            col=f + 1,
        )
        fig.update_yaxes(autorange="reversed", title_text="token row (h / m)" if f == 0 else None, row=1, col=f + 1)
        fig.update_xaxes(title_text="token column (w / m)", row=1, col=f + 1)
    fig.update_layout(
        title=f"{s.kind} {index} of {len(vision)}: {s.t}×{s.h}×{s.w} patches → {gt}×{gh}×{gw} tokens "
        f"(merge {merge})" + ("; cells print H,W ids" if rows.numel() * cols.numel() <= GRID_LABELS else ""),
        coloraxis={"colorscale": SEQUENTIAL_SCALE, "colorbar": {"title": {"text": "token"}}},
        height=380,
    )
    offset = int(ids[0, first])
    notes = [f"ids = grid coordinates + {offset:,} (one more than the largest id before it); T id = frame + {offset:,}"]
    if index < p["vision_index"]:
        notes.insert(0, f"vision_index={p['vision_index']}, but segments hold {len(vision)}: showing the last one")
    if frames < gt:
        notes.append(f"frames 0–{frames - 1} of {gt} drawn")
    if rows.numel() < gh or cols.numel() < gw:
        notes.append(sampled_note(rows.numel() * cols.numel(), gh * gw, "grid cells"))
    data = {"t": as_array(block[0]).ravel(), "h": as_array(block[1]).ravel(), "w": as_array(block[2]).ravel()}
    return FigureResult(fig, data, tuple(notes))
