"""posenc_core.plan.checks: each trap is flagged where it is and not where it is not, with a reason and a fix."""

from __future__ import annotations

import string

import pytest

from posenc_core.plan import CHECKS, RUNTIMES, TEXTS
from posenc_core.plan.checks import SEVERITIES
from tests.core.plan.plan_helpers import plan_for


def codes(plan) -> dict[str, str]:
    found = {finding.code: finding.severity for finding in plan.findings}
    for finding in plan.findings:  # every finding writes both sentences from its own values
        assert finding.reason and finding.fix and "{" not in finding.reason + finding.fix
    return found


def test_a_factor_short_of_the_target_is_a_warning():
    plan = plan_for("llama-2-7b", 16384, "yarn", factor=2.0)
    assert codes(plan)["factor_too_small"] == "warning"
    finding = next(f for f in plan.findings if f.code == "factor_too_small")
    assert "8,192" in finding.reason and "16,384" in finding.reason and "4" in finding.fix
    assert "factor_too_small" not in codes(plan_for("llama-2-7b", 16384, "yarn"))


def test_a_factor_below_one_is_a_warning():
    assert codes(plan_for("llama-2-7b", 16384, "linear", factor=0.5))["factor_below_one"] == "warning"


def test_a_yarn_config_whose_max_positions_disagree_is_flagged():
    """Qwen2.5's YaRN config keeps max_position_embeddings 32768 with factor 4 × 32768: transformers before 4.56
    took their ratio, 1, as the factor."""
    plan = plan_for("qwen2.5-7b-128k-yarn", 65536)
    assert codes(plan)["original_contradicts"] == "warning"
    finding = next(f for f in plan.findings if f.code == "original_contradicts")
    assert "32,768" in finding.reason and "131,072" in finding.reason
    assert "original_contradicts" not in codes(plan_for("deepseek-v3", 180000))  # 163840 = 40 × 4096


def test_a_runtime_without_the_method_is_a_warning_when_chosen_and_a_note_otherwise():
    chosen = plan_for("llama-2-7b", 16384, "dynamic", runtime="llama.cpp")
    assert codes(chosen)["runtime_missing"] == "warning"
    finding = next(f for f in chosen.findings if f.code == "runtime_missing")
    assert "llama.cpp" in finding.reason and "yarn" in finding.fix and "dynamic" not in finding.fix
    assert codes(plan_for("llama-2-7b", 16384, "dynamic"))["runtime_missing"] == "note"
    assert "runtime_missing" not in codes(plan_for("llama-2-7b", 16384, "dynamic", runtime="vllm"))


def test_dynamic_on_sglang_is_computed_once_and_said_and_vllm_has_none():
    assert codes(plan_for("llama-2-7b", 16384, "dynamic", runtime="sglang"))["dynamic_fixed"] == "note"
    assert codes(plan_for("llama-2-7b", 16384, "dynamic", runtime="vllm"))["vllm_dynamic"] == "warning"
    assert "dynamic_fixed" not in codes(plan_for("llama-2-7b", 16384, "dynamic", runtime="transformers"))


def test_llama3_on_llama_cpp_needs_a_conversion():
    assert codes(plan_for("llama-2-7b", 16384, "llama3", runtime="llama.cpp"))["runtime_conversion"] == "note"
    assert "llama.cpp" in plan_for("llama-2-7b", 16384, "llama3").paste
    assert "convert_hf_to_gguf" in plan_for("llama-2-7b", 16384, "llama3").paste["llama.cpp"]


def test_a_target_the_model_already_reaches_is_said():
    assert codes(plan_for("llama-3.1-8b", 100000, "llama3"))["already_reaches"] == "note"


def test_the_bound_is_a_warning_only_where_the_models_own_settings_kept_it():
    """Llama-3-8B keeps B >= 0 over its 8k; YaRN to 64k does not: a warning. Llama 2 is already below within 4k."""
    new = plan_for("llama-3-8b", 262144, "yarn")
    assert new.own_lowest_bound[1] >= 0 > new.chosen.lowest_bound[1]
    assert codes(new)["base_below_bound"] == "warning"
    old = plan_for("llama-2-7b", 16384, "yarn")
    assert old.own_lowest_bound[1] < 0 and codes(old)["bound_already_below"] == "note"
    assert not {"base_below_bound", "bound_already_below"} & set(codes(plan_for("llama-3-8b", 16384, "yarn")))


def test_the_layout_partial_rotary_and_mrope_checks():
    assert codes(plan_for("gpt-j-6b", 8192, "yarn"))["pairing_layout"] == "note"
    assert codes(plan_for("gpt-neox-20b", 8192, "linear"))["partial_rotary"] == "note"
    assert codes(plan_for("qwen2-vl-7b", 65536))["mrope_yarn"] == "warning"
    assert not {"pairing_layout", "partial_rotary", "mrope_yarn"} & set(codes(plan_for("llama-3-8b", 16384)))


def test_replacing_the_models_own_scaling_is_a_warning():
    assert codes(plan_for("llama-3.1-8b", 65536, "yarn"))["replaces_scaling"] == "warning"
    assert "replaces_scaling" not in codes(plan_for("llama-3.1-8b", 65536, "llama3"))


def test_warnings_come_first():
    plan = plan_for("llama-2-7b", 16384, "dynamic", runtime="llama.cpp", factor=2.0)
    severities = [finding.severity for finding in plan.findings]
    assert severities == sorted(severities, key=SEVERITIES.index) and severities[0] == "warning"


SCENARIOS = {
    "factor_too_small": ("llama-2-7b", 16384, {"factor": 2.0}),
    "factor_below_one": ("llama-2-7b", 16384, {"method": "linear", "factor": 0.5}),
    "original_missing": ("gemma-3-27b", 65536, {"method": "linear"}),
    "original_contradicts": ("qwen2.5-7b-128k-yarn", 65536, {}),
    "base_below_bound": ("llama-3-8b", 262144, {}),
    "bound_already_below": ("llama-2-7b", 16384, {}),
    "partial_rotary": ("gpt-neox-20b", 8192, {"method": "linear"}),
    "pairing_layout": ("gpt-j-6b", 8192, {}),
    "mrope_yarn": ("qwen2-vl-7b", 65536, {}),
    "runtime_missing": ("llama-2-7b", 16384, {"method": "dynamic"}),
    "runtime_conversion": ("llama-2-7b", 16384, {"method": "llama3"}),
    "dynamic_fixed": ("llama-2-7b", 16384, {"method": "dynamic"}),
    "replaces_scaling": ("llama-3.1-8b", 65536, {}),
    "already_reaches": ("llama-3.1-8b", 100000, {"method": "llama3"}),
    "longrope_reused": ("phi-3-mini-128k", 8192, {"method": "longrope"}),
    "slow_pairs_beyond": ("llama-3-8b", 16384, {"method": "dynamic"}),
    "transformers_fixed_base": ("gpt-j-6b", 8192, {}),
    "transformers_phi3": ("phi-3-mini-128k", 8192, {}),
    "vllm_dynamic": ("llama-2-7b", 16384, {"method": "dynamic"}),
    "vllm_deepseek": ("deepseek-v3", 16384, {"method": "linear"}),
    "sglang_nested": ("qwen2-vl-7b", 65536, {}),
    "sglang_gptj": ("gpt-j-6b", 8192, {}),
    "sglang_leftover": ("llama-3.1-8b", 16384, {"method": "linear"}),
    "llama_cpp_gptj": ("gpt-j-6b", 8192, {}),
    "llama_cpp_phi3": ("phi-3-mini-128k", 8192, {}),
}
"""A plan that shows each check's finding: one per template, so no template is dead."""


def test_every_template_has_a_scenario():
    assert set(SCENARIOS) == set(TEXTS)


@pytest.mark.parametrize("code", sorted(SCENARIOS))
def test_each_finding_is_written_from_its_own_values(code):
    preset, target, options = SCENARIOS[code]
    options = dict(options)
    plan = plan_for(preset, target, options.pop("method", "yarn"), **options)
    finding = next(f for f in plan.findings if f.code == code)
    reason, fix = TEXTS[code]
    names = {name for _, name, _, _ in string.Formatter().parse(reason + fix) if name}
    assert names <= set(finding.values)
    assert finding.reason == reason.format(**finding.values) and finding.fix == fix.format(**finding.values)
    assert finding.severity in SEVERITIES


def test_the_registries():
    assert all(callable(check) for check in CHECKS.values()) and len(CHECKS) >= 9
    assert set(RUNTIMES) == {"transformers", "vllm", "sglang", "llama.cpp"}


def test_longrope_at_its_own_factor_is_not_flagged():
    assert "longrope_reused" not in codes(plan_for("phi-3-mini-128k", 131072, "longrope"))
