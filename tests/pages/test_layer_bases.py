"""The "Layer by layer" section of the RoPE and context-extension pages: Gemma 3's two bases and Llama 4's NoPE
layers, drawn without a warning, restored from a link, and switched by the model control."""

from __future__ import annotations

import pytest

from tests.pages.conftest import assert_healthy, open_page, titles, warning_text

SECTION = "Layer by layer"


def _notice(at) -> str:
    return "\n".join(block.value for block in at.markdown if "What to notice" in block.value)


@pytest.mark.parametrize("page", ["rope", "context_extension"])
def test_the_section_draws_gemma3_by_default_and_llama4_from_a_link(page):
    at = open_page(page, section=SECTION)
    assert_healthy(at)
    assert not at.warning, warning_text(at)
    assert titles(at) == ["Gemma-3-27B: RoPE per layer"]
    assert "10 full attention layers (5, 11, 17, 23, …) turn at base 1,000,000" in _notice(at)
    at = open_page(page, {"layered_model": "llama-4-scout"}, section=SECTION)
    assert_healthy(at)
    assert at.selectbox(key="layered_model").value == "llama-4-scout"
    assert titles(at) == ["Llama-4-Scout-17B-16E: RoPE per layer"]
    assert "12 layers (3, 7, 11, 15, …) have no RoPE at all" in _notice(at)


@pytest.mark.parametrize("page", ["rope", "context_extension"])
def test_a_link_with_the_sections_former_label_opens_it_and_is_rewritten(page):
    at = open_page(page, section="Layer by layer (Gemma 3, Llama 4)")  # the label before it was shortened
    assert_healthy(at)
    assert titles(at) == ["Gemma-3-27B: RoPE per layer"]
    assert at.query_params["section"] in (SECTION, [SECTION])


def test_a_hostile_model_name_gets_a_message_next_to_the_control():
    at = open_page("rope", {"layered_model": "gpt-9"}, section=SECTION)
    assert_healthy(at)
    assert "layered_model='gpt-9'" in warning_text(at)
    assert titles(at) == ["Gemma-3-27B: RoPE per layer"]


def test_the_sidebar_preset_chooses_the_model_drawn():
    at = open_page("rope", {"preset": "llama-4-scout"}, section=SECTION)
    assert_healthy(at)
    assert at.selectbox(key="layered_model").value == "llama-4-scout"
    assert titles(at) == ["Llama-4-Scout-17B-16E: RoPE per layer"]
    at.selectbox(key="preset").set_value("gemma-3-27b").run()
    assert_healthy(at)
    assert at.selectbox(key="layered_model").value == "gemma-3-27b"
