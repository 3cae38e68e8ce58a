from tests.pages.conftest import (
    assert_healthy,
    caption_text,
    chart_specs,
    control,
    open_page,
    payload_bytes,
    titles,
    warning_text,
)

FIGURES = 7


def test_page_runs_and_shows_every_figure_with_its_notes():
    at = open_page("sinusoidal")
    assert_healthy(at)
    shown = titles(at)
    assert len(shown) == FIGURES
    assert all("d_model=128" in title and "base=10000" in title for title in shown)
    assert "sampled: 342 of 1,024 positions, one every 3" in caption_text(at)
    assert any("What to notice" in block.value for block in at.markdown)
    assert at.latex and "base" in at.latex[0].value


def test_the_shared_controls_change_every_figure():
    at = open_page("sinusoidal")
    at.number_input(key="base").set_value(500000.0).run()
    assert all("base=500000" in title for title in titles(at))
    at.number_input(key="d_model").set_value(64).run()
    assert all("d_model=64" in title for title in titles(at))
    at.number_input(key="seq_len").set_value(4096).run()
    assert sum("L=4,096" in title for title in titles(at)) == FIGURES
    at.selectbox(key="layout").set_value("half").run()
    assert all("layout=half" in title for title in titles(at))
    at.selectbox(key="view").set_value("window").run()
    control(at, "start").set_value(1000).run()
    assert_healthy(at)
    assert "window: every position from 1,000 to 1,383" in caption_text(at)
    assert at.query_params["layout"] == "half" and at.query_params["start"] == "1000"


def test_the_figure_controls_change_their_figure():
    at = open_page("sinusoidal")
    at.text_input(key="dims").set_value("2, 3").run()
    assert any("channels j = 2, 3;" in title for title in titles(at))
    at.number_input(key="offset").set_value(20).run()
    assert any("M_k PE(p), k=20," in title for title in titles(at))
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
        "dims": "0,3",
        "offset": "12",
        "token_scale": "0.5",
    }
    at = open_page("sinusoidal", query)
    assert_healthy(at)
    assert at.number_input(key="seq_len").value == 4096
    assert at.number_input(key="d_model").value == 256
    assert at.number_input(key="base").value == 500000
    assert at.selectbox(key="layout").value == "t2t" and at.selectbox(key="view").value == "window"
    assert control(at, "start").value == 100 and at.text_input(key="dims").value == "0,3"
    assert at.number_input(key="offset").value == 12 and at.number_input(key="token_scale").value == 0.5
    assert all("layout=t2t, d_model=256, base=500000" in title for title in titles(at))
    assert "window: every position from 100" in caption_text(at)


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
