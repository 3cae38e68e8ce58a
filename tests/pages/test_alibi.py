import numpy as np

from posenc_core.encodings import alibi
from tests.pages.conftest import (
    assert_healthy,
    caption_text,
    chart_array,
    chart_specs,
    control,
    open_page,
    payload_bytes,
    titles,
    warning_text,
)

SLOPES, BIAS, ATTENTION, SPAN = range(4)


def _panel_heads(at) -> list[str]:
    """The head each bias panel draws, from the panels' titles ("head 3<br>m = ...")."""
    (bias,) = [spec for spec in chart_specs(at) if spec["layout"]["title"]["text"].startswith("ALiBi bias")]
    annotations = bias["layout"]["annotations"]
    return [a["text"].split("<br>")[0] for a in annotations if a["text"].startswith("head")]


def _notice(at) -> str:
    return "\n".join(block.value for block in at.markdown if "What to notice" in block.value)


def test_page_runs_and_shows_its_four_figures_with_notes_and_the_trick():
    at = open_page("alibi")
    assert_healthy(at)
    shown = titles(at)
    assert len(shown) == 4 and all("n_heads=8" in title for title in shown)
    assert "L=1,024" in shown[BIAS] and "90.0%" in shown[SPAN]
    assert "sampled: 342 of 1,024 positions, one every 3" in caption_text(at) and "masked" in caption_text(at)
    assert any("softmax(x + c) = softmax(x)" in block.value for block in at.markdown)
    assert sum("What to notice" in block.value for block in at.markdown) == 3  # one under each section
    assert at.latex
    slopes = chart_array(chart_specs(at)[SLOPES]["data"][0]["y"])
    np.testing.assert_allclose(slopes, alibi.slopes(8, device="cpu"), rtol=1e-6)


def test_every_control_changes_its_figure():
    at = open_page("alibi")
    steps = [
        (lambda: at.slider(key="n_heads").set_value(12), SLOPES, "n_heads=12"),
        (lambda: at.number_input(key="alibi_bias_max").set_value(4.0), SLOPES, "alibi_bias_max=4"),
        (lambda: at.selectbox(key="mode").set_value("symmetric"), BIAS, "|i−j|"),
        (lambda: at.number_input(key="seq_len").set_value(4096), BIAS, "L=4,096"),
        (lambda: at.number_input(key="mass").set_value(0.5), SPAN, "50.0%"),
    ]
    for change, chart, expected in steps:
        change().run()
        assert_healthy(at)
        assert expected in titles(at)[chart], (expected, titles(at)[chart])
    at.text_input(key="heads").set_value("1, 9, 11").run()
    assert _panel_heads(at) == ["head 1", "head 9", "head 11"]
    at.selectbox(key="view").set_value("window").run()
    control(at, "start").set_value(3000).run()
    assert_healthy(at)
    assert "window: every position from 3,000 to 3,294" in caption_text(at)  # 3 heads: 295 x 295 each
    assert len(chart_specs(at)[SLOPES]["data"]) == 2  # 12 heads: the interleaved four in their own colour
    assert at.query_params["heads"] == "1,9,11" and at.query_params["mode"] == "symmetric"


def test_url_restores_every_parameter():
    query = {
        "n_heads": "16",
        "alibi_bias_max": "6",
        "heads": "2,15",
        "mode": "symmetric",
        "seq_len": "65536",
        "view": "window",
        "start": "60000",
        "mass": "0.75",
    }
    at = open_page("alibi", query)
    assert_healthy(at)
    assert at.slider(key="n_heads").value == 16 and at.number_input(key="alibi_bias_max").value == 6.0
    assert at.text_input(key="heads").value == "2,15" and at.selectbox(key="mode").value == "symmetric"
    assert at.number_input(key="seq_len").value == 65536 and at.selectbox(key="view").value == "window"
    assert control(at, "start").value == 60000 and at.number_input(key="mass").value == 0.75
    assert "alibi_bias_max=6" in titles(at)[BIAS] and "75.0%" in titles(at)[SPAN]


def test_heads_beyond_n_heads_move_to_the_last_head_and_the_page_says_why():
    at = open_page("alibi", {"n_heads": "4", "heads": "1,7"})
    assert_healthy(at)
    assert at.text_input(key="heads").value == "1,3" and "the model has 4 heads" in warning_text(at)
    at.text_input(key="heads").set_value("5,6").run()
    assert_healthy(at)
    assert at.text_input(key="heads").value == "3" and "the model has 4 heads" in warning_text(at)
    assert _panel_heads(at) == ["head 3"]


def test_presets_set_the_heads_and_mpt_bias_max():
    at = open_page("alibi")  # the preset is picked here, not in the URL: the Why page would build it first
    at.selectbox(key="preset").set_value("bloom-176b").run()
    assert_healthy(at)
    assert at.slider(key="n_heads").value == 112 and "n_heads=112" in titles(at)[SLOPES]
    assert "heads 64-111 every other slope of the 128-head series" in caption_text(at)
    at.number_input(key="alibi_bias_max").set_value(4.0).run()
    at.selectbox(key="preset").set_value("mpt-7b").run()
    assert_healthy(at)
    assert at.slider(key="n_heads").value == 32 and at.number_input(key="alibi_bias_max").value == 8.0
    assert at.number_input(key="seq_len").value == 2048 and at.query_params["preset"] == "mpt-7b"


def test_largest_parameters_stay_under_three_megabytes():
    at = open_page("alibi", {"n_heads": "128", "seq_len": "1048576", "heads": "0,1,64,127", "mass": "0.999"})
    assert_healthy(at)
    assert len(chart_specs(at)) == 4 and payload_bytes(at) < 3_000_000
    assert "sampled: 256 of 1,048,576 positions" in caption_text(at)


def test_every_head_of_eight_is_drawn_without_a_warning_each_on_its_own_colour_range():
    at = open_page("alibi", {"heads": "0,1,2,3,4,5,6,7"}, section="Bias matrices")
    assert_healthy(at)
    assert not at.warning, warning_text(at)
    assert at.text_input(key="heads").value == "0,1,2,3,4,5,6,7"
    assert _panel_heads(at) == [f"head {h}" for h in range(8)]
    maps = chart_specs(at)[0]["data"]
    assert len({trace["zmin"] for trace in maps}) == 8 and {trace["zmax"] for trace in maps} == {0}
    assert "128 times flatter than head 0" in _notice(at)
    at.toggle(key="shared_scale").set_value(True).run()
    assert_healthy(at)
    maps = chart_specs(at)[0]["data"]
    assert len({trace["zmin"] for trace in maps}) == 1 and at.query_params["shared_scale"] == "1"
    assert "On one colour scale" in _notice(at) and "head 0 (5 tokens) keeps 90%" in caption_text(at)
    assert "left out" not in caption_text(at)


def test_heads_help_says_how_many_panels_fit():
    at = open_page("alibi", section="Bias matrices")
    assert "16 or fewer" in at.text_input(key="heads").help


def test_the_text_gives_the_computed_span_of_the_shallowest_head():
    at = open_page("alibi", section="Slopes per head")
    intro = at.markdown[0].value
    assert "last 590 tokens" in intro and "thousands" not in intro
    assert "2^(−8/8) = 0.5 times the one before" in _notice(at)


def test_what_to_notice_speaks_about_the_open_tab_and_follows_the_controls():
    at = open_page("alibi", {"n_heads": "16"}, section="Slopes per head")
    assert "2^(−8/16) = 0.707" in _notice(at) and "diagonal" not in _notice(at)
    at = open_page("alibi", {"n_heads": "12"}, section="Slopes per head")
    assert "heads 8–11 every other slope of the 16-head series" in _notice(at)
    at = open_page("alibi", {"seq_len": "4096", "mass": "0.5"}, section="Where each head looks")
    assert_healthy(at)
    assert "head 0 (m = 0.5) keeps 50.0% of its attention on the last 2 tokens" in _notice(at)
    assert "head 7 (m = 0.00391) on the last 178" in _notice(at) and "below L = 4,096" in _notice(at)
    at = open_page("alibi", {"seq_len": "256"}, section="Where each head looks")
    assert "reach the start of the context" in _notice(at) and "about 590 tokens" in _notice(at)


def test_sixteen_panels_of_bloom_at_a_million_tokens_stay_under_three_megabytes():
    query = {"preset": "bloom-176b", "seq_len": "1048576", "heads": ",".join(map(str, range(0, 112, 7)))}
    at = open_page("alibi", query)
    assert_healthy(at)
    assert len(_panel_heads(at)) == 16 and payload_bytes(at) < 3_000_000
