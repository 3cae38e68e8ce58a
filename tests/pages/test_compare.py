import pytest

from tests.pages.conftest import assert_healthy, chart_array, chart_specs, open_page, payload_bytes

PAGE = "compare"
FULL = {
    "schemes": "sinusoidal,rope,learned:256,alibi@2",
    "seq_len": "4096",
    "d_model": "64",
    "head_dim": "32",
    "base": "500000",
    "distance_axis": "linear",
}


def _names(at) -> list[str]:
    """The curves' names in the order of ``schemes`` (they are drawn last to first)."""
    traces = sorted(chart_specs(at)[0]["data"], key=lambda trace: trace.get("legendrank", 1000))
    return [trace["name"] for trace in traces]


def test_page_runs_and_shows_both_figures_and_the_metrics_table():
    at = open_page(PAGE, {"schemes": "sinusoidal,rope:llama-3.1-8b,alibi:bloom-176b,t5:t5-base", "d_model": "128"})
    assert_healthy(at)
    specs = chart_specs(at)
    assert len(specs) == 2
    assert len(specs[0]["data"]) == 5  # 3 similarity curves, T5's buckets, the every-distance reference
    assert specs[1]["data"][0]["name"] == "RoPE Llama-3.1-8B (llama3 ×8)"
    table = at.table[0].value  # a static table: long scheme names wrap instead of being cut off
    assert table.columns.tolist()[0] == "sinusoidal d_model=128" and len(table.columns) == 4
    assert "first k with similarity < 0.5" in table.index
    assert any("sampled" in caption.value for caption in at.caption)


def test_url_restores_every_parameter():
    at = open_page(PAGE, FULL)
    assert_healthy(at)
    assert at.text_input(key="schemes").value == FULL["schemes"]
    assert at.number_input(key="seq_len").value == 4096
    assert at.number_input(key="d_model").value == 64
    assert at.number_input(key="head_dim").value == 32
    assert at.number_input(key="base").value == 500000
    assert at.selectbox(key="distance_axis").value == "linear"
    assert _names(at) == [
        "sinusoidal d_model=64",
        "RoPE head_dim=32, base=500000",
        "learned random N(0, 0.02²) 256×64",
        "ALiBi 8 heads, head 2 (m=0.125)",
    ]
    assert "L=4,096" in chart_specs(at)[0]["layout"]["title"]["text"]
    assert chart_specs(at)[0]["layout"]["xaxis"]["type"] == "linear"


@pytest.mark.parametrize(
    ("widget", "key", "value", "changed"),
    [
        ("text_input", "schemes", "sinusoidal,alibi:mpt-7b", "ALiBi MPT-7B"),
        ("number_input", "d_model", 256, "sinusoidal d_model=256"),
        ("number_input", "head_dim", 64, "RoPE head_dim=64"),
        ("number_input", "base", 20000.0, "base=20000"),
        ("number_input", "seq_len", 50000, "L=50,000"),
        ("selectbox", "distance_axis", "log", "'type': 'log'"),
    ],
)
def test_each_control_changes_the_figure(widget, key, value, changed):
    at = open_page(PAGE, FULL)
    before = chart_specs(at)[0]
    getattr(at, widget)(key=key).set_value(value).run()
    assert_healthy(at)
    after = chart_specs(at)[0]
    assert after != before
    assert changed in str(after["data"][0]["name"]) + str(after["data"]) + str(after["layout"])


def test_an_unknown_scheme_in_the_url_gives_a_message_not_an_exception():
    at = open_page(PAGE, {"schemes": "sinusoidal,wavelet"})  # other bad link values: tests/pages/test_links.py
    assert not at.exception
    assert any("wavelet" in error.value and "schemes item 2" in error.value for error in at.error)
    at.text_input(key="schemes").set_value("sinusoidal,rope").run()
    assert_healthy(at)


def test_a_preset_sets_the_plain_rope_parameters():
    at = open_page(PAGE, {**FULL, "schemes": "sinusoidal,rope"})
    at.selectbox(key="preset").set_value("qwen2.5-7b").run()
    assert_healthy(at)
    assert at.number_input(key="head_dim").value == 128
    assert at.number_input(key="base").value == 1_000_000
    assert "RoPE head_dim=128, base=1e+06" in _names(at)


def test_largest_parameters_stay_under_the_page_budget():
    largest = {"schemes": "sinusoidal,rope,learned,rope:llama-3.1-8b", "seq_len": "1048576", "d_model": "8192"}
    at = open_page(PAGE, {**largest, "head_dim": "512"})
    assert_healthy(at)
    assert payload_bytes(at) < 3_000_000
    assert max(chart_array(trace["x"]).max() for trace in chart_specs(at)[0]["data"]) == 1_048_575
