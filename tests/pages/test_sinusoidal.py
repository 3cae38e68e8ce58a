import pytest

from posenc import i18n
from posenc.i18n import _
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

FIGURES = 9
SECTIONS = ("The table", "A binary counter", "One wave per channel", "A relative code", "Add or concatenate")


def test_page_runs_and_shows_every_figure_with_its_notes():
    at = open_page("sinusoidal")
    assert_healthy(at)
    shown = titles(at)
    assert len(shown) == FIGURES
    assert all("d_model=128" in title and "base=10000" in title for title in shown)
    assert "overview, all 100 positions" in caption_text(at)
    assert sum("What to notice" in block.value for block in at.markdown) == len(SECTIONS)
    assert any("base" in formula.value for formula in at.latex)


def test_the_shared_controls_change_every_figure():
    at = open_page("sinusoidal")
    at.number_input(key="base").set_value(500000.0).run()
    assert all("base=500000" in title for title in titles(at))
    at.number_input(key="d_model").set_value(64).run()
    assert all("d_model=64" in title for title in titles(at))
    at.number_input(key="seq_len").set_value(4096).run()
    assert sum("L=4,096" in title for title in titles(at)) == FIGURES - 2  # M_k and the counter do not depend on L
    at.selectbox(key="layout").set_value("half").run()
    assert all("layout=half" in title for title in titles(at))
    at.selectbox(key="view").set_value("window").run()
    control(at, "start").set_value(1000).run()
    assert_healthy(at)
    assert "window: every position from 1,000 to 1,099" in caption_text(at)
    control(at, "window").set_value(384).run()
    assert "window: every position from 1,000 to 1,383" in caption_text(at)
    assert at.query_params["layout"] == "half" and at.query_params["start"] == "1000"
    assert at.query_params["window"] == "384"


def test_the_figure_controls_change_their_figure():
    at = open_page("sinusoidal")
    at.text_input(key="dims").set_value("2, 3").run()
    assert any("channels j = 2, 3;" in title for title in titles(at))
    at.number_input(key="offset").set_value(20).run()
    assert sum("k=20" in title for title in titles(at)) == 2  # M_k and its check
    at.number_input(key="token_scale").set_value(2.0).run()
    assert any("‖e‖ = 2·‖PE‖" in title for title in titles(at))
    assert_healthy(at)
    assert at.query_params["dims"] == "2,3" and at.query_params["offset"] == "20"


def test_a_window_past_the_end_moves_to_the_last_position_and_says_why():
    at = open_page("sinusoidal", {"seq_len": "100", "view": "window", "start": "500"})
    assert_healthy(at)
    assert control(at, "start").value == 99
    assert "the sequence has 100 positions" in warning_text(at)
    assert "window: every position from 99 to 99" in caption_text(at)


def test_url_restores_every_parameter():
    query = {
        "seq_len": "4096",
        "d_model": "256",
        "base": "500000",
        "layout": "t2t",
        "view": "window",
        "start": "100",
        "window": "50",
        "dims": "0,3",
        "offset": "12",
        "token_scale": "0.5",
        "binary_positions": "100",
    }
    at = open_page("sinusoidal", query)
    assert_healthy(at)
    assert at.number_input(key="seq_len").value == 4096
    assert at.number_input(key="d_model").value == 256
    assert at.number_input(key="base").value == 500000
    assert at.selectbox(key="layout").value == "t2t" and at.selectbox(key="view").value == "window"
    assert control(at, "start").value == 100 and at.text_input(key="dims").value == "0,3"
    assert control(at, "window").value == 50
    assert at.number_input(key="offset").value == 12 and at.number_input(key="token_scale").value == 0.5
    assert at.number_input(key="binary_positions").value == 100
    assert all("layout=t2t, d_model=256, base=500000" in title for title in titles(at))
    assert "window: every position from 100 to 149" in caption_text(at)


def test_a_model_preset_sets_d_model_seq_len_and_base():
    at = open_page("sinusoidal")  # the preset is chosen here: a link would first run the Why page at d_model=4096
    at.selectbox(key="preset").set_value("llama-3.1-8b").run()
    assert_healthy(at)
    assert at.number_input(key="d_model").value == 4096 and at.number_input(key="seq_len").value == 131072
    assert all("4096" in title and "base=500000" in title for title in titles(at))
    assert at.query_params["preset"] == "llama-3.1-8b"


def test_the_largest_parameters_stay_within_the_payload_budget():
    at = open_page("sinusoidal")
    at.number_input(key="seq_len").set_value(1_048_576)
    at.number_input(key="d_model").set_value(8192)
    at.text_input(key="dims").set_value("0,1,2,3,4,5")
    at.run()
    assert_healthy(at)
    assert len(chart_specs(at)) == FIGURES
    assert payload_bytes(at) < 3_000_000
    assert "sampled" in caption_text(at) and "channels: 512 of 8,192" in caption_text(at)
    at.selectbox(key="view").set_value("window").run()
    control(at, "window").set_value(512).run()  # the longest window: 512 rows of the table
    assert_healthy(at)
    assert payload_bytes(at) < 3_000_000


def test_the_page_opens_on_the_textbook_table_and_other_pages_keep_their_length():
    at = open_page("sinusoidal", section=None)
    assert_healthy(at)
    assert at.number_input(key="seq_len").value == 100 and at.number_input(key="d_model").value == 128
    (heatmap,) = chart_specs(at)
    assert chart_array(heatmap["data"][0]["z"]).shape == (100, 128)  # 100 positions x 128 channels, all of them
    assert open_page("rope", section=None).number_input(key="seq_len").value == 1024
    assert open_page("sinusoidal", {"seq_len": "2048"}).number_input(key="seq_len").value == 2048  # a link wins


def test_the_window_length_follows_the_sequence():
    at = open_page("sinusoidal", {"view": "window", "start": "10", "window": "64", "seq_len": "4096"})
    assert_healthy(at)
    assert control(at, "window").value == 64 and "window: every position from 10 to 73" in caption_text(at)
    short = open_page("sinusoidal", {"view": "window", "window": "500"})  # seq_len 100
    assert control(short, "window").value == 100
    assert "the sequence has 100 positions" in warning_text(short)


def test_the_base_is_this_pages_and_a_rope_preset_is_said_not_to_be_its_models_spectrum():
    at = open_page("sinusoidal", section=None)
    label = at.number_input(key="base").label
    assert "rope_theta" not in label and "Base" in label
    assert not at.info
    at.selectbox(key="preset").set_value("llama-3.1-8b").run()
    assert_healthy(at)
    (info,) = [box.value for box in at.info]
    assert "RoPE" in info and "128 rotary channels of each head" in info and "not over d_model = 4,096" in info
    assert not open_page("sinusoidal", {"preset": "t5-base"}, section=None).info


def _notice(at) -> str:
    (notice,) = [block.value for block in at.markdown if "What to notice" in block.value]
    return notice


def test_each_section_has_its_own_notes_that_follow_the_controls():
    notes = {label: _notice(open_page("sinusoidal", section=label)) for label in SECTIONS}
    assert "layout=interleaved" in notes["The table"] and "M_k" not in notes["The table"]
    assert "2π·base^(126/128) = 54,410 tokens" in notes["One wave per channel"]
    assert "PE(p+8)" in notes["A relative code"] and "token" not in notes["A relative code"].split("PE(p+8)")[0]
    assert "now 1·‖PE‖" in notes["Add or concatenate"]
    assert "bit 5 every 32" in notes["A binary counter"] and "6.28 to 199 tokens" in notes["A binary counter"]
    assert len(set(notes.values())) == len(SECTIONS)
    changed = {
        "The table": ({"layout": "half"}, "left columns of each half"),
        "One wave per channel": ({"layout": "t2t"}, "2π·base = 62,832 tokens"),
        "A relative code": ({"offset": "20"}, "PE(p+20)"),
        "Add or concatenate": ({"token_scale": "0.5"}, "now 0.5·‖PE‖"),
        "A binary counter": ({"binary_positions": "256"}, "bit 7 every 128"),
    }
    for label, (query, expected) in changed.items():
        assert expected in _notice(open_page("sinusoidal", query, section=label)), label


@pytest.mark.parametrize("code", ["en", "ko", "zh-CN"])
def test_a_note_that_sends_the_reader_to_another_tab_names_it(code):
    """The table's and the binary counter's notes name the tab they mean, in the reader's language: a "(next tab)"
    pointed at the wrong one once the counter sat between the table and the waves."""
    with i18n.language(code):
        named = {"The table": _("One wave per channel"), "A binary counter": _("A relative code")}
    for section, tab in named.items():
        text = "\n".join(block.value for block in open_page("sinusoidal", {"lang": code}, section=section).markdown)
        assert f"*{tab}*" in text and "next tab" not in text, (code, section)


def test_the_binary_counter_says_when_the_tables_pairs_do_not_double():
    at = open_page("sinusoidal", {"d_model": "8", "layout": "t2t"}, section="A binary counter")
    assert_healthy(at)
    assert "not a doubling" in _notice(at)
    (figure,) = chart_specs(at)
    assert chart_array(figure["data"][0]["z"]).shape == (64, 6)
