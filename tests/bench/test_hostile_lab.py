"""The hostile-input bench of the lab's commands (bench/hostile_lab.py): one real case measured through the real
command (a fifo as --out: refused in one line, its time and peak memory read from the process's own rusage), and
the report names each case's bound and says whether it held."""

from __future__ import annotations

import os

from bench import hostile_lab


def test_a_case_runs_the_real_command_and_reads_its_own_cost(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    case = hostile_lab.Case("out: a fifo", ["train", "--scheme", "rope", "--out", str(tmp_path / "pipe")], "exit 2")
    result = hostile_lab.run_case(case, tmp_path)
    assert result["status"] == 2 and result["ok"], result
    assert "is not a regular file" in result["last"] and 50 < result["megabytes"] < hostile_lab.REFUSED_MB


def test_the_report_states_each_bound_and_what_held():
    held = hostile_lab.Case("a", ["eval"], "exit 2 before work")
    held.result = {"status": 2, "last": "posenc lab: x | y", "seconds": 3.0, "megabytes": 220.0, "ok": True}
    broke = hostile_lab.Case("b", ["eval"], "runs within the work bound", status=0, seconds=60, megabytes=2500)
    broke.result = {"status": 1, "last": "Traceback", "seconds": 61.0, "megabytes": 3000.0, "ok": False}
    runs = {
        "before": {"children": 1, "handles": 7},
        "during": {"children": 3, "handles": 15},
        "after": {"children": 1, "handles": 7, "limit_in_use": 0},
        "seconds": 0.3,
        "ok": True,
    }
    text = hostile_lab.report([held, broke], runs)
    assert "| a | exit 2 before work | 2 | 3.0 (20) | 220 (700) | yes | posenc lab: x \\| y |" in text
    assert "| b | runs within the work bound | 1 | 61.0 (60) | 3000 (2500) | **no** | Traceback |" in text
    assert "| during | 3 | 15 |" in text and "back to where they were: yes" in text
