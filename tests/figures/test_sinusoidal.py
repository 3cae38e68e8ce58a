"""The Sinusoidal page's figures: drawn values equal the core's, display resolution at real-model scale."""

import math

import numpy as np
import plotly.colors
import pytest
import torch

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.drawing.params import PARAMS
from posenc.drawing.theme import DIVERGING_SCALE, SEQUENTIAL_SCALE
from posenc.figures.sinusoidal.linear_map import LINEAR_MAP_MAX_D
from posenc_core.encodings import metrics, sinusoidal

LARGEST = {"seq_len": 1_048_576, "d_model": 8192}
FIGURE_IDS = [figure_id for figure_id, spec in registry.FIGURES.items() if spec.page == "sinusoidal"]


def _build(figure_id, **overrides):
    params, messages = registry.resolve_params(figure_id, overrides)
    assert not messages, messages
    return registry.build(figure_id, params)


def _build_unchecked(figure_id, **overrides):
    """Build with ``overrides`` as they are: values a page would never pass (the registry moves them into range)."""
    params, _ = registry.resolve_params(figure_id, {})
    return registry.build(figure_id, {**params, **overrides})


def _trace(result, name_start):
    return next(trace for trace in result.figure.data if (trace.name or "").startswith(name_start))


def test_the_page_has_its_nine_figures():
    assert sorted(FIGURE_IDS) == sorted(
        [
            "sinusoidal-heatmap",
            "sinusoidal-waves",
            "sinusoidal-wavelengths",
            "sinusoidal-similarity",
            "sinusoidal-relative",
            "sinusoidal-linear-map",
            "sinusoidal-linear-map-error",
            "sinusoidal-add-vs-concat",
            "sinusoidal-binary-counter",
        ]
    )


@pytest.mark.parametrize("layout", ["interleaved", "half", "t2t"])
def test_heatmap_draws_the_core_encoding_at_the_true_positions_and_channels(layout):
    result = _build("sinusoidal-heatmap", seq_len=300, d_model=64, base=500.0, layout=layout)
    (trace,) = result.figure.data
    assert trace.type == "heatmap" and np.asarray(trace.z).shape == (300, 64)
    expected = sinusoidal.encoding(300, 64, base=500.0, layout=layout)
    np.testing.assert_allclose(np.asarray(trace.z), expected.numpy(), atol=1e-6)
    np.testing.assert_array_equal(np.asarray(trace.y), np.arange(300))
    title = result.figure.layout.title.text
    assert f"layout={layout}" in title and "d_model=64" in title and "base=500" in title and "L=300" in title
    assert result.notes == ("overview, all 300 positions",)


def test_heatmap_at_a_million_positions_and_d_8192_keeps_both_channels_of_sampled_pairs():
    result = _build("sinusoidal-heatmap", **LARGEST)
    (trace,) = result.figure.data
    z, x, y = np.asarray(trace.z), np.asarray(trace.x), np.asarray(trace.y)
    assert z.shape == (len(y), len(x)) and len(y) <= 384 and len(x) <= 512
    stride = -(-LARGEST["seq_len"] // 384)  # ceil: one position every 2,731
    np.testing.assert_array_equal(y, np.arange(0, LARGEST["seq_len"], stride))
    assert np.all(x[1::2] == x[::2] + 1)  # interleaved: sin 2i and cos 2i+1 together
    assert result.figure.layout.xaxis.type == "category"  # channel pairs are not evenly spaced
    assert result.figure.layout.yaxis.type is None  # positions are: drawn as one image
    rows = [0, 100, len(y) - 1]
    expected = sinusoidal.encoding(None, 8192, positions=torch.as_tensor(y[rows]), channels=torch.as_tensor(x))
    np.testing.assert_allclose(z[rows], expected.numpy(), atol=1e-6)
    assert any("sampled" in note and "1,048,576" in note and "one every 2,731" in note for note in result.notes)
    assert any("channels: 512 of 8,192" in note for note in result.notes)
    assert len(result.figure.to_json()) < 1_600_000


def test_window_shows_every_position_from_start_and_start_past_the_end_names_start():
    result = _build("sinusoidal-heatmap", seq_len=5000, view="window", start=4000, window=384)
    np.testing.assert_array_equal(np.asarray(result.figure.data[0].y), np.arange(4000, 4384))
    assert result.notes[0] == "window: every position from 4,000 to 4,383"
    with pytest.raises(ValueError, match="start"):
        _build_unchecked("sinusoidal-heatmap", seq_len=5000, view="window", start=5000)


def test_waves_are_the_core_channels_and_dims_outside_d_model_are_reported():
    result = _build_unchecked("sinusoidal-waves", seq_len=200, d_model=32, dims=(0, 5, 31, 40))
    assert [trace.name.split(" (")[0] for trace in result.figure.data] == ["channel 0", "channel 5", "channel 31"]
    expected = sinusoidal.encoding(200, 32)
    for trace, j in zip(result.figure.data, (0, 5, 31), strict=True):
        np.testing.assert_allclose(np.asarray(trace.y), expected[:, j].numpy(), atol=1e-6)
    assert any("dims 40" in note for note in result.notes)
    with pytest.raises(ValueError, match="dims"):
        _build_unchecked("sinusoidal-waves", d_model=32, dims=(40, 50))


def test_fast_waves_over_long_ranges_are_envelopes_that_hold_every_true_value():
    result = _build("sinusoidal-waves", seq_len=1_048_576, d_model=8192, dims="0,8190")
    high, low = result.figure.data[0], result.figure.data[1]  # channel 0 (λ = 2π) aliases: min/max band
    assert low.fill == "tonexty" and len(high.x) <= 1024
    assert any("alias" in note and note.startswith("channels 0:") for note in result.notes)
    first, last, lo, hi = np.asarray(high.customdata)[37]
    values = sinusoidal.encoding(None, 8192, positions=torch.arange(int(first), int(last) + 1), channels=[0])
    assert np.isclose(values.min().item(), lo, atol=1e-6) and np.isclose(values.max().item(), hi, atol=1e-6)
    slow = _trace(result, "channel 8190")  # λ ≈ 2π·10000: plain exact samples
    positions = torch.as_tensor(np.asarray(slow.x)).long()
    assert len(slow.x) <= 2048 and slow.fill is None
    expected = sinusoidal.encoding(None, 8192, positions=positions, channels=[8190])[:, 0]
    np.testing.assert_allclose(np.asarray(slow.y), expected.numpy(), atol=1e-6)


@pytest.mark.parametrize(("d_model", "layout"), [(128, "interleaved"), (9, "t2t"), (10, "half")])
def test_wavelengths_are_the_core_wavelengths_by_pair_on_a_log_axis(d_model, layout):
    result = _build("sinusoidal-wavelengths", d_model=d_model, layout=layout, seq_len=500)
    (trace,) = result.figure.data
    expected = sinusoidal.wavelengths(d_model, layout=layout, dtype=torch.float64).numpy()
    finite = np.isfinite(expected)
    np.testing.assert_allclose(np.asarray(trace.y), expected[finite], rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(trace.customdata), sinusoidal.channel_pair_index(d_model, layout)[finite])
    assert result.figure.layout.yaxis.type == "log"
    assert any(shape.y0 == 500 for shape in result.figure.layout.shapes)  # the L line
    assert ("λ = ∞" in " ".join(result.notes)) == (not finite.all())


def test_similarity_matrix_is_the_dot_product_of_core_rows_at_sampled_positions():
    result = _build("sinusoidal-similarity", seq_len=100_000, d_model=64)
    (trace,) = result.figure.data
    positions = torch.as_tensor(np.asarray(trace.x)).long()
    assert len(positions) == 256 and "sampled" in result.notes[0]
    pe = sinusoidal.encoding(None, 64, positions=positions)
    np.testing.assert_allclose(np.asarray(trace.z), (pe @ pe.T).numpy(), atol=1e-4)
    np.testing.assert_allclose(np.diag(np.asarray(trace.z)), 32.0, atol=1e-4)


@pytest.mark.parametrize(
    ("d_model", "layout", "spread"), [(128, "interleaved", False), (9, "half", True), (9, "t2t", False)]
)
def test_relative_similarity_overlays_closed_form_and_measured_spread(d_model, layout, spread):
    result = _build("sinusoidal-relative", seq_len=600, d_model=d_model, layout=layout, base=100.0)
    data = result.data
    np.testing.assert_array_equal(data["offset"], np.arange(300))
    closed = sinusoidal.relative_similarity(torch.arange(300), d_model, base=100.0, layout=layout)
    np.testing.assert_allclose(data["closed_form"], closed.numpy(), atol=1e-5)
    table = sinusoidal.encoding(600, d_model, base=100.0, layout=layout)
    _, mean, std = metrics.offset_similarity(table, torch.arange(300))
    np.testing.assert_allclose(data["mean"], mean.numpy(), atol=1e-5)
    np.testing.assert_allclose(data["std"], std.numpy(), atol=1e-5)
    assert (data["std"].max() > 0.01) == spread  # odd d: the unpaired sin channel depends on p
    assert ("unpaired" in result.notes[1]) == spread
    if not spread:
        np.testing.assert_allclose(data["mean"], data["closed_form"], atol=1e-4)
    assert result.figure.data[0].fill == "toself"  # the band is drawn under the curves


def test_linear_map_moves_pe_by_k_up_to_rounding_and_says_when_it_uses_a_smaller_d():
    result = _build("sinusoidal-linear-map-error", d_model=64, offset=37)
    assert result.data["max_error"].max() < 1e-9
    matrix = _build("sinusoidal-linear-map", d_model=64, offset=37)
    assert np.asarray(matrix.figure.data[0].z).shape == (16, 16)  # the channels of pairs 0..7
    assert "k=37" in matrix.figure.layout.title.text and "k=37" in result.figure.layout.title.text
    odd = _build("sinusoidal-linear-map-error", d_model=63, offset=37)
    assert odd.data["max_error"].max() > 1e-3 and any("no cos partner" in note for note in odd.notes)
    large = _build("sinusoidal-linear-map-error", **LARGEST)
    assert f"d_model={LINEAR_MAP_MAX_D} (of 8192)" in large.figure.layout.title.text
    assert large.data["max_error"].max() < 1e-9
    large_matrix = _build("sinusoidal-linear-map", d_model=8192)
    assert any("512 MB" in note for note in large_matrix.notes)


def test_adding_vs_concatenating_norms_and_cosines():
    scale = 0.5
    result = _build("sinusoidal-add-vs-concat", d_model=128, token_scale=scale, seq_len=400)
    data = result.data
    token_norm = scale * math.sqrt(64)
    np.testing.assert_allclose(data["norm_token"], token_norm, rtol=1e-6)
    np.testing.assert_allclose(data["cos_concatenated"], scale / math.sqrt(1 + scale**2), rtol=1e-6)
    np.testing.assert_allclose(data["norm_concatenated"], math.sqrt(token_norm**2 + 64), rtol=1e-6)
    assert data["cos_added"].std() > 1e-3  # adding: the direction depends on the position
    assert "0.5·‖PE‖" in result.figure.layout.title.text


def test_every_figure_at_the_largest_parameters_fits_the_page_budget():
    sizes = {figure_id: len(_build(figure_id, **LARGEST).figure.to_json()) for figure_id in FIGURE_IDS}
    assert sum(sizes.values()) < 3_000_000, sizes


def test_a_bad_layout_names_the_argument():
    params, _ = registry.resolve_params("sinusoidal-heatmap", {})
    with pytest.raises(ValueError, match="layout"):
        registry.build("sinusoidal-heatmap", {**params, "layout": "diagonal"})
    with pytest.raises(ValueError, match="d_model"):
        _build("sinusoidal-heatmap", d_model=2, layout="t2t")


def test_the_default_waves_are_waves_a_reader_can_follow():
    """At the page's first values (100 positions, d_model 128) every default channel is drawn at every position, as
    a plain line (no min..max band), and shows between one and about a dozen periods."""
    result = _build("sinusoidal-waves", seq_len=100)
    lines = [trace for trace in result.figure.data if trace.fill is None]
    assert len(lines) == len(result.figure.data) == len(PARAMS["dims"].default)
    wavelength = sinusoidal.wavelengths(128, dtype=torch.float64).numpy()
    periods = []
    for trace, j in zip(lines, PARAMS["dims"].default, strict=True):
        np.testing.assert_array_equal(np.asarray(trace.x), np.arange(100))
        periods.append(100 / wavelength[j])
        assert wavelength[j] >= 8  # at least 8 points per period: the wave's shape survives
    assert min(periods) >= 0.8 and max(periods) <= 15 and max(periods) / min(periods) > 5  # a slow and a fast one


def test_a_window_draws_as_many_positions_as_its_length_and_says_when_a_figure_draws_fewer():
    result = _build("sinusoidal-heatmap", seq_len=5000, view="window", start=10, window=64)
    np.testing.assert_array_equal(np.asarray(result.figure.data[0].y), np.arange(10, 74))
    assert result.notes[0] == "window: every position from 10 to 73"
    waves = _build("sinusoidal-waves", seq_len=5000, view="window", start=10, window=64)
    assert all(len(trace.x) == 64 for trace in waves.figure.data)
    similarity = _build("sinusoidal-similarity", seq_len=5000, view="window", window=512)
    assert len(similarity.figure.data[0].x) == 256
    assert "the first 256 of the window's 512: this figure draws at most 256" in similarity.notes[0]
    short = _build("sinusoidal-heatmap", seq_len=5000, view="window", start=4990, window=64)
    assert short.notes[0] == "window: every position from 4,990 to 4,999"  # the sequence ends first: no excuse


def test_the_heatmap_says_which_channels_alias_only_when_some_do():
    every_third = _build("sinusoidal-heatmap", seq_len=1024)  # rows 3 apart: the fastest λ, 2π, is above 6
    assert not any("alias" in note for note in every_third.notes)
    sampled = _build("sinusoidal-heatmap", seq_len=100_000)  # rows 261 apart: the pairs with λ < 522 alias
    (note,) = [note for note in sampled.notes if "alias" in note]
    wavelength = sinusoidal.wavelengths(128).numpy()
    aliased = int((wavelength < 2 * 261).sum())
    assert f"the {aliased} channels shown with λ < 522 tokens (pairs 0..{aliased // 2 - 1})" in note


def test_the_similarity_colours_run_over_the_values_drawn():
    positive = _build("sinusoidal-similarity", seq_len=100)  # PE·PE from 24 to 64: no negative value
    (trace,) = positive.figure.data
    z = np.asarray(trace.z)
    assert (trace.zmin, trace.zmax) == pytest.approx((z.min(), z.max())) and z.min() > 20
    assert trace.colorscale[0][1] == plotly.colors.get_colorscale(SEQUENTIAL_SCALE)[0][1]
    signed = _build("sinusoidal-similarity", seq_len=1024, d_model=16)  # few pairs: far positions go negative
    (trace,) = signed.figure.data
    z = np.asarray(trace.z)
    assert z.min() < 0 < z.max() and (trace.zmin, trace.zmax) == pytest.approx((z.min(), z.max()))
    zero = -z.min() / (z.max() - z.min())  # where 0 sits on the colour bar
    stop = next(colour for where, colour in trace.colorscale if where == pytest.approx(zero))
    white = plotly.colors.sample_colorscale(plotly.colors.get_colorscale(DIVERGING_SCALE), [0.5])[0]
    assert stop == white  # 0 is the diverging scale's centre, however lopsided the values


@pytest.mark.parametrize(
    ("d_model", "layout", "formula"),
    [(128, "interleaved", "2π·base^(126/128)"), (9, "half", "2π·base^(8/9)"), (128, "t2t", "2π·base")],
)
def test_the_wavelength_note_gives_the_slowest_wavelength_each_layout_computes(d_model, layout, formula):
    result = _build("sinusoidal-wavelengths", d_model=d_model, layout=layout, seq_len=500)
    expected = sinusoidal.wavelengths(d_model, layout=layout, dtype=torch.float64).numpy()
    slowest = expected[np.isfinite(expected)].max()
    assert f"λ = {formula} = {slowest:,.0f} tokens" in result.notes[0]
    assert ("exactly 2π·base" in result.notes[0]) == (layout == "t2t")
    labels = {annotation.text: annotation.y for annotation in result.figure.layout.annotations}
    assert labels["L = 500"] == pytest.approx(math.log10(500))  # a log axis places a label at log10(value)
    assert labels["2π: the fastest possible"] == pytest.approx(math.log10(2 * math.pi))


def test_sampled_channels_are_labelled_at_round_numbers():
    result = _build("sinusoidal-heatmap", seq_len=131_072, d_model=4096, base=500_000.0)
    axis = result.figure.layout.xaxis
    assert axis.type == "category" and list(axis.tickvals) == list(range(0, 4096, 512))
    assert set(axis.tickvals) <= set(np.asarray(result.figure.data[0].x).tolist())  # each a channel drawn
    assert list(axis.ticktext) == [f"{tick:,}" for tick in range(0, 4096, 512)]
    assert _build("sinusoidal-heatmap").figure.layout.xaxis.tickvals is None  # all 128 channels: a plain axis
