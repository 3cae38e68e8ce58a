import numpy as np

from posenc_core.encodings import relative
from tests.pages.conftest import (
    assert_healthy,
    caption_text,
    chart_array,
    chart_specs,
    control,
    error_texts,
    open_page,
    payload_bytes,
    titles,
)

SHAW, BUCKET, MATRIX = range(3)
T5 = "T5 (Raffel et al. 2020): relative position buckets"


def test_page_runs_and_shows_the_three_figures_and_the_bucket_table():
    at = open_page("relative")
    assert_healthy(at)
    shown = titles(at)
    assert len(shown) == 3
    assert "k=16, L=128" in shown[SHAW] and "num_buckets=32, max_distance=128" in shown[BUCKET]
    assert "bidirectional" in shown[MATRIX] and "L=128" in shown[MATRIX]
    assert "all 128 positions" in caption_text(at)
    table = at.dataframe[0].value
    assert len(table) == 31 and table["relative positions j − i"].tolist()[15] == "≤ -91"
    assert sum("What to notice" in block.value for block in at.markdown) == 2 and len(at.latex) == 2


def test_drawn_matrices_equal_the_core():
    at = open_page("relative", {"seq_len": "300"})
    shaw, _, buckets = chart_specs(at)
    positions = np.arange(300)
    np.testing.assert_array_equal(chart_array(shaw["data"][0]["x"]), positions)
    np.testing.assert_array_equal(chart_array(shaw["data"][0]["z"]), relative.shaw_index(300, 300, 16, device="cpu"))
    expected = relative.t5_bucket_matrix(300, bidirectional=True, num_buckets=32, max_distance=128, device="cpu")
    np.testing.assert_array_equal(chart_array(buckets["data"][0]["z"]), expected)


def test_every_control_changes_its_figure():
    at = open_page("relative")
    steps = [
        (lambda: at.number_input(key="seq_len").set_value(4096), MATRIX, "L=4,096"),
        (lambda: at.number_input(key="clip_distance").set_value(4), SHAW, "k=4,"),
        (lambda: at.slider(key="num_buckets").set_value(64), BUCKET, "num_buckets=64"),
        (lambda: at.number_input(key="max_distance").set_value(500), MATRIX, "max_distance=500"),
        (lambda: at.toggle(key="bidirectional").set_value(False), BUCKET, "causal"),
    ]
    for change, chart, expected in steps:
        change().run()
        assert_healthy(at)
        assert expected in titles(at)[chart], (expected, titles(at)[chart])
    assert at.dataframe[0].value["relative positions j − i"].tolist()[0] == "0 and every key after the query"
    at.selectbox(key="view").set_value("window").run()
    control(at, "start").set_value(2000).run()
    assert_healthy(at)
    assert "window: every position from 2,000 to 2,511" in caption_text(at)
    assert at.query_params["bidirectional"] == "0" and at.query_params["clip_distance"] == "4"


def test_url_restores_every_parameter():
    query = {
        "seq_len": "131072",
        "view": "window",
        "start": "100000",
        "clip_distance": "64",
        "num_buckets": "128",
        "max_distance": "4096",
        "bidirectional": "0",
    }
    at = open_page("relative", query)
    assert_healthy(at)
    assert at.number_input(key="seq_len").value == 131072 and at.selectbox(key="view").value == "window"
    assert control(at, "start").value == 100000 and at.number_input(key="clip_distance").value == 64
    assert at.slider(key="num_buckets").value == 128 and at.number_input(key="max_distance").value == 4096
    assert at.toggle(key="bidirectional").value is False
    assert "causal, num_buckets=128, max_distance=4,096" in titles(at)[BUCKET]


def test_impossible_bucket_settings_show_a_message_not_a_traceback():
    at = open_page("relative", {"num_buckets": "512", "max_distance": "100"})
    assert not at.exception
    assert any("max_distance must be" in error.value for error in at.error)
    assert len(chart_specs(at)) == 1  # Shaw is still drawn


def test_t5_preset_sets_the_bucket_parameters():
    at = open_page("relative", {"num_buckets": "64", "max_distance": "300"})
    at.selectbox(key="preset").set_value("t5-base").run()
    assert_healthy(at)
    assert at.slider(key="num_buckets").value == 32 and at.number_input(key="max_distance").value == 128
    assert at.number_input(key="seq_len").value == 512 and "L=512" in titles(at)[MATRIX]


def test_largest_parameters_stay_under_three_megabytes():
    query = {"seq_len": "1048576", "clip_distance": "1048576", "num_buckets": "1024", "max_distance": "1048576"}
    at = open_page("relative", query)
    assert_healthy(at)
    assert len(chart_specs(at)) == 3 and payload_bytes(at) < 3_000_000
    assert len(at.dataframe[0].value) == 1023


def _notice(at) -> str:
    return "\n".join(block.value for block in at.markdown if "What to notice" in block.value)


def test_shaw_at_its_defaults_shows_the_clipped_band_as_a_visible_part_of_the_matrix():
    at = open_page("relative", section=None)  # a first visit: the first tab, the page's own seq_len
    assert_healthy(at)
    (shaw,) = chart_specs(at)
    z = chart_array(shaw["data"][0]["z"])
    inside = np.mean((z > 0) & (z < 32))  # indices strictly between the clipped ends
    assert z.shape == (128, 128) and 0.15 < inside < 0.5
    assert "At L = 128, 76% of the (query, key) pairs lie beyond ±16" in _notice(at)
    assert "T5" not in _notice(at)  # the notes speak about the open tab only


def test_the_text_says_the_positional_term_depends_on_the_offset_not_the_whole_attention():
    intro = open_page("relative", section=None).markdown[0].value
    assert "*positional term* of the attention score" in intro and "depends only on the offset" in intro
    assert "attention between query *i* and key *j* depends only on the offset" not in intro


def test_bidirectional_buckets_with_a_small_max_distance_draw_both_t5_figures():
    at = open_page("relative", {"num_buckets": "64", "max_distance": "20"}, section=T5)
    assert_healthy(at)
    assert len(chart_specs(at)) == 2 and len(at.dataframe[0].value) == 41
    assert "causal (decoder) not drawn: its 32 exact buckets need max_distance >= 33" in caption_text(at)
    at.toggle(key="bidirectional").set_value(False).run()
    assert error_texts(at) and all("max_distance must be an integer >= 33" in error for error in error_texts(at))


def test_t5_notes_follow_the_controls():
    at = open_page("relative", {"seq_len": "64", "bidirectional": "0"}, section=T5)
    assert_healthy(at)
    notice = _notice(at)
    assert "The first 16 buckets of a side hold one offset each" in notice and "Every offset of 113 or more" in notice
    assert "At L = 64 no offset reaches the last bucket" in notice and "Shaw" not in notice
