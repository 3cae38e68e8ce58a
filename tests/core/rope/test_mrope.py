"""posenc_core.rope.mrope: the docs/REFERENCE_NUMBERS.md §3 vector, an oracle ported from HF ``get_rope_index``, the HF
cos/sin section selection, and bad arguments."""

from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posenc_core import rope
from posenc_core.rope import mrope
from posenc_core.rope import scaling as rope_scaling
from posenc_core.rope.mrope import (
    ImageSegment,
    TextSegment,
    VideoSegment,
    as_segment,
    channel_axes,
    mrope_position_delta,
    position_ids,
    rope_deltas,
)

F64 = torch.float64
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
TEXT, VISION_START, IMAGE, VIDEO = 1, 151652, 151655, 151656  # Qwen2-VL token ids


# --- oracles ported from HF transformers ------------------------------------------------------------------


def get_rope_index_oracle(input_ids, image_grid_thw, video_grid_thw, merge, second_per_grid_ts=None, tps=None):
    """One sequence of HF ``Qwen2VLModel.get_rope_index`` (``tps`` given: Qwen2.5-VL time scaling, images 0 s)."""
    tokens = list(input_ids)
    starts = [i for i, token in enumerate(tokens) if token == VISION_START]
    kinds = [tokens[i + 1] for i in starts]
    remain_images, remain_videos = kinds.count(IMAGE), kinds.count(VIDEO)
    image_index = video_index = st_ = 0
    pieces = []
    for _ in range(remain_images + remain_videos):
        ed_image = tokens.index(IMAGE, st_) if IMAGE in tokens and remain_images > 0 else len(tokens) + 1
        ed_video = tokens.index(VIDEO, st_) if VIDEO in tokens and remain_videos > 0 else len(tokens) + 1
        if ed_image < ed_video:
            t, h, w = image_grid_thw[image_index]
            second, image_index, remain_images, ed = 0.0, image_index + 1, remain_images - 1, ed_image
        else:
            t, h, w = video_grid_thw[video_index]
            second = second_per_grid_ts[video_index] if second_per_grid_ts is not None else 1.0
            video_index, remain_videos, ed = video_index + 1, remain_videos - 1, ed_video
        grid_t, grid_h, grid_w = t, h // merge, w // merge
        text_len = ed - st_
        st_idx = int(pieces[-1].max()) + 1 if pieces else 0
        pieces.append(torch.arange(text_len).view(1, -1).expand(3, -1) + st_idx)
        expanded = torch.arange(grid_t).view(-1, 1).expand(-1, grid_h * grid_w)
        t_index = (expanded * second * tps).long().flatten() if tps is not None else expanded.flatten()
        h_index = torch.arange(grid_h).view(1, -1, 1).expand(grid_t, -1, grid_w).flatten()
        w_index = torch.arange(grid_w).view(1, 1, -1).expand(grid_t, grid_h, -1).flatten()
        pieces.append(torch.stack([t_index, h_index, w_index]) + text_len + st_idx)
        st_ = ed + grid_t * grid_h * grid_w
    if st_ < len(tokens):
        st_idx = int(pieces[-1].max()) + 1 if pieces else 0
        pieces.append(torch.arange(len(tokens) - st_).view(1, -1).expand(3, -1) + st_idx)
    positions = torch.cat(pieces, dim=1).reshape(3, -1)
    return positions, int(positions.max()) + 1 - len(tokens)


def hf_section_cos(position_ids, inv_freq, mrope_section):
    """HF ``apply_multimodal_rotary_pos_emb``: cos per axis (3, N, d), chunk k of mrope_section*2 from axis k % 3."""
    freqs = position_ids.to(F64)[:, :, None] * inv_freq  # (3, N, d/2)
    cos = torch.cat((freqs, freqs), dim=-1).cos()
    return torch.cat([chunk[k % 3] for k, chunk in enumerate(cos.split(list(mrope_section) * 2, dim=-1))], dim=-1)


def hf_interleaved_axes(mrope_section):
    """HF ``apply_interleaved_mrope`` on a (3, 1, d/2) tensor holding each axis' index."""
    freqs = torch.arange(3)[:, None, None].expand(3, 1, sum(mrope_section)).clone()
    freqs_t = freqs[0]
    for dim, offset in enumerate((1, 2), start=1):
        freqs_t[..., slice(offset, mrope_section[dim] * 3, 3)] = freqs[
            dim, ..., slice(offset, mrope_section[dim] * 3, 3)
        ]
    return freqs_t[0]


# --- reference numbers (§3) -------------------------------------------------------------------------------


SPEC_SEGMENTS = [
    {"type": "text", "length": 3},
    {"type": "image", "t": 1, "h": 4, "w": 6},
    {"type": "text", "length": 2},
]


@pytest.mark.parametrize(
    "segments",
    [SPEC_SEGMENTS, [TextSegment(3), ImageSegment(1, 4, 6), TextSegment(2)], list(map(as_segment, SPEC_SEGMENTS))],
)
def test_spec_vector(device, segments):
    """[t, t, <vs>, 6x<img>, <ve>, t] with image_grid_thw (1, 4, 6), merge 2 (§3)."""
    ids = position_ids(segments, device=device)
    assert ids.dtype == torch.int64 and ids.device.type == device.type
    assert ids.tolist() == [
        [0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7],
        [0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7],
        [0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7],
    ]
    assert mrope_position_delta(segments) == -3 and rope_deltas(segments) == -3


def test_text_only_is_1d_rope(device):
    ids = position_ids([TextSegment(9)], device=device)
    assert torch.equal(ids.cpu(), torch.arange(9).expand(3, -1)) and mrope_position_delta([TextSegment(9)]) == 0
    freq = rope_scaling.default_inv_freq(128, 1e6, device=device)
    torch.testing.assert_close(mrope.angles(ids, freq, [16, 24, 24]), rope.angles(torch.arange(9), freq))
    torch.testing.assert_close(mrope.angles(ids, freq, [24, 20, 20], layout="interleaved"), rope.angles(range(9), freq))


def test_qwen2_vl_video_grid():
    ids = position_ids([TextSegment(1), VideoSegment(2, 4, 4), TextSegment(1)])
    assert ids.tolist() == [
        [0, 1, 1, 1, 1, 2, 2, 2, 2, 3],
        [0, 1, 1, 2, 2, 1, 1, 2, 2, 3],
        [0, 1, 2, 1, 2, 1, 2, 1, 2, 3],
    ]


def test_qwen2_5_vl_docstring_video_example():
    """HF Qwen2.5-VL ``get_rope_index`` docstring: 3 temporal patches, 2x2 LLM grid, interval 25·2 = 50."""
    segments = [{"type": "video", "t": 3, "h": 4, "w": 4, "second_per_grid_t": 2.0, "tokens_per_second": 25}]
    ids = position_ids([*segments, {"type": "text", "length": 5}])
    assert ids[0].tolist() == [0] * 4 + [50] * 4 + [100] * 4 + [101, 102, 103, 104, 105]
    assert ids[1].tolist() == [0, 0, 1, 1] * 3 + [101, 102, 103, 104, 105]
    assert ids[2].tolist() == [0, 1, 0, 1] * 3 + [101, 102, 103, 104, 105]
    assert mrope_position_delta([*segments, TextSegment(5)]) == 106 - 17


# --- the HF oracle ----------------------------------------------------------------------------------------

blocks = st.lists(
    st.tuples(
        st.integers(0, 4),  # text before <|vision_start|>
        st.sampled_from(["image", "video"]),
        st.integers(1, 3),  # t
        st.integers(1, 3),  # h / merge
        st.integers(1, 3),  # w / merge
        st.sampled_from([0.5, 1.0, 2.0, 1 / 3]),  # second_per_grid_t
    ),
    max_size=4,
)


@SETTINGS
@given(blocks=blocks, trailing=st.integers(0, 5), merge=st.integers(1, 2), tokens_per_second=st.sampled_from([None, 2]))
def test_matches_hf_get_rope_index(blocks, trailing, merge, tokens_per_second):
    input_ids, images, videos, seconds, segments = [], [], [], [], []
    for before, kind, t, h, w, second in blocks:
        if kind == "image" and tokens_per_second is not None:
            t = 1  # Qwen2.5-VL gives images 0 s per patch; with t = 1 both models agree
        grid = (t, h * merge, w * merge)
        input_ids += [TEXT] * before + [VISION_START] + [IMAGE if kind == "image" else VIDEO] * (t * h * w)
        segments.append(TextSegment(before + 1))
        if kind == "image":
            images.append(grid)
            segments.append(ImageSegment(*grid))
        else:
            videos.append(grid)
            seconds.append(second)
            scaling = {} if tokens_per_second is None else {"second_per_grid_t": second}
            segments.append(VideoSegment(*grid, **scaling, tokens_per_second=tokens_per_second))
    input_ids += [TEXT] * trailing
    segments.append(TextSegment(trailing))
    if not input_ids:
        return
    expected, delta = get_rope_index_oracle(input_ids, images, videos, merge, seconds, tokens_per_second)
    assert torch.equal(position_ids(segments, spatial_merge_size=merge), expected)
    assert mrope_position_delta(segments, spatial_merge_size=merge) == delta


# --- channel sections -------------------------------------------------------------------------------------


def test_qwen2_vl_sections():
    axes = channel_axes([16, 24, 24])
    assert axes.shape == (64,) and axes.dtype == torch.int64
    assert axes[:16].eq(0).all() and axes[16:40].eq(1).all() and axes[40:].eq(2).all()


@pytest.mark.parametrize("section", [[16, 24, 24], [2, 1, 1], [8, 12, 12], [0, 4, 4]])
def test_angles_match_hf_section_selection(device, section):
    ids = position_ids([TextSegment(2), ImageSegment(2, 6, 4), VideoSegment(3, 2, 2), TextSegment(3)])
    freq = rope_scaling.default_inv_freq(2 * sum(section), 1e6, device=device, dtype=F64)
    theta = mrope.angles(ids.to(device), freq, section)
    assert theta.shape == (ids.shape[1], sum(section)) and theta.dtype == F64
    expected = hf_section_cos(ids.to(device), freq, section)
    torch.testing.assert_close(torch.cat((theta, theta), dim=-1).cos(), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("section", [[24, 20, 20], [3, 2, 2], [11, 11, 10], [4, 3, 1]])
def test_interleaved_sections_match_hf(section):
    assert channel_axes(section, layout="interleaved").tolist() == hf_interleaved_axes(section).tolist()


def test_angles_pick_each_pairs_axis():
    ids = torch.tensor([[5, 7], [100, 200], [1000, 3000]])
    freq = torch.tensor([1.0, 0.5, 0.25, 0.125])
    theta = mrope.angles(ids, freq, [1, 2, 1])
    assert theta.tolist() == [[5.0, 50.0, 25.0, 125.0], [7.0, 100.0, 50.0, 375.0]]
    assert theta.dtype == torch.float32


# --- bad arguments ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: position_ids([ImageSegment(1, 3, 4)]), "spatial_merge_size"),
        (lambda: position_ids([TextSegment(2)], spatial_merge_size=0), "spatial_merge_size"),
        (lambda: position_ids([]), "at least one token"),
        (lambda: position_ids([TextSegment(0)]), "at least one token"),
        (lambda: position_ids([{"type": "audio", "length": 3}]), "segment type"),
        (lambda: position_ids([{"type": "text", "length": 3, "h": 2}]), "unknown keys"),
        (lambda: position_ids([("text", 3)]), "segment"),
        (lambda: TextSegment(-1), "length"),
        (lambda: TextSegment(2.5), "length"),
        (lambda: ImageSegment(0, 2, 2), "t"),
        (lambda: ImageSegment(1, True, 2), "h"),
        (lambda: VideoSegment(1, 2, 2, second_per_grid_t=1.0), "tokens_per_second"),
        (lambda: VideoSegment(1, 2, 2, second_per_grid_t=float("nan"), tokens_per_second=2), "second_per_grid_t"),
        (lambda: VideoSegment(1, 2, 2, tokens_per_second=-2), "tokens_per_second"),
        (lambda: channel_axes([16, 24]), "mrope_section"),
        (lambda: channel_axes("abc"), "mrope_section"),
        (lambda: channel_axes([16, -1, 24]), "mrope_section"),
        (lambda: channel_axes([0, 0, 0]), "mrope_section"),
        (lambda: channel_axes([16, 24, 24], layout="chunked"), "layout"),
        (lambda: channel_axes([2, 20, 20], layout="interleaved"), "mrope_section"),
        (lambda: mrope.angles(torch.zeros(2, 4), torch.ones(4), [2, 1, 1]), "position_ids"),
        (lambda: mrope.angles([[0], [0], [0]], torch.ones(4), [2, 1, 1]), "position_ids"),
        (lambda: mrope.angles(torch.zeros(3, 4), torch.ones(4).long(), [2, 1, 1]), "inv_freq"),
        (lambda: mrope.angles(torch.zeros(3, 4), torch.ones(4), [2, 2, 2]), "mrope_section"),
    ],
)
def test_bad_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
