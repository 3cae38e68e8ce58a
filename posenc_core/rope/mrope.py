"""Qwen2-VL multimodal RoPE (M-RoPE): three position ids per token (T, H, W) and the axis each frequency
pair reads.

Text tokens carry one running position on all three axes. A vision block with a t x h x w patch grid becomes
t x (h/s) x (w/s) tokens after the s x s spatial merge; each gets its (T, H, W) grid coordinates plus the
position that follows the text before it. The text after it continues from the block's max + 1, so a
sequence with vision has max + 1 < N positions; decoding adds that delta (max + 1 - N) to every axis.
Text-only input gives three copies of 0..N-1: exactly 1-D RoPE.

Segments are ``TextSegment`` / ``ImageSegment`` / ``VideoSegment`` or dicts such as
{"type": "text", "length": 3}, {"type": "image", "t": 1, "h": 4, "w": 6}. Text lengths count every
non-vision token, <|vision_start|> and <|vision_end|> included.

Ref: HF transformers ``modeling_qwen2_vl.py`` (``Qwen2VLModel.get_rope_index``,
``apply_multimodal_rotary_pos_emb``); ``modeling_qwen2_5_vl.py`` (video time scaling);
``modeling_qwen3_vl.py`` (``apply_interleaved_mrope``); Wang et al. 2024, arXiv 2409.12191 §2.1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import torch

from posenc_core._checks import check_choice, check_float, check_int
from posenc_core.device import resolve_device

AXES = ("T", "H", "W")
LAYOUTS = ("qwen2_vl", "interleaved")
"""qwen2_vl: contiguous sections [T.., H.., W..] (Qwen2-VL, Qwen2.5-VL); interleaved: THWTHW... (Qwen3-VL)."""


@dataclass(frozen=True)
class TextSegment:
    length: int  # tokens, <|vision_start|> / <|vision_end|> included

    def __post_init__(self):
        check_int("length", self.length, minimum=0)


@dataclass(frozen=True)
class ImageSegment:
    t: int  # the vision encoder's patch grid before the spatial merge (image_grid_thw)
    h: int
    w: int

    def __post_init__(self):
        for name in ("t", "h", "w"):
            check_int(name, getattr(self, name), minimum=1)


@dataclass(frozen=True)
class VideoSegment:
    t: int  # the patch grid before the spatial merge (video_grid_thw)
    h: int
    w: int
    second_per_grid_t: float | None = None  # Qwen2.5-VL: seconds per temporal patch (HF default 1.0)
    tokens_per_second: float | None = None  # Qwen2.5-VL vision_config.tokens_per_second (e.g. 2)

    def __post_init__(self):
        for name in ("t", "h", "w"):
            check_int(name, getattr(self, name), minimum=1)
        if self.second_per_grid_t is not None:
            check_float("second_per_grid_t", self.second_per_grid_t, minimum=0.0)
            if self.tokens_per_second is None:
                raise ValueError("second_per_grid_t needs tokens_per_second (the Qwen2.5-VL time scaling)")
        if self.tokens_per_second is not None:
            check_float("tokens_per_second", self.tokens_per_second, minimum=0.0)


Segment = TextSegment | ImageSegment | VideoSegment
_SEGMENT_TYPES = {"text": TextSegment, "image": ImageSegment, "video": VideoSegment}


def as_segment(spec: Segment | Mapping[str, Any]) -> Segment:
    """A segment from itself or a dict {"type": "text"|"image"|"video", ...its fields}."""
    if isinstance(spec, TextSegment | ImageSegment | VideoSegment):
        return spec
    if not isinstance(spec, Mapping):
        raise ValueError(f"segment must be a TextSegment, ImageSegment, VideoSegment or dict (got {spec!r})")
    kind = check_choice("segment type", spec.get("type"), _SEGMENT_TYPES)
    cls = _SEGMENT_TYPES[kind]
    allowed = {field.name for field in fields(cls)}
    unknown = sorted(set(spec) - allowed - {"type"})
    if unknown:
        raise ValueError(f"{kind} segment has unknown keys {unknown}; allowed: {sorted(allowed)}")
    return cls(**{key: value for key, value in spec.items() if key != "type"})


def position_ids(
    segments: Iterable[Segment | Mapping[str, Any]], *, spatial_merge_size: int = 2, device=None
) -> torch.Tensor:
    """The (T, H, W) position of every token, exactly as HF ``get_rope_index``. Shape (3, N), int64.

    Vision block: T = arange(t) (Qwen2.5-VL video: (arange(t)·second_per_grid_t·tokens_per_second).long()),
    H = arange(h/s), W = arange(w/s), t-major, each + start; text: start + k on all axes; start = max + 1.
    """
    merge = check_int("spatial_merge_size", spatial_merge_size, minimum=1)
    pieces, start = [], 0
    for segment in map(as_segment, segments):
        piece = _segment_positions(segment, merge) + start
        if piece.numel():
            pieces.append(piece)
            start = int(piece.max()) + 1
    if not pieces:
        raise ValueError("segments must contain at least one token")
    return torch.cat(pieces, dim=1).to(resolve_device(device))


def mrope_position_delta(segments: Iterable[Segment | Mapping[str, Any]], *, spatial_merge_size: int = 2) -> int:
    """max(position_ids) + 1 - N (<= 0): what decoding adds to cache_position on every axis.
    Ref: HF ``get_rope_index`` (``mrope_position_deltas``)."""
    ids = position_ids(segments, spatial_merge_size=spatial_merge_size, device="cpu")
    return int(ids.max()) + 1 - ids.shape[1]


rope_deltas = mrope_position_delta  # HF's name for the cached value (``Qwen2VLModel.rope_deltas``)


def channel_axes(mrope_section: Sequence[int], *, layout: str = "qwen2_vl", device=None) -> torch.Tensor:
    """The axis (0 = T, 1 = H, 2 = W) each frequency pair reads. Shape (d/2,), d/2 = sum(mrope_section), int64.

    qwen2_vl: [16, 24, 24] -> pairs 0-15 T, 16-39 H, 40-63 W (the highest frequencies go to time).
    interleaved (Qwen3-VL, [24, 20, 20]): pair i is H if i % 3 == 1 and i < 3·sections[1], W if i % 3 == 2
    and i < 3·sections[2], else T. Ref: HF ``apply_multimodal_rotary_pos_emb``, ``apply_interleaved_mrope``.
    """
    layout = check_choice("layout", layout, LAYOUTS)
    if isinstance(mrope_section, str | bytes) or not isinstance(mrope_section, Sequence) or len(mrope_section) != 3:
        raise ValueError(f"mrope_section must be 3 counts (T, H, W), e.g. [16, 24, 24] (got {mrope_section!r})")
    sections = [check_int(f"mrope_section[{k}]", count, minimum=0) for k, count in enumerate(mrope_section)]
    if sum(sections) < 1:
        raise ValueError(f"mrope_section must sum to d/2 >= 1 (got {sections})")
    device = resolve_device(device)
    if layout == "qwen2_vl":
        return torch.repeat_interleave(torch.arange(3, device=device), torch.tensor(sections, device=device))
    pair = torch.arange(sum(sections), device=device)
    axes = torch.zeros_like(pair)
    for axis in (1, 2):
        axes[(pair % 3 == axis) & (pair < 3 * sections[axis])] = axis
    counts = torch.bincount(axes, minlength=3).tolist()
    if counts != sections:
        raise ValueError(
            f"mrope_section {sections} cannot be interleaved THWTHW...: it gives {counts} pairs per axis "
            "(H and W need 3·count - 1 <= d/2)"
        )
    return axes


def angles(
    position_ids: torch.Tensor, inv_freq: torch.Tensor, mrope_section: Sequence[int], *, layout: str = "qwen2_vl"
) -> torch.Tensor:
    """θ[n, i] = position_ids[axis(i), n] · inv_freq[i]. Shape (N, d/2), float32 (float64 for float64 inv_freq).

    position_ids: (3, N); inv_freq: (d/2,) with d/2 = sum(mrope_section). Ref: HF ``Qwen2VLRotaryEmbedding``.
    """
    if not isinstance(position_ids, torch.Tensor) or position_ids.dim() != 2 or position_ids.shape[0] != 3:
        raise ValueError(f"position_ids must be a (3, N) tensor (got {_describe(position_ids)})")
    if not isinstance(inv_freq, torch.Tensor) or not inv_freq.is_floating_point() or inv_freq.dim() != 1:
        raise ValueError(f"inv_freq must be a 1-D float tensor (d/2,) (got {_describe(inv_freq)})")
    axes = channel_axes(mrope_section, layout=layout, device=inv_freq.device)
    if axes.numel() != inv_freq.numel():
        raise ValueError(f"mrope_section must sum to len(inv_freq) = {inv_freq.numel()} (got {axes.numel()})")
    work = torch.float64 if inv_freq.dtype == torch.float64 else torch.float32
    positions = position_ids.to(device=inv_freq.device, dtype=work)[axes]  # (d/2, N)
    return positions.T * inv_freq.to(work)


def _segment_positions(segment: Segment, merge: int) -> torch.Tensor:
    """(3, n) positions of one segment starting at 0."""
    if isinstance(segment, TextSegment):
        return torch.arange(segment.length).expand(3, -1)
    if segment.h % merge or segment.w % merge:
        raise ValueError(f"h and w must be divisible by spatial_merge_size {merge} (got h={segment.h}, w={segment.w})")
    grid_t, grid_h, grid_w = segment.t, segment.h // merge, segment.w // merge
    time = torch.arange(grid_t)
    if isinstance(segment, VideoSegment) and segment.tokens_per_second is not None:
        seconds = 1.0 if segment.second_per_grid_t is None else float(segment.second_per_grid_t)
        time = (time * seconds * float(segment.tokens_per_second)).long()  # float32, truncated, as HF
    return torch.stack(
        (
            time.repeat_interleave(grid_h * grid_w),
            torch.arange(grid_h).repeat_interleave(grid_w).repeat(grid_t),
            torch.arange(grid_w).repeat(grid_t * grid_h),
        )
    )


def _describe(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"{value.dtype} tensor of shape {tuple(value.shape)}"
    return type(value).__name__
