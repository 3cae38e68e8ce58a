"""Run the browser and deploy tests (or the whole suite) many times in a row, with CPU cores kept busy, to find a
test that passes only by luck with timing.

A test that reads a page before its figures are done, or waits a fixed time instead of on the app's own signal
(the end-of-run mark, ``posenc.ui.run_marker``), passes on an idle machine and fails on a busy one. This runs
``pytest`` on the chosen tests ``--runs`` times while ``--busy`` processes spin on a core each, stops at the time
bound (``--minutes``: no run starts after it), prints one line per run and a summary, and exits 1 if any run failed
(the failing test ids are printed, and each failed run's output is kept under ``--logs``, default
``build/flake_check/``).

``--suite all`` runs the whole suite (``tests``, as ``make test`` does, coverage off): a test that compares floats
computed in two processes failed a fresh clone's ``make test`` outside the browser tests. Each check appends its
result (date, commit, suite, cores busy, each run's time and verdict, the failed tests) to ``--record``
(default: ``docs/FLAKE_RECORD.md``, kept in the repository).

Usage: python scripts/flake_check.py [--runs 20] [--busy 1] [--minutes 150] [--suite browser|all]
                                     [--record FILE] [--logs DIR] [-- PYTEST ARGS]
       (``make flakecheck``, ``make flakecheck SUITE=all``; the default tests: tests/browser tests/deploy,
       coverage off)
"""

from __future__ import annotations

import argparse
import datetime
import multiprocessing
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TESTS = ["tests/browser", "tests/deploy"]
SUITES = {"browser": DEFAULT_TESTS, "all": ["tests"]}
RECORD = ROOT / "docs" / "FLAKE_RECORD.md"
LOGS = ROOT / "build" / "flake_check"
FAILED_LINE = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)


def spin() -> None:
    """Keep one core busy until terminated."""
    while True:
        pass


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    own, pytest_args = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="how many runs in a row (default 20)")
    parser.add_argument("--busy", type=int, default=1, help="cores kept busy meanwhile (default 1)")
    parser.add_argument("--minutes", type=float, default=150.0, help="no run starts after this (default 150)")
    parser.add_argument(
        "--suite", choices=sorted(SUITES), default="browser", help="browser: tests/browser tests/deploy; all: tests"
    )
    parser.add_argument("--record", type=Path, default=RECORD, help=f"results appended here (default {RECORD.name})")
    parser.add_argument(
        "--logs", type=Path, default=LOGS, help="each failed run's output kept here (default build/flake_check)"
    )
    args = parser.parse_args(own)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.busy < 0:
        parser.error("--busy must be 0 or more")
    if args.minutes <= 0:
        parser.error("--minutes must be more than 0")
    return args, pytest_args or [*SUITES[args.suite], "--no-cov"]


def failed_tests(output: str) -> list[str]:
    """The test ids pytest's short summary names as failed or errored (``-rfE``)."""
    return FAILED_LINE.findall(output)


def main(argv: list[str] | None = None) -> int:
    args, pytest_args = parse(sys.argv[1:] if argv is None else argv)
    logs = args.logs
    logs.mkdir(parents=True, exist_ok=True)
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for spinner in spinners:
        spinner.start()
    deadline = time.monotonic() + 60 * args.minutes
    failures: dict[int, list[str]] = {}
    lines: list[str] = []
    done = 0
    try:
        for run in range(1, args.runs + 1):
            if time.monotonic() >= deadline:
                print(f"time bound of {args.minutes:g} min reached: {done} of {args.runs} runs done", flush=True)
                break
            started = time.monotonic()
            proc = subprocess.run(
                [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *pytest_args],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            done += 1
            seconds = time.monotonic() - started
            if proc.returncode == 0:
                lines.append(f"run {run}: passed in {seconds:.0f} s")
                print(lines[-1], flush=True)
                continue
            failed = failed_tests(proc.stdout) or [f"pytest exit code {proc.returncode}"]
            failures[run] = failed
            (logs / f"run-{run}.log").write_text(proc.stdout + proc.stderr)
            lines.append(f"run {run}: FAILED in {seconds:.0f} s: {', '.join(failed)}")
            print(lines[-1], flush=True)
    finally:
        for spinner in spinners:
            spinner.terminate()
    summary = f"{done} runs with {args.busy} core(s) busy: {done - len(failures)} passed, {len(failures)} failed"
    print(summary)
    record(args.record, " ".join(pytest_args), args.busy, lines, summary)
    return 1 if failures or done == 0 else 0


def record(path: Path, tests: str, busy: int, lines: list[str], summary: str) -> None:
    """Append one check's result to ``path`` (a Markdown file kept in the repository): when, at which commit, what
    ran, and each run's line."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.strip()
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    path.parent.mkdir(parents=True, exist_ok=True)
    header = (
        "" if path.exists() else "# Flake check record\n\nAppended by `scripts/flake_check.py` (`make flakecheck`).\n"
    )
    with path.open("a", encoding="utf-8") as out:
        out.write(header)
        out.write(f"\n## {when}, commit {commit or 'unknown'}\n\n`pytest {tests}`, {busy} core(s) kept busy\n\n")
        out.writelines(f"- {line}\n" for line in lines)
        out.write(f"\n**{summary}**\n")


if __name__ == "__main__":
    sys.exit(main())
