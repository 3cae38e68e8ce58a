"""ui.config_reader with hostile config.json: pasted, uploaded or in a ``?config=`` link, each is a message in place
(no exception), the page's figures are still drawn, a config is read once per content, large lists are summarised,
and a link that chose a config but holds none says so."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from posenc.ui import config_link, config_reader
from posenc_core.models.hf_config import MAX_CONFIG_BYTES
from tests.pages.conftest import chart_specs, open_page

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "configs"
LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 5e5}
YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}


def _text(config: dict, **raw: str) -> str:
    """``config`` as JSON text, with ``raw`` keys written as raw JSON (numbers Python's json would not write)."""
    text = json.dumps(config)[:-1]
    return text + "".join(f', "{key}": {value}' for key, value in raw.items()) + "}"


HOSTILE = {
    "deep": ("[" * 5000 + "]" * 5000, "nested too deeply"),
    "giant": (_text(LLAMA, max_position_embeddings="9" * 400), "max_position_embeddings must be an integer"),
    "yarn": (json.dumps({**LLAMA, "rope_scaling": {**YARN, "factor": 1e308}}), "rope_scaling.factor must be"),
    "original": (
        json.dumps({**LLAMA, "rope_scaling": {**YARN, "original_max_position_embeddings": "4096"}}),
        "original_max_position_embeddings must be an integer",
    ),
    "not json": ("{not json", "not valid JSON"),
    "surrogate": (_text(LLAMA, _name_or_path='"\\ud800"'), "holds text that is not Unicode"),
    "byte-order mark": ("\ufeff" + json.dumps(LLAMA), None),
}


def _errors(at) -> str:
    return "\n".join(error.value for error in at.sidebar.error)


@pytest.mark.parametrize("kind", ["deep", "giant", "yarn", "surrogate"])
def test_a_hostile_pasted_config_is_a_message_and_the_page_still_draws(kind):
    text, words = HOSTILE[kind]
    at = open_page("sinusoidal", {"preset": "config"})
    at.text_area(key="config_text").set_value(text).run()
    assert not at.exception, [e.message for e in at.exception]
    assert words in _errors(at) and len(_errors(at)) < 400
    assert "config_reading" not in at.session_state
    assert chart_specs(at), "the page keeps drawing its figures"


@pytest.mark.parametrize("kind", ["original", "not json", "surrogate"])
def test_a_hostile_config_in_a_link_is_a_message_and_the_page_still_draws(kind):
    text, words = HOSTILE[kind]
    at = open_page("sinusoidal", {"preset": "config", "config": config_link.encode(text)})
    assert not at.exception, [e.message for e in at.exception]
    assert words in _errors(at)
    assert chart_specs(at)


def test_a_refused_config_takes_the_previous_one_away_and_every_page_keeps_working():
    """The 10**400 defect: a config read once kept feeding its values to every page; a refused config now leaves
    nothing behind, and the next page with a seq_len draws."""
    at = open_page("sinusoidal", {"preset": "config"})
    at.text_area(key="config_text").set_value((CONFIGS / "llama-3.1-8b.json").read_text()).run()
    assert at.number_input(key="d_model").value == 4096
    at.text_area(key="config_text").set_value(HOSTILE["giant"][0]).run()
    assert not at.exception and "config_reading" not in at.session_state
    assert at.number_input(key="d_model").value == 128, "back to the defaults the page says it uses"
    at.switch_page("pages/rope.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert chart_specs(at)


def test_an_upload_over_the_size_limit_is_refused_unread_and_the_limit_is_said(monkeypatch):
    read = []
    monkeypatch.setattr(config_reader, "_read", lambda *args: read.append(args))
    at = open_page("sinusoidal", {"preset": "config"})
    assert f"{MAX_CONFIG_BYTES / 1e6:g} MB" in at.file_uploader(key="config_file").help
    big = json.dumps({**LLAMA, "padding": "x" * (20 * 1024 * 1024)}).encode()  # 20 MB, valid JSON
    at.file_uploader(key="config_file").upload("config.json", big, "application/json").run()
    assert not at.exception
    assert "config.json is 21.0 MB; a config.json is at most 1 MB and is not read" in _errors(at)
    assert read == [] and chart_specs(at)  # refused by its size: never hashed nor parsed


def test_a_config_is_read_once_per_content(monkeypatch):
    calls = []
    real = config_reader.from_hf_config
    monkeypatch.setattr(config_reader, "from_hf_config", lambda text: calls.append(1) or real(text))
    text = json.dumps({**LLAMA, "_name_or_path": f"once-{uuid.uuid4()}"})  # new content: not cached by another test
    at = open_page("sinusoidal", {"preset": "config"})
    at.text_area(key="config_text").set_value(text).run()
    at.number_input(key="d_model").set_value(256).run()
    at.run()
    assert not at.exception and at.session_state["config_reading"].preset.name.startswith("once-")
    assert len(calls) == 1, "reruns of the same content do not parse it again"


def test_what_was_read_summarises_long_lists():
    summary = config_reader.summarised({"long_factor": list(range(2_000_000)), "name": "x" * 5000, "n": 3})
    assert summary["long_factor"][:3] == [0, 1, 2] and summary["long_factor"][-1] == "… 1,999,995 more"
    assert len(summary["name"]) < 300 and summary["n"] == 3
    config = json.loads((CONFIGS / "phi-3-mini-128k-instruct.json").read_text())
    at = open_page("sinusoidal", {"preset": "config", "config": config_link.encode(json.dumps(config))})
    shown = json.loads(at.sidebar.json[0].value)
    assert shown["rope_scaling"]["long_factor"][-1] == "… 43 more"


def test_a_link_that_chose_a_config_but_holds_none_says_so():
    """An uploaded config does not travel in a link, and a restarted server forgets it: whoever opens such a link
    is told, rather than silently shown the custom defaults."""
    at = open_page("sinusoidal", {"preset": "config"})
    warnings = "\n".join(warning.value for warning in at.sidebar.warning)
    assert "does not hold the config" in warnings
    assert chart_specs(at)
    chosen = open_page("sinusoidal")
    chosen.selectbox(key="preset").set_value("config").run()
    assert not any("does not hold the config" in warning.value for warning in chosen.sidebar.warning)
    assert any("Upload or paste" in info.value for info in chosen.sidebar.info)


def test_values_from_a_config_show_as_plain_text_not_markdown():
    """A config's name and values reach the sidebar's messages: markdown in them (a remote image, a link) is shown
    as written, never rendered."""
    named = {**LLAMA, "_name_or_path": "![x](http://127.0.0.1:9/i.png) [log in](http://127.0.0.1:9/)"}
    at = open_page("sinusoidal", {"preset": "config", "config": config_link.encode(json.dumps(named))})
    said = "\n".join(s.value for s in at.sidebar.success)
    assert "log in" in said and "![x](" not in said and "[log in](" not in said
    typed = {**LLAMA, "model_type": ["[log in](http://127.0.0.1:9/)"]}
    at = open_page("sinusoidal", {"preset": "config", "config": config_link.encode(json.dumps(typed))})
    assert "model_type must be a name" in _errors(at) and "[log in](" not in _errors(at)


def test_a_pasted_config_with_a_byte_order_mark_is_read_as_an_uploaded_one_is():
    text, _ = HOSTILE["byte-order mark"]
    at = open_page("rope", {"preset": "config"})
    at.text_area(key="config_text").set_value(text).run()
    assert not at.exception and not _errors(at)
    assert at.session_state["config_reading"].preset.rope_theta == 5e5
