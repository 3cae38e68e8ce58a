import numpy as np
import pytest

from tests.pages.conftest import assert_healthy, chart_array, chart_specs, error_texts, open_page, payload_bytes

PAGE = "mrope"
SPEC = "text:3,image:1x4x6,text:2"
FULL = {
    "segments": "text:2,image:1x4x4,text:1,video:3x2x2",
    "spatial_merge_size": "2",
    "mrope_section": "8,12,12",
    "head_dim": "64",
    "base": "500000",
    "vision_index": "2",
    "mrope_layout": "qwen2_vl",
}


def _rows(at) -> list[np.ndarray]:
    """The T, H, W rows drawn in the position-id figure."""
    data = chart_specs(at)[0]["data"]
    return [chart_array(trace["y"]) for trace in data if trace["name"].split(" ")[0] in ("T", "H", "W")]


def test_page_runs_and_shows_the_spec_test_vector():
    at = open_page(PAGE, {"segments": SPEC})
    assert_healthy(at)
    specs = chart_specs(at)
    assert len(specs) == 3
    t, h, w = _rows(at)
    np.testing.assert_array_equal(t, [0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7])
    np.testing.assert_array_equal(h, [0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7])
    np.testing.assert_array_equal(w, [0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7])
    assert "rope delta = max id + 1 − N = -3" in specs[0]["layout"]["title"]["text"]
    assert any("largest difference 0" in caption.value for caption in at.caption)


def test_url_restores_every_parameter():
    at = open_page(PAGE, FULL)
    assert_healthy(at)
    assert at.text_input(key="segments").value == FULL["segments"]
    assert at.slider(key="spatial_merge_size").value == 2
    assert at.text_input(key="mrope_section").value == "8,12,12"
    assert at.number_input(key="head_dim").value == 64
    assert at.number_input(key="base").value == 500000
    assert at.number_input(key="vision_index").value == 2
    assert at.selectbox(key="mrope_layout").value == "qwen2_vl"
    ids, channels, grid = chart_specs(at)
    assert "of 10 tokens" in ids["layout"]["title"]["text"]
    assert "mrope_section=8,12,12 (Qwen2-VL blocks), head_dim=64, base=500000" in channels["layout"]["title"]["text"]
    assert grid["layout"]["title"]["text"].startswith("video 2 of 2")


@pytest.mark.parametrize(
    ("widget", "key", "value", "figure", "changed"),
    [
        ("text_input", "segments", "text:4,image:1x2x2", 0, "of 5 tokens"),
        ("slider", "spatial_merge_size", 1, 0, "spatial_merge_size=1"),
        ("text_input", "mrope_section", "16,8,8", 1, "mrope_section=16,8,8"),
        ("number_input", "head_dim", 128, 1, None),
        ("number_input", "base", 10000.0, 1, "base=10000"),
        ("number_input", "vision_index", 1, 2, "image 1 of 2"),
        ("selectbox", "mrope_layout", "interleaved", 1, "Qwen3-VL interleaved"),
    ],
)
def test_each_control_changes_its_figure(widget, key, value, figure, changed):
    at = open_page(PAGE, FULL)
    before = chart_specs(at)[figure]
    if key == "head_dim":  # the sections must still add up to head_dim / 2
        at.text_input(key="mrope_section").set_value("16,24,24")
    if key == "mrope_layout":  # THWTHW… needs 3·count − 1 <= d/2 for H and W
        at.text_input(key="mrope_section").set_value("12,10,10")
    getattr(at, widget)(key=key).set_value(value).run()
    assert_healthy(at)
    after = chart_specs(at)[figure]
    assert after != before
    assert changed is None or changed in after["layout"]["title"]["text"]


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"segments": "text:3,image:1x4x5"}, "segments item 2 ('image:1x4x5'): w=5 must be divisible"),
        ({"segments": "text:3,sound:2"}, "the kind must be text, image or video"),
        ({"mrope_section": "16,24,20"}, "mrope_section must add up to head_dim/2 = 64"),
        ({"head_dim": "64"}, "mrope_section must add up to head_dim/2 = 32"),
        ({"mrope_layout": "interleaved"}, "mrope_section [16, 24, 24] cannot be interleaved"),
    ],
)
def test_bad_url_values_give_a_message_not_an_exception(query, words):
    at = open_page(PAGE, query)
    assert not at.exception
    assert any(words in error for error in error_texts(at)), error_texts(at)


def test_the_qwen2_vl_preset_sets_mrope_section_head_dim_and_base():
    at = open_page(PAGE, {"mrope_section": "8,12,12", "head_dim": "64"})
    at.selectbox(key="preset").set_value("qwen2-vl-7b").run()
    assert_healthy(at)
    assert at.text_input(key="mrope_section").value == "16,24,24"
    assert at.number_input(key="head_dim").value == 128 and at.number_input(key="base").value == 1_000_000
    assert (
        "mrope_section=16,24,24 (Qwen2-VL blocks), head_dim=128, base=1e+06"
        in chart_specs(at)[1]["layout"]["title"]["text"]
    )
    linked = open_page(PAGE, {"preset": "qwen2-vl-7b"})
    assert linked.text_input(key="mrope_section").value == "16,24,24"


def test_largest_parameters_stay_under_the_page_budget():
    at = open_page(
        PAGE,
        {
            "segments": "text:64,image:1x120x120,video:4x16x16,text:64",
            "mrope_section": "64,96,96",
            "head_dim": "512",
        },
    )
    assert_healthy(at)
    assert payload_bytes(at) < 3_000_000
    assert "of 3,984 tokens" in chart_specs(at)[0]["layout"]["title"]["text"]


PAIRS = "Which frequency pairs each axis turns"


def _notice(at) -> str:
    return "\n".join(block.value for block in at.markdown if "What to notice" in block.value)


def test_the_text_says_an_image_shares_one_t_id_only_because_t_is_1():
    at = open_page(PAGE, section=None)
    intro = at.markdown[0].value
    assert "an image (t = 1, a single temporal patch) has one T id for all its tokens" in intro
    assert "while a video's T steps once per temporal patch, every two frames" in intro and "per frame" not in intro
    assert "tokens that share one T id" not in intro
    notice = _notice(at)  # the first tab: the id rows, and the default image is 1×4×6
    assert "all its tokens share T id 3 (t = 1)" in notice and "the rope delta is -9" in notice
    assert "pairs" not in notice  # only the open tab's notes
    at = open_page(PAGE, {"segments": "text:2,image:2x4x4,text:1"}, section="Three rows of position ids")
    assert "T steps once per temporal patch, ids 2–3 for its 2 temporal patches" in _notice(at)


@pytest.mark.parametrize(
    ("layout", "section", "says", "not_says"),
    [
        ("qwen2_vl", "16,24,24", "Qwen2-VL's blocks: T pairs 0–15", "interleaved order"),
        ("interleaved", "24,20,20", "Qwen3-VL's interleaved order: pairs cycle T, H, W", "T takes the fastest"),
    ],
)
def test_the_pair_order_note_follows_the_chosen_layout(layout, section, says, not_says):
    at = open_page(PAGE, {"mrope_layout": layout, "mrope_section": section}, section=PAIRS)
    assert_healthy(at)
    assert says in _notice(at) and not_says not in _notice(at)
    assert any(r"i \bmod 3 = 1" in formula.value for formula in at.latex) == (layout == "interleaved")


def test_the_grid_notes_follow_the_item_drawn():
    at = open_page(PAGE, {"vision_index": "2"}, section="One image or video on its token grid")
    assert_healthy(at)
    assert "the T id steps once per temporal patch (8–9)" in _notice(at)
    at.number_input(key="vision_index").set_value(1).run()
    assert "every token has the same T id (3): one temporal patch" in _notice(at)
