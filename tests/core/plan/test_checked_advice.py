"""The planner's advice is checked advice: a base it proposes keeps B(m) >= 0 at every m < T (searched: B is not
monotone in the base), and a plan is clean only when every check passes, each method's slow pairs at T included."""

from __future__ import annotations

import pytest
import torch

from posenc.commands.plan_report import as_dict, as_text
from posenc_core.plan.rules import checked_base, lowest_bound, men_base
from posenc_core.rope.scaling import default_inv_freq
from tests.core.plan.plan_helpers import plan_for


def test_b_is_not_monotone_in_the_base_so_a_bound_is_no_threshold():
    """Qwen2.5's own base 1e6 is above Men et al.'s smallest base for 32k, and B(m) still dips below zero."""
    assert men_base(32768, 128) < 1e6
    assert lowest_bound(default_inv_freq(128, 1e6, dtype=torch.float64), 32768)[1] < 0
    found = checked_base(128, 1e6, 32768)
    assert found is not None and found > 1e6
    assert lowest_bound(default_inv_freq(128, found, dtype=torch.float64), 32768)[1] >= 0


@pytest.mark.parametrize(("preset", "target"), [("gemma-2-9b", 32768), ("qwen2.5-7b", 65536), ("llama-3-8b", 65536)])
def test_a_proposed_base_keeps_b_non_negative_at_every_position(preset, target):
    plan = plan_for(preset, target, "base")
    base = plan.chosen.settings.rope_theta
    frequencies = default_inv_freq(plan.rotary_dim, base, dtype=torch.float64)
    assert lowest_bound(frequencies, target)[1] >= 0  # computed afresh, every m < T
    assert not {"base_below_bound", "bound_already_below"} & {finding.code for finding in plan.findings}


def test_the_fix_names_a_base_that_was_checked():
    plan = plan_for("llama-3-8b", 262144, "yarn")
    finding = next(f for f in plan.findings if f.code == "base_below_bound")
    checked = float(finding.values["checked"].replace(",", ""))
    assert f"set rope_theta to {finding.values['checked']}" in finding.fix
    assert lowest_bound(default_inv_freq(plan.rotary_dim, checked, dtype=torch.float64), plan.target)[1] >= 0


def test_dynamic_ntk_s_slow_pairs_at_t_are_a_warning_and_the_plan_is_not_clean():
    """Llama-3-8B 8k -> 16k with dynamic NTK: pairs 35-39 never turned once in 8k and turn further by 16k; pair 35
    reaches 16384·θ'₃₅ = 6.80 rad against 8192·θ₃₅ = 6.26."""
    plan = plan_for("llama-3-8b", 16384, "dynamic")
    finding = next(f for f in plan.findings if f.code == "slow_pairs_beyond")
    assert finding.severity == "warning"
    assert finding.values["pair"] == 35 and finding.values["count"] == 5
    assert round(finding.values["angle"], 2) == 6.80 and round(finding.values["seen"], 2) == 6.26
    assert as_dict(plan)["clean"] is False and "No problems found" not in as_text(plan)


@pytest.mark.parametrize("method", ["linear", "yarn", "llama3", "base"])
def test_methods_that_divide_the_slow_pairs_keep_them_within_what_was_seen(method):
    plan = plan_for("llama-3-8b", 16384, method)
    assert "slow_pairs_beyond" not in {finding.code for finding in plan.findings}
