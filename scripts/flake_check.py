"""Run the browser and deploy tests many times in a row, with CPU cores kept busy, to find a test that passes only
by luck with timing.

A test that reads a page before its figures are done, or waits a fixed time instead of on the app's own signal
(the end-of-run mark, ``posenc.ui.run_marker``), passes on an idle machine and fails on a busy one. This runs
``pytest`` on the chosen tests ``--runs`` times while ``--busy`` processes spin on a core each, stops at the time
bound (``--minutes``: no run starts after it), prints one line per run and a summary, and exits 1 if any run failed
(the failing test ids are printed, and each failed run's output is kept under ``build/flake_check/``).

Usage: python scripts/flake_check.py [--runs 20] [--busy 1] [--minutes 150] [-- PYTEST ARGS]
       (``make flakecheck``; the default tests: tests/browser tests/deploy, coverage off)
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TESTS = ["tests/browser", "tests/deploy"]
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
    args = parser.parse_args(own)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.busy < 0:
        parser.error("--busy must be 0 or more")
    if args.minutes <= 0:
        parser.error("--minutes must be more than 0")
    return args, pytest_args or [*DEFAULT_TESTS, "--no-cov"]


def failed_tests(output: str) -> list[str]:
    """The test ids pytest's short summary names as failed or errored (``-rfE``)."""
    return FAILED_LINE.findall(output)


def main(argv: list[str] | None = None) -> int:
    args, pytest_args = parse(sys.argv[1:] if argv is None else argv)
    logs = ROOT / "build" / "flake_check"
    logs.mkdir(parents=True, exist_ok=True)
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for spinner in spinners:
        spinner.start()
    deadline = time.monotonic() + 60 * args.minutes
    failures: dict[int, list[str]] = {}
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
                print(f"run {run}: passed in {seconds:.0f} s", flush=True)
                continue
            failed = failed_tests(proc.stdout) or [f"pytest exit code {proc.returncode}"]
            failures[run] = failed
            (logs / f"run-{run}.log").write_text(proc.stdout + proc.stderr)
            print(f"run {run}: FAILED in {seconds:.0f} s: {', '.join(failed)}", flush=True)
    finally:
        for spinner in spinners:
            spinner.terminate()
    print(f"{done} runs with {args.busy} core(s) busy: {done - len(failures)} passed, {len(failures)} failed")
    return 1 if failures or done == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
