"""The benchmark's report (bench.run): every measure marked against its target, the floor shown beside the first
draw, and the README's table replaced between its markers and nowhere else."""

import pytest

from bench import run


def _results(*, rerun_ms=40.0, figure_bytes=1_000_000, memory_mb=400.0, first_figure_s=2.0, floor_s=1.5):
    page = {"rerun_ms_median": rerun_ms, "rerun_ms_min": rerun_ms, "rerun_ms_max": rerun_ms}
    page |= {"figure_bytes": figure_bytes, "peak_memory_mb": memory_mb, "errors": []}
    draw = {"page": "rope", "first_figure_s": first_figure_s, "first_draw_s": first_figure_s}
    return {
        "machine": {"cpu": "x86_64", "cores": 2, "python": "3.11", "torch": "2.13", "gpu": None},
        "when": "2026-11-23 12:00 UTC",
        "pages": [{"page": "rope", "scenario": scenario, **page} for scenario in ("default", "largest")],
        "core": {"device": "cpu", "functions": [{"function": "f", "ours_s": 1, "numpy_s": 2, "speedup": 2.0}]},
        "first_draw": [draw],
        "first_draw_all_sections": [draw],
        "first_draw_reference": {"page": "reference", "first_figure_s": floor_s},
    }


def _row(table: str, scenario: str) -> str:
    return next(line for line in table.splitlines() if line.startswith(f"| rope | {scenario} |"))


def test_measures_within_their_targets_are_all_marked_met():
    table = run.render_markdown(_results())
    assert "❌" not in table
    assert _row(table, "largest").count("✅") == 5  # rerun, bytes, memory, first figure, all figures
    assert "2.00 s (floor +0.50) ✅" in _row(table, "largest")


@pytest.mark.parametrize(
    ("over", "cell"),
    [
        ({"rerun_ms": 700.0}, "700 / 700 / 700 ❌"),
        ({"figure_bytes": 3_100_000}, "3.10 MB ❌"),
        ({"memory_mb": 1600.0}, "1600 MB ❌"),
        ({"first_figure_s": 3.2}, "3.20 s (floor +1.70) ❌"),
    ],
)
def test_a_measure_over_its_target_is_marked_missed(over, cell):
    assert cell in _row(run.render_markdown(_results(**over)), "largest")


def test_the_default_scenario_has_the_tighter_rerun_target():
    table = run.render_markdown(_results(rerun_ms=200.0))
    assert "❌" in _row(table, "default") and "❌" not in _row(table, "largest")


def test_a_figure_never_drawn_is_reported_as_missed():
    results = _results()
    results["first_draw"][0] |= {"first_figure_s": None, "first_draw_s": None}
    assert f"not drawn in {run.TIMEOUT_S} s ❌" in _row(run.render_markdown(results), "largest")


def test_the_readme_table_is_replaced_between_its_markers_only(tmp_path, monkeypatch):
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- bench:start -->\nold table\n<!-- bench:end -->\noutro\n")
    monkeypatch.setattr(run, "ROOT", tmp_path)
    run._update_readme("new table")
    assert readme.read_text() == "intro\n<!-- bench:start -->\nnew table\n<!-- bench:end -->\noutro\n"
