"""ui.config_banner: a config.json in use is named at the top of every explorer page, with what was read from it and
why the figures' seq_len differs from s·L where the config's own lengths disagree."""

import json

from posenc.ui import config_link
from tests.pages.conftest import as_read, assert_healthy, open_page
from tests.ui.test_config_reader import CONFIGS


def _opened(page: str, text: str):
    at = open_page(page, {"preset": "config", "config": config_link.encode(text)}, section=None)
    assert_healthy(at)
    return at


def _banner(at) -> str:
    """The text of the banner (the container keyed config-banner), empty where the page has none."""
    for block in at.main.children.values():
        if str(getattr(block.proto, "id", "")).endswith("-config-banner"):
            return "\n".join(as_read(element.value) for element in block.children.values())
    return ""


def test_a_pasted_config_is_named_with_what_was_read_on_every_explorer_page():
    text = (CONFIGS / "llama-3.1-8b.json").read_text()
    for page in ("rope", "context_extension", "why_position"):
        banner = _banner(_opened(page, text))
        assert "Model in use: **LlamaForCausalLM**, read from a pasted config.json." in banner, page
        assert "those of the Llama-3.1-8B preset" in banner
        assert "rope_theta` 500,000" in banner and "rope_scaling` llama3, factor 8, original 8,192" in banner
        if page == "context_extension":  # where the figures draw s·L beside seq_len
            assert "s·L = 65,536" in banner and "max_position_embeddings says 131,072" in banner
            assert "seq_len = 131,072" in banner
        else:
            assert "s·L" not in banner


def test_the_lengths_note_appears_only_where_the_config_lengths_disagree():
    plain = _banner(_opened("context_extension", (CONFIGS / "llama-2-7b.json").read_text()))
    assert "Llama-2-7B preset" in plain and "s·L" not in plain
    yarn = _banner(_opened("context_extension", (CONFIGS / "qwen2.5-7b-instruct-yarn.json").read_text()))
    assert "s·L = 131,072" in yarn and "max_position_embeddings says 32,768" in yarn


def test_a_config_like_no_preset_is_named_alone_and_the_custom_preset_shows_no_banner():
    config = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    config["rope_theta"] = 123456.0
    banner = _banner(_opened("rope", json.dumps(config)))
    assert "LlamaForCausalLM" in banner and "preset." not in banner and "123,456" in banner
    custom = open_page("rope", section=None)
    assert "Model in use" not in _banner(custom)
    lessons = _opened("lessons", (CONFIGS / "llama-3.1-8b.json").read_text())
    assert "Model in use" not in _banner(lessons)
