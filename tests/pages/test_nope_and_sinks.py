"""The NoPE and sinks page: its defaults draw without a warning, a link restores every parameter, each control
changes its figure, hostile link values are answered next to the control, and the largest parameters fit the
3 MB budget."""

from __future__ import annotations

import pytest

from tests.pages.conftest import (
    assert_healthy,
    chart_array,
    chart_specs,
    control,
    open_page,
    payload_bytes,
    titles,
    warning_text,
)

PAGE = "nope_and_sinks"
FULL = {
    "nope_length": "2000", "value_dim": "32", "n_sequences": "16", "values_seed": "7", "num_hidden_layers": "12",
    "no_rope_layer_interval": "3", "floor_scale": "1000", "attn_scale": "0.3", "temperature_context": "50000",
    "stream_len": "60", "n_sink": "2", "sink_window": "10",
}  # fmt: skip
LARGEST = {
    "nope_length": "4096", "value_dim": "128", "n_sequences": "64", "num_hidden_layers": "256",
    "no_rope_layer_interval": "1", "floor_scale": "1", "attn_scale": "2", "temperature_context": "16777216",
    "stream_len": "256", "n_sink": "32", "sink_window": "256",
}  # fmt: skip


def _notice(at) -> str:
    return "\n".join(block.value for block in at.markdown if "What to notice" in block.value)


def test_the_defaults_draw_every_figure_without_a_warning():
    at = open_page(PAGE)
    assert_healthy(at)
    assert not at.warning, warning_text(at)
    assert titles(at)[:5] == [
        "Uniform causal attention:<br>output length vs position",
        "A later layer reads i<br>from the length alone",
        "48 layers, NoPE every 4",
        "NoPE query scale, floor_scale=8,192, attn_scale=0.1",
        "Cache after each token:<br>4 sinks + 12 recent",
    ]
    assert len(titles(at)) == 6  # and the real encoder's attention (or how to install it)
    assert "12 of 48 layers have no RoPE: layers 3, 7, 11, 15" in _notice(at)
    assert "At 10,485,760 tokens" in _notice(at)


def test_the_first_visit_opens_on_the_causal_mask_only():
    at = open_page(PAGE, section=None)
    assert_healthy(at)
    assert len(chart_specs(at)) == 2 and "Uniform causal attention" in titles(at)[0]


def test_a_link_restores_every_parameter():
    at = open_page(PAGE, FULL)
    assert_healthy(at)
    assert not at.warning, warning_text(at)
    for name, value in FULL.items():
        assert float(control(at, name).value) == float(value), name
    assert titles(at)[2] == "12 layers, NoPE every 3"
    assert "floor_scale=1,000" in titles(at)[3] and "attn_scale=0.3" in titles(at)[3]
    assert titles(at)[4] == "Cache after each token:<br>2 sinks + 10 recent"
    measured_x = chart_array(chart_specs(at)[0]["data"][0]["x"])
    assert measured_x[-1] == 2000  # i + 1 of the last position drawn


@pytest.mark.parametrize(
    ("key", "value", "figure"),
    [
        ("nope_length", 300, 0),
        ("values_seed", 5, 0),
        ("no_rope_layer_interval", 6, 2),
        ("attn_scale", 0.5, 3),
        ("sink_window", 20, 4),
        ("n_sink", 0, 4),
    ],
)
def test_each_control_changes_its_figure(key, value, figure):
    at = open_page(PAGE)
    before = chart_specs(at)[figure]
    control(at, key).set_value(value).run()
    assert_healthy(at)
    assert chart_specs(at)[figure] != before


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("nope_length", "99999999", "nope_length='99999999' is outside the allowed range (16 to 4096)"),
        ("n_sequences", "-3", "n_sequences='-3' is outside the allowed range (1 to 64)"),
        ("attn_scale", "nan", "attn_scale='nan'"),
        ("sink_window", "ten", "sink_window='ten' is not a valid"),
        ("temperature_context", "1e12", "temperature_context='1e12'"),
    ],
)
def test_hostile_link_values_get_a_message_not_an_exception(name, value, words):
    at = open_page(PAGE, {name: value})
    assert_healthy(at)
    assert words in warning_text(at), warning_text(at)


def test_the_real_attention_section_shows_the_encoders_figure():
    at = open_page(PAGE, section="Real attention on the first tokens")
    assert_healthy(at)
    assert len(chart_specs(at)) == 1
    shown = titles(at)[0] + " ".join(str(note) for note in chart_specs(at)[0]["layout"].get("annotations", []))
    assert "all-MiniLM-L6-v2" in shown  # its shares, or the line that installs it


def test_largest_parameters_stay_under_the_page_budget():
    at = open_page(PAGE, LARGEST)
    assert_healthy(at)
    assert payload_bytes(at) < 3_000_000
    assert titles(at)[2] == "256 layers, NoPE every 1"
    assert "The model never sees a position past 255" in _notice(at)
