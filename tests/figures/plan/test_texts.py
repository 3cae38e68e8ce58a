"""The Plan page's words: the marked copies of the checks' templates are the core's, word for word, and every
finding reads in every language with its values."""

from __future__ import annotations

import pytest

from posenc.figures.plan.params import METHOD_LABELS, RUNTIME_LABELS
from posenc.figures.plan.texts import CHECK_TEXTS, METHOD_NOTES, RULE_LABELS, finding_text
from posenc.i18n import language
from posenc_core.models.presets import PRESETS
from posenc_core.plan import PLAN_METHODS, RUNTIMES, TEXTS, Finding, plan_extension
from posenc_core.plan.rules import NO_CHECKED_BASE, NO_SMALLEST_BASE


def test_the_marked_templates_equal_the_core_s_exactly():
    assert CHECK_TEXTS == TEXTS, "posenc_core.plan.checks.TEXTS changed: copy it into figures/plan/texts.py"


def test_every_method_rule_and_runtime_has_its_words():
    assert set(METHOD_NOTES) == set(METHOD_LABELS) == set(PLAN_METHODS)
    assert {name: label for name, label in RUNTIME_LABELS.items() if name in RUNTIMES} == {
        name: runtime.label for name, runtime in RUNTIMES.items()
    }
    plan = plan_extension(PRESETS["llama-2-7b"], 16384)
    assert set(RULE_LABELS) == set(plan.rules)


def test_a_finding_reads_as_the_core_writes_it_in_english():
    plan = plan_extension(PRESETS["gemma-3-27b"], 2**23, "yarn", runtime="llama.cpp")
    for finding in plan.findings:
        assert finding_text(finding) == (finding.reason, finding.fix)


@pytest.mark.parametrize("code", ["ko", "zh-CN"])
def test_a_finding_reads_in_each_language_with_its_values(code):
    finding = Finding(
        "runtime_missing",
        "warning",
        {"runtime": "llama.cpp", "method": "dynamic", "alternatives": "linear or yarn or base"},
    )
    with language(code):
        reason, fix = finding_text(finding)
    assert "llama.cpp" in reason and "dynamic" in reason and "does not" not in reason
    assert "linear" in fix and "yarn" in fix and " or " not in fix
    values = {"lowest": -1.0, "m": 5, "target": 9, "smallest": NO_SMALLEST_BASE, "checked": NO_CHECKED_BASE}
    smallest = Finding("base_below_bound", "warning", values)
    with language(code):
        reason, fix = finding_text(smallest)
    assert NO_SMALLEST_BASE not in reason and NO_CHECKED_BASE not in fix
