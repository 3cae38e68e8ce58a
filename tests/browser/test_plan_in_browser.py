"""The Plan page in a real Chromium: a shared link opens the plan it names, its figure drawn on the chosen method's
regimes and the YaRN block to paste shown. One page visit, waiting on the app's own end-of-run mark."""

from __future__ import annotations

import pytest

from tests.browser.helpers import CHART, exceptions_on_page, runs, wait_until_drawn

pytestmark = pytest.mark.browser


def test_a_plan_link_draws_the_plan_and_its_yarn_block(app_url, tab):
    tab.goto(f"{app_url}/plan?preset=llama-3.1-8b&target=262144&method=yarn")
    wait_until_drawn(tab, where="plan")
    assert exceptions_on_page(tab) == []
    assert tab.locator(CHART).count() == 1
    assert "L = 8,192 → T = 262,144" in tab.locator(CHART).first.inner_text()
    assert tab.locator("[data-testid='stAlertContentError']").count() == 0
    before = runs(tab)
    tab.get_by_role("tab", name="Settings to paste").click()
    wait_until_drawn(tab, after=before, where="plan")
    block = tab.locator("[data-testid='stCode']").first
    assert '"rope_type": "yarn"' in block.inner_text() and '"factor": 32.0' in block.inner_text()
