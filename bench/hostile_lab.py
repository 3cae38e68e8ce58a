"""Hostile input to the length lab's commands, run against the real command: what each costs and the bound it is
held to (issue 35, defects 1, 1b, 2, 3, 4 and 9).

    python -m bench.hostile_lab [--out bench/hostile_lab.md]

Each case runs ``python -m posenc lab ...`` in a fresh process, on private copies made in a temporary folder (a
device node made with ``mknod`` where this process may, a fifo, links, a 1 GiB zip bomb of about 1 MB, checkpoints
declaring huge models), and records the exit status, the last line of stderr, the wall time and the process's peak
resident memory (``os.wait4``'s rusage of that process alone: ``ru_maxrss``). A full disk is stood in for by
``RLIMIT_FSIZE`` on the training process: its checkpoint write fails with EFBIG after the model has trained, as a
disk that fills up while it trains would. The last case is the *Train your own* page's runs: two runs started in
this process and their sessions closed (:meth:`posenc.ui.lab_runs.Run.close`, what the page registers with the
session's end), with this process's children and open handles counted before and after.

A case passes when its status is the one expected, its stderr's last line is one line saying why (no traceback),
and it stays within its time and memory bound. The results are written to ``bench/hostile_lab.md``. It takes about
two minutes on a 2-core machine, most of it Python and torch starting once per case.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing.resource_tracker
import os
import platform
import resource
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import torch

from posenc_lab.evaluate import longest_fitting
from posenc_lab.model import LabConfig

ROOT = Path(__file__).resolve().parents[1]
LONGEST_COPY = longest_fitting(LabConfig(scheme="alibi"), "copy")  # the longest copy evaluation the bound allows
RESULTS = ROOT / "bench" / "hostile_lab.md"
REFUSED_S, REFUSED_MB = 20.0, 700  # a refusal: the interpreter and torch start, nothing is trained or evaluated
FEW_STEPS = ["--steps", "5", "--batch-size", "2"]


@dataclass
class Case:
    name: str
    argv: list[str]
    bound: str  # what it is held to, in words
    status: int = 2
    seconds: float = REFUSED_S
    megabytes: float = REFUSED_MB
    says: str = ""  # words the last stderr line must hold
    limit_file_bytes: int | None = None
    result: dict = field(default_factory=dict)


def run_case(case: Case, cwd: Path) -> dict:
    """Run one case's command in a fresh process; its status, last stderr line, wall time and peak memory."""
    argv = [sys.executable, "-m", "posenc", "lab", *case.argv]
    environment = os.environ | {"PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}

    def limits() -> None:
        if case.limit_file_bytes is not None:  # Python ignores SIGXFSZ, so a write past it fails with EFBIG
            resource.setrlimit(resource.RLIMIT_FSIZE, (case.limit_file_bytes, case.limit_file_bytes))

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err, env=environment, preexec_fn=limits)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        lines = err.read().decode(errors="replace").strip().splitlines()
    last = lines[-1] if lines else ""
    megabytes = usage.ru_maxrss / 1024  # Linux: kilobytes
    ok = (
        process.returncode == case.status
        and "Traceback" not in "\n".join(lines)
        and case.says in last
        and seconds <= case.seconds
        and megabytes <= case.megabytes
    )
    return {"status": process.returncode, "last": last, "seconds": seconds, "megabytes": megabytes, "ok": ok}


def _checkpoint(folder: Path) -> Path:
    """A small untrained lab checkpoint (trained length 16), made once."""
    from posenc_lab import checkpoints
    from posenc_lab.model import LabConfig, LabModel
    from posenc_lab.train import TrainSettings

    model = LabModel(LabConfig(scheme="rope", d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=16))
    made = checkpoints.Checkpoint(model, TrainSettings(steps=1), [5.5], 0.1, "cpu")
    return checkpoints.save(made, folder / "small.pt")


def _crafted(source: Path, target: Path, change) -> str:
    data = torch.load(source, weights_only=True)
    change(data)
    torch.save(data, target)
    return str(target)


def zip_bomb(source: Path, target: Path, size: int = 1 << 30) -> str:
    """``source`` (a torch zip checkpoint) with its first storage replaced by ``size`` bytes of deflated zeros (a
    file of about 1 MB per GiB); the tests build theirs with it too."""
    chunk = bytes(min(size, 64 << 20))
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as bomb:
        for entry in original.infolist():
            if entry.filename.endswith("/data/0"):
                deflated = zipfile.ZipInfo(entry.filename)
                deflated.compress_type = zipfile.ZIP_DEFLATED
                with bomb.open(deflated, "w", force_zip64=True) as inflated:
                    for _ in range(size // len(chunk)):
                        inflated.write(chunk)
            else:
                bomb.writestr(entry, original.read(entry))
    return str(target)


def _device_node(path: Path) -> str:
    """A private /dev/null-like character device (1:3) where this process may make one, else a fifo."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        os.mkfifo(path)
    return str(path)


def cases(folder: Path) -> list[Case]:
    """Every hostile input, made in ``folder``."""
    small = _checkpoint(folder)
    (folder / "notes.txt").write_text("my notes, not a checkpoint\n")
    os.symlink("/proc/self/fd/1", folder / "stdout")  # what /dev/stdout is
    (folder / "a-folder").mkdir()
    os.mkfifo(folder / "pipe")
    unwritable = "/proc/self/model.pt" if os.geteuid() == 0 else str(_read_only(folder) / "model.pt")
    sparse = folder / "large.pt"
    with sparse.open("wb") as file:
        file.truncate(64 << 20)
    train = ["train", "--scheme", "rope", *FEW_STEPS, "--out"]
    before_training = "exit 2, one line, before any training"
    huge = {
        "d_model 16,384 x 8 layers (about 100 GB)": {"d_model": 16384, "n_heads": 64, "n_layers": 8},
        "10 million layers": {"n_layers": 10_000_000},
    }
    listed = [
        Case(
            "out: a device node (private copy of /dev/null)", [*train, _device_node(folder / "null")], before_training
        ),
        Case("out: a fifo", [*train, str(folder / "pipe")], before_training),
        Case("out: a link like /dev/stdout", [*train, str(folder / "stdout")], before_training),
        Case("out: a folder", [*train, str(folder / "a-folder")], before_training),
        Case("out: .", [*train, "."], before_training),
        Case('out: ""', [*train, ""], before_training),
        Case("out: a path under a regular file", [*train, str(folder / "notes.txt" / "x.pt")], before_training),
        Case("out: an unwritable place", [*train, unwritable], before_training),
        Case("out: a file that is not a checkpoint", [*train, str(folder / "notes.txt")], before_training),
        Case(
            "out: the disk fills while writing (RLIMIT_FSIZE 64 KB)",
            [*train, str(folder / "new.pt")],
            "exit 2, one line, no temporary file left",
            seconds=60,
            says="File too large",
            limit_file_bytes=64 << 10,
        ),
        Case("--batch-size 1000000", ["train", "--scheme", "rope", "--batch-size", "1000000"], "exit 2 before work"),
        Case("--batch-size 1e9", ["train", "--scheme", "rope", "--batch-size", "1e9"], "exit 2 before work"),
        Case("--steps 1000000000", ["train", "--scheme", "rope", "--steps", "1000000000"], "exit 2 before work"),
        Case("--seed 10**40", ["train", "--scheme", "rope", "--seed", "1" + "0" * 40], "exit 2 before work"),
        Case(
            "checkpoint: a 1 GiB storage deflated into about 1 MB",
            ["eval", "--checkpoint", zip_bomb(Path(small), folder / "bomb.pt"), "--lengths", "8"],
            "exit 2, not inflated",
        ),
        Case(
            "checkpoint: a 64 MiB file",
            ["eval", "--checkpoint", str(sparse), "--lengths", "8"],
            "exit 2, not read",
        ),
    ]
    for name, sizes in huge.items():
        path = _crafted(
            small, folder / f"huge-{len(listed)}.pt", lambda data, sizes=sizes: data["config"].update(sizes)
        )
        listed.append(Case(f"checkpoint: {name}", ["eval", "--checkpoint", path], "exit 2, nothing allocated"))
    for name, change in {
        "no 'device' key": lambda data: data.pop("device"),
        "an infinite count (settings.steps)": lambda data: data["settings"].update(steps=float("inf")),
    }.items():
        path = _crafted(small, folder / f"field-{len(listed)}.pt", change)
        listed.append(Case(f"checkpoint: {name}", ["eval", "--checkpoint", path], "exit 2, naming the field"))
    listed += [
        Case(
            "eval: t5 at 4,096 tokens, repeated 20 times",
            ["eval", "--scheme", "t5", "--lengths", ",".join(["4096"] * 20), "--json"],
            "evaluated once; the work bound (2^29 attention scores)",
            status=0,
            seconds=60,
            megabytes=2500,
        ),
        Case(
            "eval: 17 different lengths",
            ["eval", "--scheme", "rope", "--lengths", ",".join(map(str, range(64, 81)))],
            "exit 2 before work (at most 16)",
        ),
        Case(
            "eval: the copy task at 4,096 tokens (2,047 letters)",
            ["eval", "--scheme", "alibi", "--task", "copy", "--lengths", "4096"],
            "exit 2 before work, the longest that fits named",
        ),
        Case(
            f"eval: the copy task at {LONGEST_COPY:,} tokens ({(LONGEST_COPY - 1) // 2:,} letters), the most allowed",
            ["eval", "--scheme", "alibi", "--task", "copy", "--lengths", str(LONGEST_COPY), "--json"],
            "runs within the work bound",
            status=0,
            seconds=90,
            megabytes=2500,
        ),
    ]
    return listed


def _read_only(folder: Path) -> Path:
    locked = folder / "read-only"
    locked.mkdir()
    locked.chmod(0o555)
    return locked


def page_runs(bound_s: float = 300) -> dict:
    """Two *Train your own* runs started, training, then their sessions closed: seconds to release them, and this
    process's children and open handles before, while training and after."""
    from posenc.ui import lab_runs

    def children() -> int:
        tasks = Path("/proc/self/task")
        return sum(len((task / "children").read_text().split()) for task in tasks.iterdir())

    def handles() -> int:
        return len(os.listdir("/proc/self/fd"))

    multiprocessing.resource_tracker.ensure_running()  # a helper the server starts with its first run and keeps
    before = {"children": children(), "handles": handles()}
    runs = [lab_runs.start("alibi", "lm", lab_runs.MAX_STEPS, seed) for seed in (0, 1)]
    for run in runs:
        run.wait(bound_s, until=lambda run: run.step >= 1)
    during = {"children": children(), "handles": handles()}
    started = time.perf_counter()
    for run in runs:
        run.close()  # what the session's end calls
    seconds = time.perf_counter() - started
    after = {"children": children(), "handles": handles(), "limit_in_use": lab_runs.active_count()}
    ok = after["children"] == before["children"] and after["handles"] == before["handles"] and not after["limit_in_use"]
    return {"before": before, "during": during, "after": after, "seconds": seconds, "ok": ok}


def report(rows: list[Case], runs: dict) -> str:
    lines = [
        "# Hostile input to `posenc lab` (issue 35): what each costs, and its bound",
        "",
        "`python -m bench.hostile_lab` (bench/hostile_lab.py): each case runs `python -m posenc lab ...` in a fresh",
        "process on private copies (never the real /dev nodes); peak memory is that process's own `ru_maxrss`",
        "(`os.wait4`), time is wall-clock from start to exit, torch's start included (about 2-4 s and 220 MB here:",
        "what every refusal costs). TMP is the bench's temporary folder.",
        "",
        "Before these changes (issue 35's probe): a device node or a `/dev/stdout`-like link became a 239 KB regular",
        'file (exit 0); a folder, `.`, `""`, a path under a file or an unwritable place trained first and then',
        "ended in a traceback; the 4 GiB zip bomb took 56 s and 12.8 GB before it was refused; d_model 16,384 x 8",
        "layers or 10 million layers grew until memory ran out; `--batch-size 1000000` took up to 87 s and 3.7 GB",
        "before a traceback; a missing `device` or an infinite count was a KeyError / OverflowError traceback; one",
        "length repeated 20 times ran past 120 s and 1.2 GB; the copy task at 4,096 took 137 s and 3 GB. Two page",
        "runs whose sessions closed trained on (460 and 473 MB after 200 s), kept the server's limit full, outlived a",
        "killed server, and every finished run kept 6-7 handles for an hour.",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, torch "
        f"{torch.__version__}; {time.strftime('%Y-%m-%d', time.gmtime())}; load average at the end "
        f"{os.getloadavg()[0]:.1f} (other work shared the machine).",
        "",
        "| case | held to | exit | seconds (bound) | peak MB (bound) | ok | last line of stderr |",
        "|---|---|---|---|---|---|---|",
    ]
    for case in rows:
        result = case.result
        said = result["last"].replace("|", "\\|")
        said = said if len(said) <= 150 else said[:149] + "…"
        lines.append(
            f"| {case.name} | {case.bound} | {result['status']} | {result['seconds']:.1f} ({case.seconds:g}) | "
            f"{result['megabytes']:.0f} ({case.megabytes:g}) | {'yes' if result['ok'] else '**no**'} | {said} |"
        )
    lines += [
        "",
        "## Train your own: two runs, their sessions closed",
        "",
        "Two runs started as the page starts them, each waited on until it has trained a step, then closed as the",
        "session's end closes them. This process's children and open handles (/proc/self/fd):",
        "",
        "| | children | open handles |",
        "|---|---|---|",
        *(f"| {when} | {runs[when]['children']} | {runs[when]['handles']} |" for when in ("before", "during", "after")),
        "",
        f"Both released in {runs['seconds']:.2f} s; runs still counted under the server's limit after: "
        f"{runs['after']['limit_in_use']}; back to where they were: {'yes' if runs['ok'] else '**no**'}.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--json", action="store_true", help="print the results as JSON too")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        rows = cases(folder)
        for case in rows:
            case.result = run_case(case, folder)
            case.result["last"] = case.result["last"].replace(str(folder), "TMP") or "(none: the report on stdout)"
            mark = "ok" if case.result["ok"] else "FAILED"
            print(f"{mark:6} {case.result['seconds']:6.1f} s {case.result['megabytes']:6.0f} MB  {case.name}")
        full_disk = next(case for case in rows if case.limit_file_bytes is not None)
        leftovers = [name for name in os.listdir(folder) if name.endswith(".part") or name == "new.pt"]
        if leftovers:
            full_disk.result["ok"] = False
            full_disk.result["last"] += f" (left: {leftovers})"
        if (folder / "read-only").exists():
            (folder / "read-only").chmod(0o755)  # the temporary folder can be removed
    runs = page_runs()
    print(f"{'ok' if runs['ok'] else 'FAILED':6} page runs: {runs}")
    args.out.write_text(report(rows, runs))
    if args.json:
        print(json.dumps({"cases": [case.result | {"name": case.name} for case in rows], "page_runs": runs}))
    return 0 if all(case.result["ok"] for case in rows) and runs["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
