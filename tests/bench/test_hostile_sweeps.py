"""bench/hostile_sweeps.py: a case measures itself against its bound, and the report says a case that ran over."""

from __future__ import annotations

from bench import hostile_sweeps


def test_the_60_frame_file_case_keeps_every_frame_and_measures_itself():
    found = hostile_sweeps.run_case("export-heatmap-60-frames-html")
    assert found["status"] == 0 and "sweep-base-60" in found["file"]
    assert 0 < found["file_mb"] < 64 and found["cpu_s"] > 0 and found["peak_mb"] > 50


def test_the_report_names_each_bound_and_a_case_over_it():
    measured = {"wall_s": 1.0, "cpu_s": 0.5, "peak_mb": 300.0, "frames": 4}
    text = hostile_sweeps.report({"plan-target-16m-60-frames": measured, "rope-scores-1m-60-frames": {"over": "x"}})
    assert "work budget 2^32 units" in text and "| 1.0 | 0.5 | 300 | frames: 4 |" in text
    assert "OVER: x" in text
