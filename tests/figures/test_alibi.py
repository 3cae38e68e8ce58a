import math

import numpy as np
import pytest
import torch

from posenc import figures  # noqa: F401
from posenc.drawing import registry
from posenc_core.encodings import alibi

LARGEST = {"n_heads": 128, "seq_len": 1_048_576, "heads": (0, 42, 100, 127), "mass": 0.999}


def _build(figure_id, **overrides):
    params, messages = registry.resolve_params(figure_id, overrides)
    assert not messages, messages
    return registry.build(figure_id, params)


def _heatmaps(result):
    return [trace for trace in result.figure.data if trace.type == "heatmap"]


def test_slopes_of_a_power_of_two_are_one_series_halving_per_head():
    result = _build("alibi-slopes", n_heads=8)
    (bars,) = result.figure.data
    np.testing.assert_allclose(bars.y, [2.0**-k for k in range(1, 9)], rtol=1e-6)
    assert list(bars.x) == list(range(8)) and result.notes == ()
    assert "n_heads=8" in result.figure.layout.title.text and result.figure.layout.yaxis.type == "log"


def test_slopes_of_twelve_heads_colour_the_interleaved_heads_apart():
    result = _build("alibi-slopes", n_heads=12)
    base, interleaved = result.figure.data
    assert list(base.x) == list(range(8)) and list(interleaved.x) == [8, 9, 10, 11]
    assert base.marker.color != interleaved.marker.color and "16-head" in interleaved.name
    np.testing.assert_allclose(interleaved.y, [2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5], rtol=1e-6)
    np.testing.assert_allclose(np.concatenate([base.y, interleaved.y]), alibi.slopes(12, device="cpu"), rtol=1e-6)
    assert "not a power of two" in result.notes[0]


def test_mpt_alibi_bias_max_changes_the_slopes_and_the_title():
    result = _build("alibi-slopes", n_heads=32, alibi_bias_max=4.0)
    np.testing.assert_allclose(result.data["slope"], alibi.mpt_slopes(32, 4.0, device="cpu"), rtol=1e-6)
    assert "alibi_bias_max=4" in result.figure.layout.title.text
    assert "alibi_bias_max" not in _build("alibi-slopes", n_heads=32).figure.layout.title.text


def _bias_at(result, head, slopes, mode):
    positions = np.asarray(_heatmaps(result)[0].x, dtype=np.int64)
    expected = alibi.bias(
        slopes,
        int(positions.max()) + 1,
        mode=mode,
        heads=[head],
        query_positions=positions,
        key_positions=positions,
        device="cpu",
    )[0].numpy()
    return positions, np.where(np.isfinite(expected), expected, np.nan)


def test_causal_bias_heatmaps_equal_the_core_at_the_drawn_positions():
    result = _build("alibi-bias", n_heads=8, heads=(0, 7), seq_len=1024)
    maps = _heatmaps(result)
    assert len(maps) == 2
    for trace, head in zip(maps, (0, 7), strict=True):
        z = np.asarray(trace.z)
        assert z.shape[0] == z.shape[1] <= 512
        positions, expected = _bias_at(result, head, alibi.slopes(8, device="cpu", dtype=torch.float64), "causal")
        np.testing.assert_array_equal(np.asarray(trace.y), positions)
        np.testing.assert_allclose(z, expected, rtol=1e-6)
        assert np.isnan(z[0, -1]) and z[-1, 0] < 0 and z[5, 5] == 0  # future masked, past penalised
    assert "n_heads=8" in result.figure.layout.title.text and "L=1,024" in result.figure.layout.title.text
    assert "sampled" in result.notes[0] and "masked" in result.notes[1]


def test_symmetric_window_bias_is_minus_slope_times_distance_everywhere():
    result = _build("alibi-bias", n_heads=16, heads=(3,), mode="symmetric", seq_len=5000, view="window", start=4000)
    (trace,) = _heatmaps(result)
    positions = np.asarray(trace.x)
    np.testing.assert_array_equal(positions, np.arange(4000, 4512))
    slope = 2.0**-2
    np.testing.assert_allclose(trace.z, -slope * np.abs(positions[:, None] - positions[None, :]), rtol=1e-6)
    assert "window" in result.notes[0] and "|i−j|" in result.figure.layout.title.text


def test_heads_beyond_n_heads_are_refused_naming_n_heads():
    params, messages = registry.resolve_params("alibi-bias", {"n_heads": 4, "heads": (1, 9)})
    assert params["heads"] == (1, 3) and "the model has 4 heads" in messages[0]  # the exporter moves it in
    with pytest.raises(ValueError, match="heads must be below n_heads=4"):
        registry.build("alibi-bias", {**params, "heads": (1, 9)})  # the builder itself never drops a head
    window, _ = registry.resolve_params("alibi-bias", {"seq_len": 100, "view": "window"})
    with pytest.raises(ValueError, match="start"):
        registry.build("alibi-bias", {**window, "start": 500})


def test_every_head_of_the_model_is_drawn_each_on_its_own_colour_range():
    result = _build("alibi-bias", n_heads=8, heads=tuple(range(8)))
    maps = _heatmaps(result)
    assert len(maps) == 8 and all(trace.zmax == 0 for trace in maps)
    floors = [trace.zmin for trace in maps]
    slopes = alibi.slopes(8, device="cpu", dtype=torch.float64).numpy()
    np.testing.assert_allclose(floors, [np.nanmin(np.asarray(trace.z)) for trace in maps], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(floors) / floors[0], slopes / slopes[0], rtol=1e-6)  # head 7: 1/128
    assert [trace.showscale for trace in maps] == [True] + [False] * 7  # one colour bar says what colours mean
    assert "own range" in maps[0].colorbar.title.text
    shared = _heatmaps(_build("alibi-bias", n_heads=8, heads=tuple(range(8)), shared_scale=True))
    assert {trace.zmin for trace in shared} == {floors[0]} and {trace.zmax for trace in shared} == {0}


def test_up_to_sixteen_panels_fit_the_budget_and_each_is_titled_by_its_slope():
    result = _build("alibi-bias", n_heads=112, heads=tuple(range(0, 112, 7)), seq_len=1_048_576)
    maps = _heatmaps(result)
    assert len(maps) == 16 and max(np.asarray(maps[0].z).shape) == 128  # 16 panels share 512 x 512 cells
    titles = [a.text for a in result.figure.layout.annotations if a.text.startswith("head")]
    assert titles[0] == "head 0<br>m = 0.917" and len(titles) == 16
    assert len(result.figure.to_json()) < 2_000_000
    eight = _build("alibi-bias", n_heads=8, heads=(0, 7))
    assert [a.text for a in eight.figure.layout.annotations][:2] == [
        "head 0<br>m = 2<sup>−1</sup>",
        "head 7<br>m = 2<sup>−8</sup>",
    ]


def test_an_overview_says_when_a_head_looks_closer_than_one_cell():
    overview = _build("alibi-bias", n_heads=8, heads=(0, 7), seq_len=1_048_576)
    (hidden,) = [note for note in overview.notes if "sampling hides" in note]
    assert "one cell every 2,897 positions" in hidden and "0 (5 tokens), 7 (590 tokens)" in hidden
    window = _build("alibi-bias", n_heads=8, heads=(0, 7), seq_len=1_048_576, view="window", start=1000)
    short = _build("alibi-bias", n_heads=8, heads=(0, 7), seq_len=300)  # every position drawn
    assert not any("sampling hides" in note for note in (*window.notes, *short.notes))


def test_mpt_bias_uses_the_mpt_slopes():
    result = _build("alibi-bias", n_heads=4, heads=(0,), alibi_bias_max=16.0, mode="symmetric", seq_len=64)
    z = np.asarray(_heatmaps(result)[0].z)
    assert z[0, 1] == pytest.approx(-float(alibi.mpt_slopes(4, 16.0)[0]))  # 2^-4


def test_attention_to_past_equals_the_core_and_sums_to_one_when_every_distance_is_drawn():
    result = _build("alibi-attention", n_heads=8, seq_len=100)
    assert len(result.figure.data) == 8
    distances = np.asarray(result.figure.data[0].x) - 1
    np.testing.assert_array_equal(distances, np.arange(100))
    weights = np.stack([np.asarray(trace.y) for trace in result.figure.data])
    expected = alibi.attention_to_past(8, 99, distances=torch.arange(100), device="cpu", dtype=torch.float64)
    np.testing.assert_allclose(weights, expected.clamp(min=1e-30).numpy(), rtol=1e-5)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-4)
    assert result.figure.layout.xaxis.type == "log" and "L=100" in result.figure.layout.title.text
    assert all(trace.showlegend for trace in result.figure.data)


def test_attention_at_long_context_uses_log_spaced_distances_and_colours_by_slope():
    result = _build("alibi-attention", n_heads=64, seq_len=1_048_576)
    distances = np.asarray(result.figure.data[0].x) - 1
    assert len(distances) <= 200 and distances[0] == 0 and distances[-1] == 1_048_575
    assert np.all(np.diff(distances) > 0)
    assert not any(trace.showlegend for trace in result.figure.data)
    assert any("colour: slope" in note for note in result.notes)
    expected = alibi.attention_to_past(
        64, 1_048_575, heads=[63], distances=torch.as_tensor(distances).long(), device="cpu", dtype=torch.float64
    )[0]
    np.testing.assert_allclose(result.figure.data[63].y, expected.clamp(min=1e-30).numpy(), rtol=1e-5)


@pytest.mark.parametrize(("n_heads", "seq_len", "mass"), [(8, 1024, 0.9), (12, 20, 0.5), (112, 4096, 0.99)])
def test_span_bars_equal_the_core_and_stay_within_the_context(n_heads, seq_len, mass):
    result = _build("alibi-span", n_heads=n_heads, seq_len=seq_len, mass=mass)
    (bars,) = result.figure.data
    expected = alibi.effective_span(n_heads, mass, query_position=seq_len - 1, device="cpu")
    np.testing.assert_array_equal(np.asarray(bars.y), expected.numpy())
    assert np.asarray(bars.y).max() <= seq_len
    assert f"{mass:.1%}" in result.figure.layout.title.text
    assert result.figure.layout.yaxis.range[1] >= math.log10(seq_len)  # the line at L is in view


def test_largest_parameters_stay_small_and_fast():
    total = 0
    for figure_id in ("alibi-slopes", "alibi-bias", "alibi-attention", "alibi-span"):
        params, _ = registry.resolve_params(figure_id, LARGEST)
        result = registry.build(figure_id, params)
        for trace in _heatmaps(result):
            assert max(np.asarray(trace.z).shape) <= 256  # four heads share the 512 x 512 budget
        total += len(result.figure.to_json())
    assert total < 2_500_000
    bias = _build("alibi-bias", **LARGEST)
    assert "sampled: 256 of 1,048,576" in bias.notes[0]
