"""Models by Hugging Face id in the app (posenc/ui/model_id.py): the sidebar's box and ``?model=``, the Learned
page's table by id and ``?table_model=``, all against the loopback Hub stub (tests/hub_stub.py).

AppTest drops the sidebar's elements after the first run when st.navigation is used (see test_sidebar.py), so
sidebar messages are read on the first run and the model's effect from the page and the session.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from safetensors.torch import save

from posenc.ui import model_id
from tests.hub_fixture import serve_hub
from tests.pages.conftest import assert_healthy, caption_text, chart_specs, open_page, titles

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "configs"
LLAMA = "meta-llama/Llama-3.1-8B"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    yield from serve_hub(tmp_path, monkeypatch)


def sidebar_errors(at) -> str:
    """The sidebar's errors as a reader sees them (the id is echoed as plain text: markdown escapes taken out)."""
    shown = "\n".join(error.value for error in at.sidebar.error)
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", shown).replace("\u200b", "")


def test_a_link_with_a_model_id_restores_the_model_and_the_figures_follow_it(hub):
    hub.add(LLAMA, "config.json", (CONFIGS / "llama-3.1-8b.json").read_text())
    at = open_page("rope", {"model": LLAMA})
    assert_healthy(at)
    assert at.session_state["preset"] == "config"
    reading = at.session_state["config_reading"]
    assert reading.preset.name == LLAMA and reading.preset.source.startswith(f"{hub.url}/{LLAMA} config.json")
    assert at.number_input(key="base").value == 500000.0 and at.number_input(key="head_dim").value == 128
    assert at.query_params["model"] == LLAMA and "config" not in at.query_params
    assert any("500000" in title or "500,000" in title for title in titles(at))
    other = open_page("rope", {"model": f"{LLAMA}@v2"})  # a revision travels in the link too
    assert "v2" in sidebar_errors(other) and "config_reading" not in other.session_state


def test_typing_a_model_id_reads_it_and_the_second_time_comes_from_the_cache(hub):
    hub.add("Qwen/Qwen2.5-7B-Instruct", "config.json", (CONFIGS / "qwen2.5-7b-instruct.json").read_text())
    at = open_page("sinusoidal", {"preset": "config"})
    at.text_input(key="config_model").set_value(" Qwen/Qwen2.5-7B-Instruct ").run()
    assert_healthy(at)
    assert at.session_state["config_reading"].preset.name == "Qwen/Qwen2.5-7B-Instruct"
    assert at.number_input(key="d_model").value == 3584
    assert at.query_params["model"] == "Qwen/Qwen2.5-7B-Instruct"
    asked = len(hub.stub.requests)
    again = open_page("sinusoidal", {"model": "Qwen/Qwen2.5-7B-Instruct"})
    assert again.number_input(key="d_model").value == 3584
    assert hub.stub.gets("config.json") == 1 and len(hub.stub.requests) == asked  # st.cache_data: no request


@pytest.mark.parametrize(
    ("model", "words"),
    [
        ("not a model!", "'not a model!' is not a Hugging Face model id"),
        ("nobody/nothing", "model 'nobody/nothing' was not found on the Hub (check the spelling"),
    ],
)
def test_a_bad_model_id_is_a_message_in_place_and_the_page_keeps_working(hub, model, words):
    at = open_page("sinusoidal", {"model": model})
    assert not at.exception
    assert words in sidebar_errors(at)
    assert "config_reading" not in at.session_state
    assert chart_specs(at), "the figures still draw with the default parameters"


def test_a_gated_model_says_how_to_get_access(hub):
    hub.add("meta-llama/Gated", "config.json", (CONFIGS / "llama-3.1-8b.json").read_text())
    hub.gate("meta-llama/Gated", "hf_secret")
    at = open_page("sinusoidal", {"model": "meta-llama/Gated"})
    assert not at.exception and "is gated" in sidebar_errors(at) and "HF_TOKEN" in sidebar_errors(at)
    assert "accept its terms on the Hub's page meta-llama/Gated" in sidebar_errors(at)


@pytest.mark.parametrize("model", ["nobody/nothing", "meta-llama/Gated"])
def test_no_message_shows_a_reader_the_servers_hub_endpoint(hub, model):
    """HF_ENDPOINT may be a private mirror's address: the page says "the Hub" (the command line names it)."""
    hub.gate("meta-llama/Gated", "hf_secret")
    at = open_page("sinusoidal", {"model": model})
    endpoint = model_id.hub.endpoint()
    assert endpoint.startswith("http://127.0.0.1") and sidebar_errors(at)
    assert endpoint not in sidebar_errors(at) and "127.0.0.1" not in sidebar_errors(at)


def test_another_preset_takes_the_model_out_of_the_link(hub):
    hub.add(LLAMA, "config.json", (CONFIGS / "llama-3.1-8b.json").read_text())
    at = open_page("sinusoidal", {"preset": "t5-base", "model": LLAMA})
    assert_healthy(at)
    assert at.session_state["preset"] == "t5-base" and "model" not in at.query_params
    assert hub.stub.gets("config.json") == 0


def test_the_learned_page_loads_a_models_table_by_id(hub):
    table = torch.randn(48, 24, generator=torch.Generator().manual_seed(3))
    tensors = {"transformer.wte.weight": torch.randn(512, 256), "transformer.wpe.weight": table}
    hub.add("openai-community/gpt2-mini", "model.safetensors", save(tensors))
    at = open_page("learned", {"table_model": "openai-community/gpt2-mini"})  # the link opens on the upload source
    assert_healthy(at)
    assert at.query_params["table_source"] == "upload"
    assert all("48 x 24" in title for title in titles(at)[:4])
    assert "Read **openai-community/gpt2-mini:transformer.wpe.weight** from the Hugging Face Hub" in caption_text(at)
    assert hub.stub.sent_for("model.safetensors") < 48 * 24 * 4 + 1024  # the table and a header, not 512 KiB more
    at.text_input(key="table_tensor").set_value("transformer.wte.weight").run()
    assert all("512 x 256" in title for title in titles(at)[:4])
    assert at.query_params["table_tensor"] == "transformer.wte.weight"
    at.selectbox(key="table_source").set_value("random").run()
    assert "table_model" not in at.query_params and "table_tensor" not in at.query_params


def test_the_learned_page_says_why_a_table_cannot_be_read(hub):
    hub.add("org/rope-only", "model.safetensors", save({"q.weight": torch.randn(4, 4)}))
    at = open_page("learned", {"table_source": "upload", "table_model": "org/rope-only"})
    assert not at.exception
    assert any("no tensor named like a position table" in error.value for error in at.error)
    assert not chart_specs(at)
    assert any("Upload a table" in info.value for info in at.info)


def test_in_korean_a_missing_model_is_said_in_korean(hub):
    at = open_page("sinusoidal", {"model": "nobody/nothing", "lang": "ko"})
    assert not at.exception
    assert "Hub에 'nobody/nothing' 모델이 없다" in sidebar_errors(at)


def test_in_chinese_an_unreachable_hub_is_said_in_chinese(hub, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # the discard port: nothing answers there
    at = open_page("learned", {"table_model": "org/far-away", "lang": "zh-CN"})
    assert not at.exception
    errors = " ".join(error.value for error in at.error)
    assert "无法连接 Hugging Face Hub" in errors and "'org/far-away'" in errors


def test_a_model_id_from_a_link_is_cut_to_what_the_box_takes():
    at = open_page("rope", {"preset": "config", "model": "org/" + "x" * 100_000}, section=None)
    assert not at.exception
    box = next(box for box in at.sidebar.text_input if box.key == model_id.CONFIG_KEY)
    assert len(box.value) == model_id.MAX_ID_CHARS
    assert all(len(error.value) < 1000 for error in at.error)
