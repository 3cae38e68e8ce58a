"""scripts/flake_check.py: runs the chosen tests again and again with cores kept busy, says which runs failed and
with which tests, and exits 1 when any did."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from bench.app_server import ROOT

spec = importlib.util.spec_from_file_location("flake_check", ROOT / "scripts" / "flake_check.py")
flake_check = importlib.util.module_from_spec(spec)
sys.modules["flake_check"] = flake_check
spec.loader.exec_module(flake_check)

PASSING = "def test_fine():\n    assert True\n"
QUICK = ["-q", "-p", "no:xdist", "-p", "no:cov"]  # a bare pytest: the runs here are short
FAILING = "import os\n\ndef test_flaky():\n    assert os.environ.get('NEVER_SET_HERE')\n"


def test_a_passing_test_passes_every_run_with_a_core_busy(tmp_path, capsys):
    (tmp_path / "test_fine.py").write_text(PASSING)
    record = tmp_path / "record.md"
    argv = ["--runs", "2", "--busy", "1", "--record", str(record), "--", str(tmp_path), *QUICK]
    assert flake_check.main(argv) == 0
    out = capsys.readouterr().out
    assert "run 1: passed" in out and "run 2: passed" in out and "2 runs with 1 core(s) busy: 2 passed, 0 failed" in out
    kept = record.read_text()  # the record: appended, with the commit, what ran, each run
    assert kept.startswith("# Flake check record") and "- run 2: passed" in kept and "2 passed, 0 failed" in kept
    assert flake_check.main(argv) == 0
    assert record.read_text().startswith(kept) and record.read_text().count("## ") == 2  # appended, not replaced


def test_a_failing_run_names_its_test_and_the_exit_code_says_so(tmp_path, capsys):
    (tmp_path / "test_flaky.py").write_text(FAILING)
    logs = tmp_path / "logs"  # not the project's build/flake_check, where a real check keeps its failed runs
    argv = ["--runs", "1", "--busy", "0", "--record", str(tmp_path / "record.md"), "--logs", str(logs)]
    assert flake_check.main([*argv, "--", str(tmp_path), *QUICK]) == 1
    out = capsys.readouterr().out
    assert "run 1: FAILED" in out and "test_flaky.py::test_flaky" in out and "0 passed, 1 failed" in out
    assert "test_flaky" in (logs / "run-1.log").read_text()


@pytest.mark.parametrize(
    ("argv", "word"), [(["--runs", "0"], "--runs"), (["--busy", "-1"], "--busy"), (["--minutes", "0"], "--minutes")]
)
def test_bad_arguments_are_refused_by_name(argv, word, capsys):
    with pytest.raises(SystemExit):
        flake_check.main(argv)
    assert word in capsys.readouterr().err


def test_the_default_is_the_browser_and_deploy_tests_without_coverage():
    args, pytest_args = flake_check.parse([])
    assert (args.runs, args.busy) == (20, 1) and pytest_args == ["tests/browser", "tests/deploy", "--no-cov"]
    assert args.record == ROOT / "docs" / "FLAKE_RECORD.md" and args.logs == ROOT / "build" / "flake_check"


def test_suite_all_runs_the_whole_suite():
    _, pytest_args = flake_check.parse(["--suite", "all"])
    assert pytest_args == ["tests", "--no-cov"]
