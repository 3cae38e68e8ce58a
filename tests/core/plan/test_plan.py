"""posenc_core.plan.plan_extension: what each method sets, per-pair regimes, attention factors and bad input."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

from posenc_core.models.presets import get_preset
from posenc_core.plan import MAX_TARGET, PLAN_METHODS, REGIMES, plan_extension
from posenc_core.rope.scaling import default_inv_freq, inv_freq
from posenc_core.rope.yarn import yarn_attention_factor
from tests.core.plan.plan_helpers import plan_for


def test_the_issue_plan_llama_31_to_262144_with_yarn():
    plan = plan_for("llama-3.1-8b", 262144)
    assert (plan.original, plan.factor, plan.method) == (8192, 262144 / 8192, "yarn")
    settings = plan.chosen.settings
    assert settings.scaling == {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 8192}
    assert settings.max_position_embeddings == 262144 and settings.rope_theta == 500000.0
    assert plan.chosen.attention_factor == pytest.approx(yarn_attention_factor(32.0))
    assert "replaces_scaling" in {finding.code for finding in plan.warnings}  # the model's own scaling is llama3


@pytest.mark.parametrize("method", ["linear", "dynamic", "yarn", "llama3", "base"])
def test_every_method_reaches_the_target_with_its_slowest_pair(method):
    """Each method's slowest pair turns no faster than the original's did within L: its angle at T is at most the
    angle the original reached at L (or the base grew enough)."""
    plan = plan_for("llama-2-7b", 16384, method)
    slowest_original = float(default_inv_freq(128, 1e4, dtype=torch.float64)[-1])
    assert plan.methods[method].inv_freq[-1] * plan.target <= slowest_original * plan.original * (1 + 1e-9)


def test_regimes_follow_the_divisor_of_each_pair():
    plan = plan_for("llama-2-7b", 16384)
    original = default_inv_freq(128, 1e4, dtype=torch.float64).tolist()
    for pair in plan.pairs:
        assert pair.wavelength == pytest.approx(2 * math.pi / original[pair.index])
        for method, regime in pair.regimes.items():
            divisor = original[pair.index] / plan.methods[method].inv_freq[pair.index]
            expected = (
                "kept" if abs(divisor - 1) <= 0.01 else "interpolated" if divisor >= 0.99 * plan.factor else "ramped"
            )
            assert regime == expected and regime in REGIMES
    linear = {pair.regimes["linear"] for pair in plan.pairs}
    yarn = [pair.regimes["yarn"] for pair in plan.pairs]
    assert linear == {"interpolated"}
    assert yarn[0] == "kept" and yarn[-1] == "interpolated" and "ramped" in yarn  # YaRN's three regimes in order
    assert yarn == sorted(yarn, key=REGIMES.index)


def test_every_methods_frequencies_are_the_cores_for_its_block():
    plan = plan_for("llama-2-7b", 16384)
    for planned in plan.methods.values():
        s = planned.settings
        expected, attention = inv_freq(
            128,
            s.rope_theta,
            s.scaling,
            seq_len=16384,
            max_position_embeddings=s.max_position_embeddings,
            dtype=torch.float64,
        )
        assert planned.inv_freq == tuple(expected.tolist()) and planned.attention_factor == attention


def test_dynamic_keeps_max_position_embeddings_at_the_original_length():
    """HF's dynamic type reads max_position_embeddings as L: at T it must act, within L it must not."""
    plan = plan_for("llama-2-7b", 16384, "dynamic")
    assert plan.chosen.settings.max_position_embeddings == 4096
    assert plan.chosen.inv_freq[-1] < float(default_inv_freq(128, 1e4, dtype=torch.float64)[-1])


def test_base_method_takes_the_larger_rule_and_no_scaling():
    plan = plan_for("llama-3-8b", 16384, "base")
    settings = plan.chosen.settings
    assert settings.scaling is None and settings.max_position_embeddings == 16384
    wanted = max(plan.rules["share"], plan.rules["men"])
    assert wanted <= settings.rope_theta <= wanted * 1.01  # rounded up to three significant digits
    assert float(f"{settings.rope_theta:.3g}") == settings.rope_theta


def test_deepseek_keeps_its_mscale_keys_and_interleaved_layout_is_noted():
    plan = plan_for("deepseek-v3", 180000)
    scaling = plan.chosen.settings.scaling
    assert (
        scaling["factor"] == math.ceil(180000 / 4096 * 1e4) / 1e4
        and scaling["mscale"] == scaling["mscale_all_dim"] == 1.0
    )
    assert plan.chosen.attention_factor == pytest.approx(1.0)  # mscale == mscale_all_dim: the factors cancel
    assert "pairing_layout" in {finding.code for finding in plan.findings}


def test_mrope_keeps_its_sections_and_warns_about_yarn():
    plan = plan_for("qwen2-vl-7b", 65536)
    assert plan.chosen.settings.scaling["mrope_section"] == [16, 24, 24]
    assert "mrope_yarn" in {finding.code for finding in plan.warnings}
    assert "mrope_yarn" not in {finding.code for finding in plan_for("qwen2-vl-7b", 65536, "linear").findings}


def test_partial_rotary_plans_the_rotated_pairs_only():
    plan = plan_for("gpt-neox-20b", 8192, "linear")
    assert plan.rotary_dim == 24 and len(plan.pairs) == 12
    assert "partial_rotary" in {finding.code for finding in plan.findings}


def test_longrope_reuses_the_models_lists():
    preset = get_preset("phi-3-mini-128k")
    plan = plan_extension(preset, 8192, "longrope")
    scaling = plan.chosen.settings.scaling
    assert scaling["long_factor"] == list(preset.rope_scaling["long_factor"]) and scaling["factor"] == 2.0
    assert plan.chosen.attention_factor == pytest.approx(math.sqrt(1 + math.log(2) / math.log(4096)))
    assert "longrope" not in plan_for("llama-2-7b", 16384).methods


def test_a_linear_model_without_its_original_length_takes_max_over_factor():
    plan = plan_for("gemma-3-27b", 65536, "linear")
    assert plan.original == 131072 // 8
    assert "original_missing" in {finding.code for finding in plan.findings}
    given = plan_for("gemma-3-27b", 65536, "linear", original=32768)
    assert given.original == 32768 and given.factor == 2.0
    assert "original_missing" not in {finding.code for finding in given.findings}


def test_a_clean_plan_has_no_warnings():
    plan = plan_for("llama-3-8b", 16384)
    assert plan.warnings == () and plan.findings == ()


def test_every_plan_method_is_registered_with_a_docstring():
    assert set(PLAN_METHODS) == {"linear", "dynamic", "yarn", "llama3", "longrope", "base"}
    assert all(planner.__doc__ for planner in PLAN_METHODS.values())


@pytest.mark.parametrize(
    ("preset", "target", "options", "message"),
    [
        ("llama-2-7b", 2048, {}, "target must be longer than the original context L = 4,096"),
        ("llama-2-7b", 4096, {}, "target must be longer"),
        ("llama-2-7b", 10**12, {}, "target must be"),
        ("bloom-176b", 8192, {}, "uses alibi, not RoPE"),
        ("t5-base", 8192, {}, "not RoPE"),
        ("llama-2-7b", 16384, {"method": "ntk-by-parts"}, "method must be one of"),
        ("llama-2-7b", 16384, {"runtime": "tgi"}, "runtime must be one of"),
        ("llama-2-7b", 16384, {"method": "longrope"}, "needs the model's own searched"),
        ("llama-2-7b", 16384, {"factor": 0}, "factor"),
        ("llama-2-7b", 16384, {"original": 2}, "original"),
    ],
)
def test_bad_input_is_one_clear_value_error(preset, target, options, message):
    with pytest.raises(ValueError, match=message):
        plan_extension(get_preset(preset), target, **options)


def test_the_largest_target_is_accepted_and_skips_men_et_al():
    assert MAX_TARGET >= 10_000_000  # Llama 4 Scout's 10M
    small = dataclasses.replace(get_preset("llama-2-7b"), rope_head_dim=8, head_dim=8, hidden_size=32, n_heads=4)
    plan = plan_extension(small, 2**22 + 8, "linear")
    assert plan.rules["men"] is None


def test_a_linear_plans_bound_is_the_models_own_sampled_finer():
    """Position interpolation: B'(m) = Σ cos(m·θᵢ/s) = B(m/s), so B' at m = k·s is the model's B at k."""
    plan = plan_for("llama-2-7b", 16384, "linear")
    theta = default_inv_freq(128, 1e4, dtype=torch.float64)
    scaled = torch.tensor(plan.chosen.inv_freq, dtype=torch.float64)
    for k in (1, 777, 4095):
        m = k * plan.factor
        assert float(torch.cos(m * scaled).sum()) == pytest.approx(float(torch.cos(k * theta).sum()), abs=1e-9)
    assert plan.chosen.lowest_bound[1] <= plan.own_lowest_bound[1] + 1e-9  # the finer sampling finds no higher minimum


def test_a_rotary_dim_too_small_for_any_base_still_plans():
    """Two pairs over a million tokens: no base up to 1e12 keeps B(m) >= 0, so Men et al.'s base is None (said as
    NO_SMALLEST_BASE) and the base method takes the share rule alone."""
    from posenc_core.plan.rules import NO_SMALLEST_BASE

    small = dataclasses.replace(get_preset("llama-2-7b"), rope_head_dim=4, head_dim=4, hidden_size=16, n_heads=4)
    plan = plan_extension(small, 2**20, "base")
    assert plan.rules["men"] is None
    assert plan.chosen.settings.rope_theta >= plan.rules["share"]
    found = {finding.code: finding for finding in plan.findings}
    if "base_below_bound" in found:
        assert found["base_below_bound"].values["smallest"] == NO_SMALLEST_BASE
