import math

import numpy as np
import pytest
import torch

from posenc import (
    figures,  # noqa: F401
    i18n,
)
from posenc.drawing import registry
from posenc.figures.relative.t5 import bucket_segments, t5_bucket_table
from posenc_core.encodings import relative

LARGEST = {"seq_len": 1_048_576, "clip_distance": 1_048_576, "num_buckets": 1024, "max_distance": 1_048_576}


def _params(figure_id, **overrides):
    params, messages = registry.resolve_params(figure_id, overrides)
    assert not messages, messages
    return params


def _build(figure_id, **overrides):
    return registry.build(figure_id, _params(figure_id, **overrides))


def test_shaw_matrix_equals_the_core_at_the_drawn_positions():
    result = _build("relative-shaw", seq_len=1024, clip_distance=16)
    (trace,) = result.figure.data
    positions = np.asarray(trace.x)
    z = np.asarray(trace.z)
    assert trace.type == "heatmap" and z.shape == (512, 512) and z.dtype == np.int16
    expected = relative.shaw_index(1024, 1024, 16, query_positions=positions, key_positions=positions, device="cpu")
    np.testing.assert_array_equal(z, expected.numpy())
    assert z.min() == 0 and z.max() == 32 and np.all(np.diag(z) == 16)
    assert "k=16" in result.figure.layout.title.text and "L=1,024" in result.figure.layout.title.text
    assert "sampled" in result.notes[0]


def test_spec_vector_for_shaw_five_positions_clip_two():
    z = np.asarray(_build("relative-shaw", seq_len=5, clip_distance=2).figure.data[0].z)
    assert z[0].tolist() == [2, 3, 4, 4, 4] and z[4].tolist() == [0, 0, 0, 1, 2]


def test_shaw_window_looks_the_same_at_every_start():
    first = _build("relative-shaw", seq_len=1_048_576, view="window", start=0)
    late = _build("relative-shaw", seq_len=1_048_576, view="window", start=900_000)
    np.testing.assert_array_equal(late.figure.data[0].x, np.arange(900_000, 900_512))
    np.testing.assert_array_equal(first.figure.data[0].z, late.figure.data[0].z)
    assert "window" in late.notes[0]


def _ranges_as_frame(bidirectional, num_buckets, max_distance):
    return [
        (r.bucket, r.min_rel, r.max_rel)
        for r in relative.t5_bucket_ranges(bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    ]


@pytest.mark.parametrize(
    ("num_buckets", "max_distance"), [(32, 128), (8, 20), (64, 1000), (33, 50), (4, 3), (256, 5000), (1024, 600)]
)
@pytest.mark.parametrize("bidirectional", [True, False])
def test_bucket_segments_equal_the_core_bucket_ranges(bidirectional, num_buckets, max_distance):
    p = {"num_buckets": num_buckets, "max_distance": max_distance, "bidirectional": bidirectional}
    segments = bucket_segments(p).sort_values("bucket")
    found = list(zip(segments["bucket"], segments["min_rel"], segments["max_rel"], strict=True))
    assert found == _ranges_as_frame(bidirectional, num_buckets, max_distance)


def test_bucket_curve_draws_both_variants_and_hits_the_spec_vector():
    result = _build("relative-t5-bucket")
    causal, bidirectional = result.figure.data  # the chosen variant is drawn last, solid and opaque
    assert bidirectional.name.startswith("bidirectional") and bidirectional.line.dash is None
    assert causal.line.dash == "dot" and bidirectional.opacity > causal.opacity
    assert bidirectional.line.shape == "hv" and "num_buckets=32" in result.figure.layout.title.text

    def bucket_at(trace, rel):  # the step curve's value at rel
        return int(np.asarray(trace.y)[np.searchsorted(np.asarray(trace.x), rel, side="right") - 1])

    assert [bucket_at(bidirectional, r) for r in (-150, -5, 0, 3, 127)] == [15, 5, 0, 19, 31]
    assert [bucket_at(causal, r) for r in (5, -5, -16, -23, -32, -46, -64, -91, -150)] == [
        0,
        5,
        16,
        18,
        21,
        24,
        26,
        29,
        31,
    ]
    for rel in range(-160, 161):
        expected = int(relative.t5_bucket(rel, bidirectional=True, num_buckets=32, max_distance=128, device="cpu"))
        assert bucket_at(bidirectional, rel) == expected
    assert any("exact" in (a.text or "") for a in result.figure.layout.annotations)
    assert "grey" in result.notes[0]


def test_bucket_curve_follows_the_bidirectional_switch():
    result = _build("relative-t5-bucket", bidirectional=False)
    assert result.figure.data[-1].name.startswith("causal") and "causal" in result.figure.layout.title.text


def test_bucket_table_lists_every_bucket_with_its_offsets_and_region():
    table = t5_bucket_table(_params("relative-t5-bucket"))
    assert len(table) == 31  # bucket 16 is never used: rel > 0 has |rel| >= 1
    row = table.set_index("bucket")
    assert row.loc[0, "relative positions j − i"] == "0" and row.loc[0, "region"] == "exact"
    assert row.loc[8, "relative positions j − i"] == "-11 … -8" and row.loc[8, "offsets covered"] == "4"
    assert row.loc[15, "relative positions j − i"] == "≤ -91" and row.loc[15, "offsets covered"] == "∞"
    assert row.loc[31, "relative positions j − i"] == "≥ +91" and row.loc[24, "region"] == "log"
    causal = t5_bucket_table(_params("relative-t5-bucket", bidirectional=False)).set_index("bucket")
    assert causal.loc[0, "relative positions j − i"] == "0 and every key after the query"
    assert causal.loc[16, "relative positions j − i"] == "-18 … -16"


def test_t5_matrix_equals_the_core_at_the_drawn_positions():
    result = _build("relative-t5-matrix", seq_len=4096, bidirectional=False, view="window", start=1000)
    (trace,) = result.figure.data
    positions = np.asarray(trace.x)
    np.testing.assert_array_equal(positions, np.arange(1000, 1512))
    expected = relative.t5_bucket_matrix(
        4096,
        bidirectional=False,
        num_buckets=32,
        max_distance=128,
        query_positions=torch.as_tensor(positions),
        key_positions=torch.as_tensor(positions),
        device="cpu",
    )
    np.testing.assert_array_equal(trace.z, expected.numpy())
    assert "causal" in result.figure.layout.title.text and "L=4,096" in result.figure.layout.title.text


def test_bad_bucket_parameters_name_the_argument():
    with pytest.raises(ValueError, match="max_distance"):
        _build("relative-t5-bucket", num_buckets=1024, max_distance=100)
    with pytest.raises(ValueError, match="max_distance"):
        _build("relative-t5-matrix", num_buckets=64, max_distance=16)
    window = _params("relative-shaw", seq_len=10, view="window")
    with pytest.raises(ValueError, match="start"):
        registry.build("relative-shaw", {**window, "start": 20})


def test_the_bucket_figures_agree_on_the_smallest_max_distance():
    # bidirectional, 64 buckets: 32 per side, 16 exact, so max_distance > 16 (the core's rule); causal needs > 32
    curve = _build("relative-t5-bucket", num_buckets=64, max_distance=20)
    matrix = _build("relative-t5-matrix", num_buckets=64, max_distance=20, seq_len=128)
    assert [trace.name for trace in curve.figure.data] == ["bidirectional (encoder)"]  # causal left out, and why
    assert "causal (decoder) not drawn: its 32 exact buckets need max_distance >= 33 (got 20)" in curve.notes
    expected = relative.t5_bucket_matrix(128, num_buckets=64, max_distance=20, device="cpu")
    np.testing.assert_array_equal(matrix.figure.data[0].z, expected.numpy())
    table = t5_bucket_table(_params("relative-t5-bucket", num_buckets=64, max_distance=20))
    assert len(table) == len(relative.t5_bucket_ranges(True, num_buckets=64, max_distance=20)) == 41
    for figure_id in ("relative-t5-bucket", "relative-t5-matrix"):
        with pytest.raises(ValueError, match="max_distance must be an integer >= 33"):
            _build(figure_id, num_buckets=64, max_distance=20, bidirectional=False)
        with pytest.raises(ValueError, match="max_distance must be an integer >= 17"):
            _build(figure_id, num_buckets=64, max_distance=16)
    assert len(_build("relative-t5-bucket", num_buckets=64, max_distance=33).figure.data) == 2


def test_an_overview_says_when_its_cells_hide_the_near_offsets():
    shaw = _build("relative-shaw", seq_len=1_048_576, clip_distance=16)
    assert "one cell every 2,048 positions, so every offset inside ±k = ±16" in shaw.notes[-1]
    matrix = _build("relative-t5-matrix", seq_len=1_048_576)
    assert "exact region (|j − i| < 8" in matrix.notes[-1]
    for quiet in (
        _build("relative-shaw", seq_len=1024, clip_distance=16),  # one cell every 2 positions: the band shows
        _build("relative-shaw", seq_len=1_048_576, view="window", start=5000),
        _build("relative-t5-matrix", seq_len=4096),
    ):
        assert not any("sampling hides" in note for note in quiet.notes)


def test_largest_parameters_stay_small():
    total = 0
    for figure_id in ("relative-shaw", "relative-t5-bucket", "relative-t5-matrix"):
        params, _ = registry.resolve_params(figure_id, LARGEST)
        result = registry.build(figure_id, params)
        for trace in result.figure.data:
            if trace.type == "heatmap":
                assert max(np.asarray(trace.z).shape) <= 512
        total += len(result.figure.to_json())
    assert total < 2_800_000
    table = t5_bucket_table(_params("relative-t5-bucket", num_buckets=1024, max_distance=1_048_576))
    assert len(table) == 1023 and math.isinf(bucket_segments({**LARGEST, "bidirectional": True})["max_rel"].iloc[-1])


@pytest.mark.parametrize(("code", "bucket"), [("ko", "버킷"), ("zh-CN", "桶")])
def test_in_korean_and_chinese_the_t5_figures_and_table_read_translated(code, bucket):
    with i18n.language(code):
        curve = _build("relative-t5-bucket", num_buckets=32, max_distance=128, bidirectional=True)
        table = t5_bucket_table(_params("relative-t5-bucket", num_buckets=32, max_distance=128, bidirectional=True))
    assert curve.figure.layout.yaxis.title.text == bucket and "bidirectional" not in curve.figure.data[0].name
    assert "bidirectional_bucket" in curve.data  # the CSV export's columns stay English
    assert table.columns[0] == bucket and "exact" not in set(table.iloc[:, -1])
