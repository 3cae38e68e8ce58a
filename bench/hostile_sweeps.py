"""What the hostile sweeps of issue 35 (defects 5b and 6) cost now, each held to its stated bound.

    python -m bench.hostile_sweeps [--out bench/hostile_sweeps.md]

Each case runs in a fresh Python process on the builder path the app and the exporter share
(``drawing.animate.animate``, ``drawing.export_sweep``, ``posenc.commands.export``), as a link or a command asks for it;
nothing leaves the machine. A case's wall time, CPU seconds and peak memory (``ru_maxrss`` of its process) are
measured by the process itself and compared with the bound it is held to; a case that runs past
:data:`CASE_SECONDS` is stopped and recorded as over. Results: bench/hostile_sweeps.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASE_SECONDS = 180
"""No case may run longer than this (wall clock); the bench as a whole stays under about 10 minutes."""

CASES = {
    "plan-target-16m-60-frames": (
        "/plan?...&sweep=target:8000000..16777216:60 (the issue's link: 220-240 CPU-s before)",
        "work budget 2^32 units (about 20 CPU-s): fewer frames, said",
    ),
    "rope-scores-1m-60-frames": (
        "/rope?seq_len=1048576&sweep=seq_len:1024..1048576:60 on the scores figure (a heavy /rope link)",
        "work budget 2^32 units; 3 MB sent",
    ),
    "reader-leaves-after-3-frames": (
        "the plan link above, its session ended after the third frame",
        "stops between frames: 3 frames built",
    ),
    "export-heatmap-60-frames-html": (
        "posenc export sinusoidal-heatmap --sweep base=10000..1000000:60 --format html",
        "a file's 64 MB of figure data: all 60 frames",
    ),
}


def run_case(name: str) -> dict:
    """Run case ``name`` in this process; what it did, with its own wall time, CPU seconds and peak memory."""
    from posenc import figures  # noqa: F401  (registers every figure)
    from posenc.drawing import registry
    from posenc.drawing.animate import SweepCancelled, animate
    from posenc.drawing.sweep import parse_sweep

    wall, cpu = time.perf_counter(), time.process_time()
    outcome: dict = {}
    if name == "plan-target-16m-60-frames":
        params, _ = registry.resolve_params("plan-wavelengths", {})
        result = animate("plan-wavelengths", params, parse_sweep("target:8000000..16777216:60"))
        outcome = {"frames": len(result.values), "notes": result.notes}
    elif name == "rope-scores-1m-60-frames":
        params, _ = registry.resolve_params("rope-scores", {"seq_len": 1048576})
        result = animate("rope-scores", params, parse_sweep("seq_len:1024..1048576:60"))
        outcome = {"frames": len(result.values), "notes": result.notes, "json_mb": len(result.figure.to_json()) / 1e6}
    elif name == "reader-leaves-after-3-frames":
        params, _ = registry.resolve_params("plan-wavelengths", {})
        asked = iter(range(100))
        try:
            animate(
                "plan-wavelengths",
                params,
                parse_sweep("target:8000000..16777216:60"),
                cancelled=lambda: next(asked) >= 3,
            )
        except SweepCancelled as stopped:
            outcome = {"stopped": str(stopped)}
    elif name == "export-heatmap-60-frames-html":
        from posenc.commands.export import main

        with tempfile.TemporaryDirectory() as folder:
            argv = ["sinusoidal-heatmap", "--sweep", "base=10000..1000000:60", "--format", "html", "--out", folder]
            status = main(argv)
            (html,) = Path(folder).glob("*.html")
            outcome = {"status": status, "file": html.name, "file_mb": html.stat().st_size / 1e6}
    outcome |= {
        "wall_s": time.perf_counter() - wall,
        "cpu_s": time.process_time() - cpu,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    return outcome


def measure(name: str) -> dict:
    """Case ``name`` in a fresh process, stopped past :data:`CASE_SECONDS`."""
    argv = [sys.executable, "-m", "bench.hostile_sweeps", "--case", name]
    try:
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=CASE_SECONDS)
    except subprocess.TimeoutExpired:
        return {"over": f"stopped after {CASE_SECONDS} s"}
    if done.returncode != 0:
        return {"over": f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(results: dict[str, dict]) -> str:
    lines = [
        "# Hostile sweeps (issue 35, defects 5b and 6)",
        "",
        "`python -m bench.hostile_sweeps`: each case in a fresh process on the builder path the app and the exporter",
        "share; wall time, CPU seconds and peak memory (`ru_maxrss`, the process's with Python, torch and Plotly",
        f"loaded) measured by the process; no case may run past {CASE_SECONDS} s. Wall time includes waiting for a",
        "core (other work shared the machine when these were measured); CPU seconds are the case's own.",
        "",
        "| case | asked as | bound | wall s | CPU s | peak MB | what it did |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, found in results.items():
        asked, bound = CASES[name]
        if "over" in found:
            lines.append(f"| {name} | {asked} | {bound} | - | - | - | OVER: {found['over']} |")
            continue
        did = {key: value for key, value in found.items() if key not in ("wall_s", "cpu_s", "peak_mb")}
        text = "; ".join(f"{key}: {value}" for key, value in did.items()).replace("|", "/")
        lines.append(
            f"| {name} | {asked} | {bound} | {found['wall_s']:.1f} | {found['cpu_s']:.1f} | {found['peak_mb']:.0f} "
            f"| {text} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", choices=sorted(CASES), help="run one case in this process (what the bench calls)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "hostile_sweeps.md")
    args = parser.parse_args(argv)
    if args.case:
        print(json.dumps(run_case(args.case)))
        return 0
    results = {}
    for name in CASES:
        results[name] = measure(name)
        print(name, results[name], flush=True)
    args.out.write_text(report(results))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
