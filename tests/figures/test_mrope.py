import json
import math

import numpy as np
import pytest
import torch

from posenc import figures  # noqa: F401
from posenc.drawing import registry
from posenc.drawing.params import PARAMS
from posenc.drawing.preset_params import params_from_preset
from posenc.figures.mrope.segments import parse_segments
from posenc_core import rope
from posenc_core.models import presets
from posenc_core.rope import mrope

SPEC = (
    "text:3,image:1x4x6,text:2"  # docs/REFERENCE_NUMBERS.md §3: [t, t, <vs>, 6×<img>, <ve>, t], grid (1, 4, 6), merge 2
)
SPEC_T = [0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7]
SPEC_H = [0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7]
SPEC_W = [0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7]
LARGEST = {"segments": "text:64,image:1x120x120,video:4x16x16,text:64", "head_dim": 512, "mrope_section": (64, 96, 96)}


def _build(figure_id, **overrides):
    params, messages = registry.resolve_params(figure_id, overrides)
    assert not messages
    return registry.build(figure_id, params)


def test_the_spec_test_vector_is_drawn_row_by_row():
    result = _build("mrope-position-ids", segments=SPEC, spatial_merge_size=2)
    rows = [trace for trace in result.figure.data if trace.name[0] in "THW" and "(" in trace.name]
    assert [trace.name for trace in rows] == ["T (temporal)", "H (height)", "W (width)"]
    for trace, expected in zip(rows, (SPEC_T, SPEC_H, SPEC_W), strict=True):
        np.testing.assert_array_equal(np.asarray(trace.y), expected)
        np.testing.assert_array_equal(np.asarray(trace.x), np.arange(11))
    np.testing.assert_array_equal(result.data["t"], SPEC_T)
    np.testing.assert_array_equal(result.data["h"], SPEC_H)
    np.testing.assert_array_equal(result.data["w"], SPEC_W)
    assert "rope delta = max id + 1 − N = -3" in result.figure.layout.title.text
    assert "= -3" in result.notes[0]
    assert [a.text for a in result.figure.layout.annotations] == ["image 1×4×6"]


def test_default_sequence_equals_the_core_ids_and_shades_its_image_and_video():
    result = _build("mrope-position-ids")
    segments = [mrope.TextSegment(3), mrope.ImageSegment(1, 4, 6), mrope.TextSegment(2), mrope.VideoSegment(2, 4, 4)]
    ids = mrope.position_ids(segments, spatial_merge_size=2)
    assert ids.shape == (3, 19)
    for axis, name in enumerate("thw"):
        np.testing.assert_array_equal(result.data[name], ids[axis].numpy())
    assert {(shape.x0, shape.x1) for shape in result.figure.layout.shapes} == {(2.5, 8.5), (10.5, 18.5)}
    assert [a.text for a in result.figure.layout.annotations] == ["image 1×4×6", "video 2×4×4"]
    video_t = result.data["t"][11:]
    np.testing.assert_array_equal(video_t, [8, 8, 8, 8, 9, 9, 9, 9])  # one T id per (pair of) frames


def test_text_only_is_one_dimensional_rope():
    result = _build("mrope-position-ids", segments="text:7")
    for name in "thw":
        np.testing.assert_array_equal(result.data[name], np.arange(7))
    assert result.figure.layout.title.text.endswith("rope delta = max id + 1 − N = 0")
    assert "exactly 1-D RoPE" in result.notes[1]
    channels = _build("mrope-channels", segments="text:7")
    assert "largest difference 0" in channels.notes[2]


@pytest.mark.parametrize(
    ("segments", "words"),
    [
        ("", "at least one item"),
        ("text:3,audio:4", "item 2 ('audio:4'): the kind must be text, image or video"),
        ("text:0", "token count of at least 1"),
        ("text:3,image:1x4x5", "item 2 ('image:1x4x5'): w=5 must be divisible by spatial_merge_size=2"),
        ("image:1x3x4", "h=3 must be divisible"),
        ("video:4x6", "video takes TxHxW"),
        ("image:1x4x6x2", "image takes TxHxW or HxW"),
        ("image:axb", "patch counts"),
        ("text:4097", "4,097 tokens after merging; at most 4,096"),
    ],
)
def test_bad_segments_name_the_item_and_the_rule(segments, words):
    with pytest.raises(ValueError, match="segments") as error:
        _build("mrope-position-ids", segments=segments)
    assert words in str(error.value)


def test_more_than_64_segments_are_refused_by_the_parser():
    # a link cannot carry so many (the parameter takes at most 200 characters), a caller of the parser can
    with pytest.raises(ValueError, match="segments must list at most 64 items"):
        parse_segments(",".join(["text:1"] * 65), 2)


def test_image_without_t_means_one_frame_and_merge_size_changes_the_grid():
    assert parse_segments("image:4x6", 2) == parse_segments("image:1x4x6", 2)
    assert parse_segments("IMAGE: 1x4x6", 1)[0].count == 24
    result = _build("mrope-position-ids", segments="image:4x6", spatial_merge_size=1)
    assert len(result.data["t"]) == 24 and result.data["w"].max() == 5


def test_channel_map_follows_mrope_section_and_draws_the_core_angles():
    result = _build("mrope-channels", segments=SPEC, head_dim=128, base=1e6, mrope_section=(16, 24, 24))
    markers = [trace for trace in result.figure.data if trace.type == "scatter"]
    assert [trace.name for trace in markers] == [
        "T: 16 pairs (temporal id)",
        "H: 24 pairs (height id)",
        "W: 24 pairs (width id)",
    ]
    np.testing.assert_array_equal(markers[0].x, np.arange(16))
    np.testing.assert_array_equal(markers[2].x, np.arange(40, 64))
    np.testing.assert_array_equal(result.data["axis"], [0] * 16 + [1] * 24 + [2] * 24)
    inv_freq = rope.inv_freq(128, 1e6)[0]
    ids = torch.tensor([SPEC_T, SPEC_H, SPEC_W])
    expected = torch.remainder(mrope.angles(ids, inv_freq, (16, 24, 24)), 2 * math.pi)
    heatmap = next(trace for trace in result.figure.data if trace.type == "heatmap")
    np.testing.assert_allclose(np.asarray(heatmap.z), expected.numpy(), atol=1e-5)
    # pair 0 (T) and pair 40 (W) at the image's tokens 3..8: T constant, W follows the columns 3, 4, 5, 3, 4, 5
    theta = result.data["angles"]
    np.testing.assert_allclose(theta[3:9, 0], 3.0)
    np.testing.assert_allclose(theta[3:9, 40] / inv_freq[40].item(), [3, 4, 5, 3, 4, 5], rtol=1e-5)
    assert "mrope_section=16,24,24 (Qwen2-VL blocks), head_dim=128, base=1e+06" in result.figure.layout.title.text


def test_qwen3_vl_interleaves_the_axes():
    result = _build("mrope-channels", segments=SPEC, mrope_section=(24, 20, 20), mrope_layout="interleaved")
    axis = result.data["axis"]
    np.testing.assert_array_equal(axis[:6], [0, 1, 2, 0, 1, 2])
    np.testing.assert_array_equal(axis[60:], [0, 0, 0, 0])
    np.testing.assert_array_equal(axis, mrope.channel_axes((24, 20, 20), layout="interleaved").numpy())
    assert "Qwen3-VL interleaved" in result.figure.layout.title.text and "cycle T, H, W" in result.notes[0]


@pytest.mark.parametrize(
    ("section", "words"),
    [((16, 24, 20), "must add up to head_dim/2 = 64 (got 16 + 24 + 20 = 60)"), ((32, 32), "must have 3 items")],
)
def test_a_section_that_does_not_fit_head_dim_is_refused(section, words):
    with pytest.raises(ValueError, match="mrope_section") as error:
        _build("mrope-channels", mrope_section=section)
    assert words in str(error.value)


def test_mrope_section_keeps_repeated_items_and_the_qwen2_vl_preset_sets_it():
    assert PARAMS["mrope_section"].coerce("16,24,24") == ((16, 24, 24), None)
    values = params_from_preset(presets.PRESETS["qwen2-vl-7b"])
    assert values["mrope_section"] == (16, 24, 24) and values["head_dim"] == 128 and values["base"] == 1e6
    assert PARAMS["mrope_section"].coerce(values["mrope_section"]) == ((16, 24, 24), None)


def test_grid_of_the_spec_image_prints_its_ids():
    result = _build("mrope-grid", segments=SPEC)
    (heatmap,) = result.figure.data
    np.testing.assert_array_equal(heatmap.z, [[3, 4, 5], [6, 7, 8]])  # token indices, t-major raster order
    assert heatmap.text.tolist() == [["3,3", "3,4", "3,5"], ["4,3", "4,4", "4,5"]]
    np.testing.assert_array_equal(np.asarray(heatmap.customdata)[..., 0], 3)
    np.testing.assert_array_equal(result.data["h"], [3, 3, 3, 4, 4, 4])
    assert "image 1 of 1: 1×4×6 patches → 1×2×3 tokens (merge 2)" in result.figure.layout.title.text


def test_grid_of_a_video_draws_one_panel_per_frame_and_shows_the_last_item_past_the_end():
    result = _build("mrope-grid", vision_index=2)
    assert len(result.figure.data) == 2
    np.testing.assert_array_equal(np.asarray(result.figure.data[1].customdata)[..., 0], 9)
    clamped = _build("mrope-grid", vision_index=3)
    assert clamped.figure.layout.title.text.startswith("video 2 of 2") and "showing the last one" in clamped.notes[0]
    text_only = _build("mrope-grid", segments="text:4")
    assert not text_only.figure.data and "no image or video" in text_only.figure.layout.annotations[0].text


def test_largest_parameters_stay_at_display_resolution():
    payload = 0
    for figure_id in ("mrope-position-ids", "mrope-channels", "mrope-grid"):
        result = _build(figure_id, **LARGEST)
        payload += len(result.figure.to_json())
        for trace in result.figure.data:
            if trace.type == "heatmap":
                assert np.asarray(trace.z).shape[0] <= 512 and np.asarray(trace.z).shape[1] <= 512
    assert payload < 3_000_000
    ids = _build("mrope-position-ids", **LARGEST)
    assert len(ids.data["t"]) == 64 + 60 * 60 + 4 * 8 * 8 + 64
    channels = _build("mrope-channels", **LARGEST)
    assert any("sampled" in note for note in channels.notes)
    assert json.loads(channels.figure.to_json())  # serialisable


def _ticks_on_whole_numbers(axis) -> bool:
    return axis.tickformat == "d" and axis.tick0 == 0 and float(axis.dtick).is_integer() and axis.dtick >= 1


@pytest.mark.parametrize("segments", [SPEC, "video:3x4x4", "image:1x120x120"])
def test_the_token_grid_has_integer_ticks(segments):
    result = _build("mrope-grid", segments=segments)
    layout = result.figure.layout
    axes = [layout[name] for name in layout if name.startswith(("xaxis", "yaxis"))]
    assert len(axes) == 2 * len(result.figure.data) and all(_ticks_on_whole_numbers(axis) for axis in axes)
    assert _ticks_on_whole_numbers(layout.coloraxis.colorbar)  # token indices
    assert layout.yaxis.dtick == (10 if segments == "image:1x120x120" else 1)  # 60 rows: every 10th labelled
    ids = _build("mrope-position-ids", segments="text:2,image:1x2x2,text:1")  # 4 tokens: Plotly would tick 0.5
    axes = [ids.figure.layout[name] for name in ids.figure.layout if name.startswith(("xaxis", "yaxis"))]
    assert all(_ticks_on_whole_numbers(axis) for axis in axes)


def test_the_caption_says_one_t_id_only_for_t_equal_1():
    image = _build("mrope-position-ids", segments="text:2,image:1x4x4")
    assert "an image (t = 1: one temporal patch) keeps one T id for all its tokens" in image.notes[1]
    assert "per temporal patch" not in image.notes[1]
    in_time = _build("mrope-position-ids", segments="text:2,image:2x4x4")  # an image given two frames
    assert "steps T once per temporal patch (two frames)" in in_time.notes[1]
    assert "keeps one T id" not in in_time.notes[1]
    np.testing.assert_array_equal(in_time.data["t"][2:], [2, 2, 2, 2, 3, 3, 3, 3])


def test_the_interleaved_pair_note_names_the_pairs_left_to_t():
    result = _build("mrope-channels", segments=SPEC, mrope_section=(24, 20, 20), mrope_layout="interleaved")
    assert "pairs 60–63 all go to T" in result.notes[0] and "the rest" not in result.notes[0]
