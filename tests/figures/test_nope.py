"""The NoPE and sinks figures draw the core's numbers: the causal-mask norms and their read-back, Llama 4's layer
pattern and temperature, StreamingLLM's cache grid; small payloads at the largest parameters."""

from __future__ import annotations

import numpy as np
import pytest

from posenc import figures  # noqa: F401  (registers every family)
from posenc.drawing import registry
from posenc.figures.nope import notes
from posenc.figures.nope.llama4 import curve_positions
from posenc_core.encodings import attention_sink, nope

IDS = ("nope-causal-norm", "nope-position-readout", "nope-llama4-layers", "nope-llama4-temperature", "sink-cache-grid")
LARGEST = {
    "nope_length": 4096, "value_dim": 128, "n_sequences": 64, "num_hidden_layers": 256, "no_rope_layer_interval": 1,
    "floor_scale": 1, "attn_scale": 2.0, "temperature_context": 2**24, "stream_len": 256, "n_sink": 32,
    "sink_window": 256,
}  # fmt: skip


def build(figure_id: str, **given):
    params, messages = registry.resolve_params(figure_id, given)
    assert messages == []
    return params, registry.build(figure_id, params)


def test_the_page_registers_its_figures():
    on_page = {spec.id for spec in registry.FIGURES.values() if spec.page == "nope_and_sinks"}
    assert on_page == {*IDS, "real-attention-first-tokens"}  # the last from figures/real_attention


def test_the_causal_figures_draw_the_core_norms():
    _, result = build("nope-causal-norm", nope_length=500, value_dim=16, n_sequences=8, values_seed=3)
    positions = result.data["position"].astype(int)
    assert positions[0] == 0 and positions[-1] == 499 and len(positions) <= 96
    core = nope.causal_mean_output_norms(positions, dim=16, n_sequences=8, seed=3)
    np.testing.assert_allclose(result.data["measured_norm"], core.numpy(), rtol=1e-6)
    np.testing.assert_allclose(result.data["law_norm"], 1 / np.sqrt(positions + 1), rtol=1e-6)
    measured = result.figure.data[0]
    np.testing.assert_allclose(np.asarray(measured.x), positions + 1)  # x is i + 1 on the log axis
    assert result.figure.layout.xaxis.type == "log" and result.figure.layout.yaxis.type == "log"
    _, readout = build("nope-position-readout", nope_length=500, value_dim=16, n_sequences=8, values_seed=3)
    np.testing.assert_allclose(readout.data["read_position"], 1 / core.numpy() ** 2 - 1, rtol=1e-5)


def test_the_layer_figure_marks_the_hf_default_nope_layers():
    _, result = build("nope-llama4-layers")
    rope = result.data["uses_rope"].astype(bool)
    assert np.flatnonzero(~rope).tolist() == list(range(3, 48, 4))
    rope_trace, nope_trace = result.figure.data
    assert list(nope_trace.x) == list(range(3, 48, 4)) and len(rope_trace.x) == 36
    _, every_third = build("nope-llama4-layers", num_hidden_layers=9, no_rope_layer_interval=3)
    assert np.flatnonzero(~every_third.data["uses_rope"].astype(bool)).tolist() == [2, 5, 8]


def test_the_temperature_curve_equals_the_core_and_steps_at_floor_scale():
    _, result = build("nope-llama4-temperature", floor_scale=1000, attn_scale=0.5, temperature_context=100_000)
    positions = result.data["position"].astype(np.int64)
    core = nope.llama4_attention_scale(positions, floor_scale=1000, attn_scale=0.5)
    np.testing.assert_allclose(result.data["scale"], core.numpy(), rtol=1e-7)
    assert positions[0] == 0 and positions[-1] == 99_999
    assert {998, 999, 1998, 1999} <= set(positions.tolist())  # the steps' last and first tokens, exactly
    index = positions.tolist().index
    assert result.data["scale"][index(998)] == 1.0 < result.data["scale"][index(999)]
    assert result.figure.data[0].line.shape == "hv" and result.figure.layout.xaxis.type == "log"
    assert "floor_scale=1,000" in result.figure.layout.title.text


def test_the_default_temperature_reaches_ten_million_tokens():
    _, result = build("nope-llama4-temperature")
    assert int(result.data["position"][-1]) == 10_485_759
    assert result.data["scale"][-1] == pytest.approx(np.log(10_485_760 // 8192 + 1) * 0.1 + 1, rel=1e-6)


def test_the_cache_grid_equals_the_core_row_by_row():
    _, result = build("sink-cache-grid", stream_len=30, n_sink=2, sink_window=5)
    grid = np.asarray(result.figure.data[0].z)
    assert grid.shape == (30, 30)
    streamed, token, seen = (result.data[key] for key in ("tokens_streamed", "token", "position_seen"))
    for step in (1, 7, 8, 30):
        kept, positions = attention_sink.cache_positions(step, n_sink=2, window=5)
        row = grid[step - 1]
        np.testing.assert_array_equal(np.flatnonzero(~np.isnan(row)), kept.numpy())
        np.testing.assert_array_equal(row[kept.numpy()], positions.numpy())
        np.testing.assert_array_equal(token[streamed == step], kept.numpy())  # the exported table: the same cache
        np.testing.assert_array_equal(seen[streamed == step], positions.numpy())
    assert len(streamed) == sum(min(t, 7) for t in range(1, 31))
    assert "2 sinks + 5 recent" in result.figure.layout.title.text


def test_the_exported_table_names_its_columns():
    from posenc.drawing.export import data_to_csv

    _, result = build("sink-cache-grid", stream_len=10, n_sink=1, sink_window=2)
    lines = data_to_csv(result.data).decode().splitlines()
    assert lines[0] == "tokens_streamed,token,position_seen"
    assert lines[-3:] == ["10,0,0", "10,8,1", "10,9,2"]


def test_notes_follow_the_data():
    params, result = build("sink-cache-grid", stream_len=30, n_sink=2, sink_window=5)
    text = " ".join(notes.cache_points(params, result.data))
    assert "holds 7: the sinks 0–1 and tokens 25–29, given positions 0–6" in text and "Once 8 tokens" in text
    params, result = build("sink-cache-grid", stream_len=6, n_sink=0, sink_window=8)
    text = " ".join(notes.cache_points(params, result.data))
    assert "nothing is evicted yet" in text and "plain sliding window" in text
    params, result = build("nope-llama4-temperature", floor_scale=50_000, temperature_context=20_000)
    assert "stays 1 throughout" in " ".join(notes.temperature_points(params, result.data))
    params, result = build("nope-llama4-temperature", floor_scale=1, attn_scale=0.5)
    text = " ".join(notes.temperature_points(params, result.data))
    assert "no flat start: the scale is 1.3466 at the first token" in text  # log(2)·0.5 + 1
    params, result = build("nope-llama4-layers", num_hidden_layers=3, no_rope_layer_interval=8)
    text = " ".join(notes.layer_points(params, result.data))
    assert "none of the layers has NoPE" in text and "starts with RoPE" not in text
    params, result = build("nope-llama4-layers", num_hidden_layers=5, no_rope_layer_interval=1)
    text = " ".join(notes.layer_points(params, result.data))
    assert "5 of 5 layers have no RoPE" in text and "starts with RoPE" not in text
    params, result = build("sink-cache-grid", stream_len=14, n_sink=4, sink_window=12)  # fits: nothing evicted
    text = " ".join(notes.cache_points(params, result.data))
    assert "holds 14: every token, 0–13, at its own position" in text and "nothing is evicted yet" in text
    params, result = build("sink-cache-grid", stream_len=40, n_sink=0, sink_window=12)
    text = " ".join(notes.cache_points(params, result.data))
    assert "holds 12: tokens 28–39, given positions 0–11" in text and "sinks 0" not in text


def test_curve_positions_keep_the_exact_steps_inside_the_context():
    positions = curve_positions(20_000, 8192)
    assert {8190, 8191, 16382, 16383} <= set(positions.tolist()) and positions.max() == 19_999
    assert np.all(np.diff(positions) > 0)


@pytest.mark.parametrize("figure_id", IDS)
def test_largest_parameters_stay_small(figure_id):
    spec = registry.get_spec(figure_id)
    _, result = build(figure_id, **{name: value for name, value in LARGEST.items() if name in spec.params})
    assert len(result.figure.to_json()) < 1_000_000
