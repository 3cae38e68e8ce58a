"""The Plan page: it opens on a plan at its defaults, a link opens the plan it names, a target no longer than the
original says why in place of the plan, a model without RoPE says so, and it reads in every language."""

from __future__ import annotations

import json

import pytest

from posenc.ui import config_link
from posenc_core.models.presets import PRESETS
from posenc_core.plan import plan_extension
from tests.pages.conftest import as_read, assert_healthy, error_texts, open_page, titles
from tests.ui.test_config_reader import CONFIGS

LINK = {"preset": "llama-3.1-8b", "target": "262144", "method": "yarn"}


def _codes(at) -> list[str]:
    return [block.value for block in at.code]


def _boxes(at) -> str:
    return "\n".join(as_read(box.value) for kind in (at.warning, at.info, at.success) for box in kind)


def test_the_page_opens_on_a_plan_at_its_defaults():
    at = open_page("plan")
    assert_healthy(at)
    assert titles(at) == ["YaRN: wavelength per pair, L = 4,096 → T = 131,072 (s = 32)"]
    assert any('"rope_type": "yarn"' in code for code in _codes(at))
    assert len(at.table) == 2 and len(at.dataframe) == 1  # the rules, the methods; the pairs


def test_the_link_opens_the_plan_it_names_with_its_blocks_and_checks():
    at = open_page("plan", LINK)
    assert_healthy(at)
    plan = plan_extension(PRESETS["llama-3.1-8b"], 262144, "yarn", model_id="meta-llama/Llama-3.1-8B")
    assert titles(at) == ["YaRN: wavelength per pair, L = 8,192 → T = 262,144 (s = 32)"]
    config = json.loads(_codes(at)[0])
    assert config["rope_scaling"] == {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 8192}
    assert _codes(at) == list(plan.paste.values())
    shown = _boxes(at)
    assert "its own llama3 scaling" in shown and "Fix: prefer llama3 with the factor 32" in shown
    assert {key: at.query_params[key] for key in LINK} == LINK


def test_one_runtime_shows_its_block_only_and_a_clean_plan_says_so():
    at = open_page("plan", {**LINK, "method": "llama3", "runtime": "vllm", "target": "131072"})
    assert_healthy(at)
    assert [code.split(" ")[0] for code in _codes(at)[2:]] == ["vllm"]
    assert "No problems found" in "\n".join(box.value for box in at.success)


def test_a_target_no_longer_than_the_original_says_why_and_draws_nothing():
    at = open_page("plan", {**LINK, "target": "4096"})
    assert not at.exception, [e.message for e in at.exception]
    (error,) = error_texts(at)
    assert "target must be longer than the original context L = 8,192 (got 4,096)" in error
    assert titles(at) == [] and _codes(at) == []


@pytest.mark.parametrize("preset", ["bloom-176b", "t5-base"])
def test_a_model_without_rope_says_so(preset):
    at = open_page("plan", {"preset": preset})
    assert_healthy(at)
    assert f"{PRESETS[preset].name} uses {PRESETS[preset].scheme}, not RoPE" in _boxes(at)
    assert titles(at) == []


def test_longrope_is_offered_only_to_a_model_with_its_lists():
    assert "longrope" not in open_page("plan", LINK).selectbox(key="method").options
    at = open_page("plan", {"preset": "phi-3-mini-128k", "method": "longrope", "target": "262144"})
    assert_healthy(at)
    assert "LongRoPE" in at.selectbox(key="method").options and titles(at)[0].startswith("LongRoPE:")


@pytest.mark.parametrize("code", ["ko", "zh-CN"])
def test_the_plan_reads_in_each_language(code):
    at = open_page("plan", {**LINK, "lang": code})
    assert_healthy(at)
    assert "wavelength" not in titles(at)[0] and "YaRN" in titles(at)[0]
    assert "Fix:" not in _boxes(at)


def test_a_plan_whose_slow_pairs_leave_the_trained_range_never_says_they_stay_within_it():
    """Llama-3-8B 8k -> 16k with dynamic NTK: pair 35 reaches 6.80 rad against 6.26; vLLM cannot serve it."""
    at = open_page("plan", {"preset": "llama-3-8b", "target": "16384", "method": "dynamic"})
    assert_healthy(at)
    text = "\n".join(block.value for block in at.markdown)
    assert "stay within what the model saw" not in text and "see the warnings above" in text
    assert not at.success and "pair 35 reaches 6.80 rad against the 6.26 rad it saw" in _boxes(at)
    assert not any(code.startswith("vllm ") for code in _codes(at)) and "vLLM applies no dynamic NTK" in _boxes(at)


def test_each_block_names_the_version_its_form_was_checked_on():
    at = open_page("plan", LINK)
    captions = [caption.value for caption in at.caption]
    plan = plan_extension(PRESETS["llama-3.1-8b"], 262144, "yarn", model_id="meta-llama/Llama-3.1-8B")
    for version in plan.paste_versions.values():
        assert f"Form checked against {version}." in captions


def test_a_pasted_config_json_gets_blocks_for_its_own_shape():
    """A Gemma 3 config.json keeps its language model under text_config: its blocks go there, per layer type."""
    text = (CONFIGS / "gemma-3-27b-it.json").read_text()
    at = open_page(
        "plan", {"preset": "config", "config": config_link.encode(text), "target": "65536", "method": "linear"}
    )
    assert_healthy(at)
    v5 = json.loads(_codes(at)[1])
    assert set(v5) == {"text_config"}
    assert set(v5["text_config"]["rope_parameters"]) == {"full_attention", "sliding_attention"}


def test_a_config_past_the_plan_s_bounds_is_a_message_in_place_at_once():
    """Issue 35 defect 5: a head_dim of 65,536 cost 2.5 minutes of server CPU per link; now one message, at once."""
    config = json.loads((CONFIGS / "llama-2-7b.json").read_text()) | {"head_dim": 65536}
    at = open_page("plan", {"preset": "config", "config": config_link.encode(json.dumps(config)), "target": "8192"})
    assert not at.exception, [e.message for e in at.exception]
    (error,) = error_texts(at)
    assert "at most 1,024" in error and titles(at) == [] and _codes(at) == []
