"""The shared sidebar: presets set page parameters, a real config.json can be uploaded or pasted, device.

AppTest drops the sidebar's elements from its tree after the first run when st.navigation is used (a real
browser keeps them), so sidebar widgets are set on the first run and their effects read from the page.
"""

import base64
import json
from pathlib import Path

import numpy as np
import torch

from tests.pages.conftest import assert_healthy, chart_specs, open_page

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "configs"


def test_picking_a_preset_sets_the_page_parameters_and_the_url():
    at = open_page("sinusoidal")
    at.selectbox(key="preset").set_value("llama-3.1-8b").run()
    assert_healthy(at)
    assert at.number_input(key="d_model").value == 4096
    assert at.query_params["preset"] == "llama-3.1-8b" and at.query_params["d_model"] == "4096"
    t5 = open_page("sinusoidal", {"preset": "t5-base"})
    assert t5.number_input(key="d_model").value == 768
    assert any("Source:" in caption.value for caption in t5.sidebar.caption)


def test_a_url_value_wins_over_the_preset():
    at = open_page("sinusoidal", {"preset": "llama-3.1-8b", "d_model": "256"})
    assert_healthy(at)
    assert at.selectbox(key="preset").value == "llama-3.1-8b"
    assert at.number_input(key="d_model").value == 256


def test_an_unknown_preset_in_the_url_falls_back_to_custom_with_a_message():
    at = open_page("sinusoidal", {"preset": "gpt-17"})
    assert not at.exception
    assert at.selectbox(key="preset").value == "custom"
    assert any("gpt-17" in warning.value for warning in at.sidebar.warning)


def test_an_uploaded_real_config_sets_the_parameters_it_holds():
    at = open_page("sinusoidal", {"preset": "config"})
    assert any("Upload or paste" in info.value for info in at.sidebar.info)
    content = (CONFIGS / "gemma-2-9b-it.json").read_bytes()
    at.file_uploader(key="config_file").upload("config.json", content, "application/json").run()
    assert_healthy(at)
    assert at.number_input(key="d_model").value == 3584
    assert at.session_state["config_reading"].preset.head_dim == 256


def test_a_pasted_config_is_read_and_a_malformed_one_is_a_message():
    at = open_page("sinusoidal", {"preset": "config"})
    at.text_area(key="config_text").set_value((CONFIGS / "llama-3.1-8b.json").read_text()).run()
    assert_healthy(at)
    assert at.number_input(key="d_model").value == 4096
    bad = open_page("sinusoidal", {"preset": "config"})
    bad.text_area(key="config_text").set_value("{not json").run()
    assert not bad.exception
    assert "config_reading" not in bad.session_state
    assert chart_specs(bad), "the page keeps working"


def test_device_shows_what_is_in_use_and_an_unavailable_one_is_a_message():
    at = open_page("sinusoidal")
    assert any("In use: **cpu**" in c.value or "In use: **cuda**" in c.value for c in at.sidebar.caption)
    if not torch.cuda.is_available():
        cuda = open_page("sinusoidal", {"device": "cuda"})
        assert not cuda.exception
        assert any("not available" in error.value for error in cuda.sidebar.error)
        assert cuda.session_state["device_in_use"] == "cpu"
        assert chart_specs(cuda), "figures still draw on the available device"


def test_figure_style_is_applied_to_the_figures():
    at = open_page("sinusoidal", {"theme": "slides-dark"})
    assert_healthy(at)
    assert chart_specs(at)[0]["layout"]["paper_bgcolor"] == "#111418"


def test_a_pasted_config_travels_in_the_link_and_a_shared_link_reopens_it():
    text = (CONFIGS / "phi-3-mini-128k-instruct.json").read_text()
    at = open_page("context_extension", {"preset": "config"})
    at.text_area(key="config_text").set_value(text).run()
    assert_healthy(at)
    link = {name: at.query_params[name] for name in at.query_params}
    assert "config" in link
    reopened = open_page("context_extension", link)
    assert_healthy(reopened)
    assert reopened.session_state["config_reading"].preset == at.session_state["config_reading"].preset
    assert reopened.number_input(key="head_dim").value == 96


def test_the_sidebar_says_how_the_config_was_read():
    at = open_page("rope", {"preset": "config"})
    legacy = (CONFIGS / "phi-3-mini-128k-instruct.json").read_text().replace('"longrope"', '"su"')
    at.text_area(key="config_text").set_value(legacy).run()
    assert_healthy(at)
    assert any("'su' is read as 'longrope'" in caption.value for caption in at.sidebar.caption)


def test_a_pasted_configs_own_longrope_lists_are_what_is_drawn():
    config = json.loads((CONFIGS / "phi-3-mini-128k-instruct.json").read_text())
    config["rope_scaling"]["long_factor"] = [4.0] * len(config["rope_scaling"]["long_factor"])
    at = open_page("context_extension", {"preset": "config"}, section=None)
    at.text_area(key="config_text").set_value(json.dumps(config)).run()
    assert_healthy(at)
    ratio = next(t for t in chart_specs(at)[0]["data"] if "LongRoPE" in t["name"])["y"]  # seq_len 131072 > L: long
    values = np.frombuffer(base64.b64decode(ratio["bdata"]), dtype=ratio["dtype"])
    np.testing.assert_allclose(values, 0.25)  # every pair divided by its long factor 4, not Phi-3's own list
    assert any("model's own short/long factor lists" in caption.value for caption in at.caption)
