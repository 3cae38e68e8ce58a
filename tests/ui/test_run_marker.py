"""The end-of-run mark the browser tests wait on: it names the page, counts the session's runs, and says how many
charts the run left in the page, so a test can wait for exactly those (a placeholder redrawn in place counts once;
a figure refused with a message counts none)."""

from __future__ import annotations

import re

from posenc.ui.run_marker import SELECTOR
from tests.pages.conftest import assert_healthy, error_texts, open_page
from tests.pages.test_relative import T5

MARK = re.compile(r'data-page="([^"]*)" data-run="(\d+)" data-charts="(\d+)"')
CLASS = SELECTOR.split(".", 1)[1]


def _mark(at) -> tuple[str, int, int]:
    marks = [MARK.search(element.proto.body) for element in at.get("html") if CLASS in element.proto.body]
    assert len(marks) == 1, "one mark per run"
    page, run, charts = marks[0].groups()
    return page, int(run), int(charts)


def test_the_mark_counts_the_runs_and_the_charts_each_run_drew():
    at = open_page("rope")  # every section: several figures
    assert_healthy(at)
    drawn = len(at.get("plotly_chart"))
    assert drawn > 1
    assert _mark(at) == ("rope", 1, drawn)
    at.run()
    assert _mark(at) == ("rope", 2, drawn), "a rerun counts its charts afresh, not on top of the run before"


def test_a_figure_refused_with_a_message_is_not_counted():
    at = open_page("relative", {"num_buckets": "64", "max_distance": "20"}, section=T5)
    at.toggle(key="bidirectional").set_value(False).run()  # causal buckets need max_distance >= 33: refused
    assert error_texts(at)
    drawn = len(at.get("plotly_chart"))
    assert _mark(at) == ("relative", 2, drawn)
