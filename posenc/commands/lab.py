"""``posenc lab``: train the length lab's tiny models and evaluate them at lengths they were not trained at.

    posenc lab train --scheme rope --task lm --steps 400 --seed 0 --out rope.pt   # one checkpoint
    posenc lab train --all                    # the twelve shipped checkpoints and results.json (make lab)
    posenc lab eval --scheme alibi --lengths 64,128,512 --mode nonoverlapping
    posenc lab eval --scheme rope --scaling yarn --factor 4 --beta-fast 16 --json

``train`` writes a checkpoint (default: the shipped one of the scheme and task, :mod:`posenc_lab.checkpoints`)
with a progress bar on stderr; Ctrl-C writes nothing and exits 130. Where it writes is checked before any training
(:func:`posenc_lab.checkpoints.check_target`: a new name in a writable folder, or a lab checkpoint to replace; never
a device, a link, a folder or a file of another kind), and a disk that fails while writing is one line too.
``eval`` prints one table, or with ``--json`` one JSON object (never NaN: a missing or infinite number is null).
RoPE scaling (``--scaling``) is built as the config.json reader builds it (:func:`posenc_lab.scaling.rope_scaling`);
its keys' options come from :data:`posenc_core.rope.scaling_keys.SCALING_KEYS`. Every size a run or an evaluation
may ask for is bounded (:mod:`posenc_lab.limits`, stated in ``--help``) and checked before any work. Bad input: one
line ``posenc lab: ...`` on stderr, status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from posenc.commands.lab_progress import Progress, duration
from posenc_core.device import resolve_device
from posenc_core.rope.scaling_keys import SCALING_KEYS, keys_of
from posenc_lab import checkpoints, results, targets
from posenc_lab.evaluate import MODES, check_work, evaluate
from posenc_lab.limits import (
    MAX_BATCH_SIZE,
    MAX_CHECKPOINT_BYTES,
    MAX_EVAL_SCORES,
    MAX_LENGTH,
    MAX_LENGTHS,
    MAX_SEED,
    MAX_STEPS,
    MIN_LENGTH,
    SIZE_BOUNDS,
)
from posenc_lab.scaling import SCALING_TYPES, rope_scaling
from posenc_lab.schemes import SCHEMES
from posenc_lab.train import DEFAULT_STEPS, TASKS, TrainSettings, train_checkpoint

INTERRUPTED = 130  # the shell's status for a process stopped by Ctrl-C (128 + SIGINT)
USAGE_ERROR = 2
FIXED_KEYS = ("factor", "original_max_position_embeddings", "rope_theta", "partial_rotary_factor")
"""Scaling keys without an option of their own: ``--factor``, and the three the lab's model itself sets."""
KEY_OPTIONS = tuple(name for name in SCALING_KEYS if name not in FIXED_KEYS)
"""The scaling keys given as ``--beta-fast`` etc., in the core's order."""


TRAIN_BOUNDS = (
    f"Bounds, checked before training: --steps 1 to {MAX_STEPS:,}, --batch-size 1 to {MAX_BATCH_SIZE:,}, --seed 0 "
    f"to {MAX_SEED:,}. Past them: one line, status 2."
)
EVAL_BOUNDS = (
    f"Bounds, checked before evaluating: lengths {MIN_LENGTH} to {MAX_LENGTH:,} tokens, each evaluated once, at most "
    f"{MAX_LENGTHS} different ones, and at most {MAX_EVAL_SCORES:,} attention scores in all (sequences x length^2 x "
    "heads x layers: for the default model, two lm lengths of 4,096 tokens, or the copy task up to 724 tokens, 361 "
    f"letters). A checkpoint is read only if it is at most {MAX_CHECKPOINT_BYTES:,} bytes, its zip inflates to no "
    "more, and its model's sizes are within "
    + ", ".join(f"{name} {least:,}-{most:,}" for name, (least, most) in SIZE_BOUNDS.items())
    + ". Past them: one line, status 2."
)


class UsageError(Exception):
    """Bad input: reported as one line on stderr with status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse prints its usage and exits; one line is clearer
        raise UsageError(message)


def main(argv: list[str] | None = None) -> int:
    """Run ``posenc lab`` on ``argv``: 0 on success, 2 on bad input, 130 when interrupted."""
    try:
        args = parser().parse_args(argv)
        if args.command is None:
            raise UsageError("choose a command: train or eval (posenc lab --help)")
        return args.run(args)
    except (UsageError, ValueError) as error:  # CheckpointError is a ValueError
        print(f"posenc lab: {error}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:  # training handles its own (it says what was not written); this is eval's
        print("posenc lab: interrupted", file=sys.stderr)
        return INTERRUPTED


def parser() -> argparse.ArgumentParser:
    """The ``posenc lab`` parser, its two commands, and one option per scaling key."""
    top = _Parser(prog="posenc lab", description="Train the length lab's models and evaluate them at other lengths.")
    commands = top.add_subparsers(dest="command", metavar="{train,eval}")
    train = commands.add_parser(
        "train", help="train one scheme, or --all of them (the shipped checkpoints)", epilog=TRAIN_BOUNDS
    )
    train.add_argument("--scheme", choices=SCHEMES, help="the position scheme to train")
    train.add_argument("--all", action="store_true", help="every scheme on both tasks, then results.json")
    train.add_argument("--task", choices=TASKS, help="lm (the generated text, the default) or copy")
    steps = f"optimiser steps, 1 to {MAX_STEPS:,} (default per task: {DEFAULT_STEPS})"
    train.add_argument("--steps", type=int, help=steps)
    batch = f"sequences per step, 1 to {MAX_BATCH_SIZE:,} (default 32)"
    train.add_argument("--batch-size", type=int, default=32, help=batch)
    seed = f"initial weights and batch order, 0 to {MAX_SEED:,} (default 0)"
    train.add_argument("--seed", type=int, default=0, help=seed)
    out = (
        "checkpoint file (with --all: a folder); default: the shipped one. A new name in a writable folder, or a "
        "lab checkpoint to replace: never a link, a folder, a device or another kind of file"
    )
    train.add_argument("--out", help=out)
    train.set_defaults(run=run_train)
    check = commands.add_parser(
        "eval", help="a checkpoint's loss (and copy accuracy) at several lengths", epilog=EVAL_BOUNDS
    )
    check.add_argument("--scheme", choices=SCHEMES, help="the shipped checkpoint's scheme (or give --checkpoint)")
    check.add_argument("--task", choices=TASKS, help="lm or copy (default: the checkpoint's task, else lm)")
    check.add_argument("--checkpoint", type=Path, help="a checkpoint file (default: the shipped one)")
    lengths = (
        f"comma-separated token counts, {MIN_LENGTH} to {MAX_LENGTH:,}, each once, at most {MAX_LENGTHS} "
        "(default: 0.5 to 8 x L); bounded in all as below"
    )
    check.add_argument("--lengths", type=_lengths, help=lengths)
    check.add_argument("--mode", choices=MODES, default="sliding", help="how the lm text is cut into windows")
    check.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    scaling = check.add_argument_group("RoPE scaling at evaluation (rope only, no retraining)")
    scaling.add_argument("--scaling", choices=SCALING_TYPES, metavar="ROPE_TYPE", help=", ".join(SCALING_TYPES))
    scaling.add_argument("--factor", type=float, help=_help(SCALING_KEYS["factor"].meaning))
    for name in KEY_OPTIONS:
        key = SCALING_KEYS[name]
        scaling.add_argument(_option(name), type=_KINDS[key.kind], dest=name, help=_help(key.meaning))
    check.set_defaults(run=run_eval)
    for command in (train, check):
        command.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"), help="default auto")
    return top


def run_train(args: argparse.Namespace) -> int:
    """Check the sizes and every file the run will write, then train (nothing is trained when one is refused)."""
    checked = _bounded(args)
    device = resolve_device(args.device)
    batch = {"batch_size": args.batch_size, "seed": args.seed}
    if args.all:
        if args.scheme or args.task:
            raise UsageError("--all trains every scheme on both tasks: leave out --scheme and --task")
        folder = Path(args.out) if args.out is not None else checkpoints.SHIPPED
        if args.out is not None and not args.out.strip():
            raise UsageError("--out needs a folder name (got '')")
        for task in TASKS:
            for scheme in SCHEMES:
                checkpoints.check_target(folder / checkpoints.shipped_path(scheme, task).name)
        targets.check_target(folder / results.RESULTS.name, results.holds_results, "results")
        return train_all(checked, batch, device, folder)
    if not args.scheme:
        raise UsageError("train needs --scheme (one of " + ", ".join(SCHEMES) + ") or --all")
    task = args.task or "lm"
    settings = TrainSettings(task=task, steps=checked or DEFAULT_STEPS[task], **batch)
    out = checkpoints.check_target(args.out if args.out is not None else checkpoints.shipped_path(args.scheme, task))
    checkpoint = _train_one(args.scheme, settings, device, out)
    return INTERRUPTED if checkpoint is None else 0


def _bounded(args: argparse.Namespace) -> int | None:
    """``--steps`` (None: the task's default), once it and ``--batch-size`` and ``--seed`` are within their bounds
    (stated in ``--help``); UsageError naming the option otherwise."""
    for option, value, least, most in (
        ("--steps", args.steps, 1, MAX_STEPS),
        ("--batch-size", args.batch_size, 1, MAX_BATCH_SIZE),
        ("--seed", args.seed, 0, MAX_SEED),
    ):
        if value is not None and not least <= value <= most:
            shown = f"{value}" if abs(value) < 10**30 else f"a {len(str(abs(value)))}-digit number"
            raise UsageError(f"{option} must be from {least:,} to {most:,} (got {shown})")
    return args.steps


def train_all(steps: int | None, batch: dict, device, folder: Path) -> int:
    """Every scheme on both tasks into ``folder`` (``<scheme>-<task>.pt``), then ``results.json`` beside them;
    ``batch`` holds the batch size and seed every run shares."""
    started, trained = time.perf_counter(), {}
    for task in TASKS:
        for scheme in SCHEMES:
            settings = TrainSettings(task=task, steps=steps or DEFAULT_STEPS[task], **batch)
            path = folder / checkpoints.shipped_path(scheme, task).name
            checkpoint = _train_one(scheme, settings, device, path, done=len(trained))
            if checkpoint is None:
                return INTERRUPTED
            trained[scheme, task] = checkpoints.load(path, device)  # as saved (float16): what the page loads
    print("evaluating every checkpoint for results.json ...", file=sys.stderr, flush=True)
    evaluated = time.perf_counter()
    try:
        written = results.save_results(results.build_results(trained), folder / results.RESULTS.name)
    except KeyboardInterrupt:
        print(f"posenc lab: interrupted: results.json not written ({len(trained)} checkpoints kept)", file=sys.stderr)
        return INTERRUPTED
    except OSError as error:
        raise UsageError(
            f"could not write results.json in {folder} ({_why(error)}; {len(trained)} checkpoints kept)"
        ) from None
    print(f"wrote {written} in {duration(time.perf_counter() - evaluated)}")
    total = time.perf_counter() - started
    print(f"total: {len(trained)} checkpoints and their results in {duration(total)} ({total:.0f} s) on {device.type}")
    return 0


def _train_one(scheme: str, settings: TrainSettings, device, out: Path, done: int = 0):
    """Train and save one checkpoint; None (nothing written) if interrupted; UsageError if the disk refuses it."""
    progress = Progress(f"{scheme}-{settings.task}")
    kept = f" ({done} checkpoints written before it are kept; no results.json)" if done else ""
    try:
        checkpoint = train_checkpoint(scheme, settings, device=device, on_step=progress)
        path = checkpoints.save(checkpoint, out)
    except KeyboardInterrupt:
        progress.close()
        print(f"posenc lab: interrupted: no checkpoint written{kept}", file=sys.stderr)
        return None
    except OSError as error:  # a full disk, a folder removed or made read-only while training
        progress.close()
        raise UsageError(f"could not write {out} ({_why(error)}): no checkpoint written{kept}") from None
    final = checkpoint.losses[-1]
    print(
        f"wrote {path}: {scheme} on {settings.task}, {settings.steps} steps in {checkpoint.seconds:.1f} s "
        f"on {checkpoint.device}, final loss {final:.3f}",
        flush=True,
    )
    return checkpoint


def _why(error: OSError) -> str:
    return error.strerror or type(error).__name__


def run_eval(args: argparse.Namespace) -> int:
    device = resolve_device(args.device)
    if args.checkpoint is None and args.scheme is None:
        raise UsageError("eval needs --scheme (one of " + ", ".join(SCHEMES) + ") or --checkpoint")
    path = args.checkpoint or checkpoints.shipped_path(args.scheme, args.task or "lm")
    checkpoint = checkpoints.load(path, device)
    scheme, task = checkpoint.config.scheme, args.task or checkpoint.settings.task
    if args.scheme and args.scheme != scheme:
        raise UsageError(f"checkpoint {path} was trained with scheme {scheme}, not {args.scheme}")
    lengths = results.lengths_for(checkpoint.config.max_len) if args.lengths is None else args.lengths
    lengths = check_work(checkpoint.config, task, lengths, args.mode)  # each once, the work bounded: before any
    scaling = scaling_of(args, checkpoint)
    if scaling is not None:
        checkpoint.model.scheme.scaling = scaling
    rows = [result.to_dict(task) for result in evaluate(checkpoint.model, task, lengths, args.mode)]
    report = {
        "scheme": scheme,
        "task": task,
        "train_length": checkpoint.config.max_len,
        "scaling": scaling,
        "mode": args.mode,
        "results": rows,
    }
    report = _finite(report)
    print(json.dumps(report, indent=1, allow_nan=False) if args.json else as_text(report))
    return 0


def scaling_of(args: argparse.Namespace, checkpoint: checkpoints.Checkpoint) -> dict | None:
    """The rope_scaling dict the options ask for (None without ``--scaling``); UsageError for a misplaced key."""
    given = {name: getattr(args, name) for name in KEY_OPTIONS if getattr(args, name) is not None}
    if args.scaling is None:
        misplaced = (["factor"] if args.factor is not None else []) + list(given)
        if misplaced:
            options = ", ".join(map(_option, misplaced))
            raise UsageError(f"{options} needs --scaling (one of {', '.join(SCALING_TYPES)})")
        return None
    if checkpoint.config.scheme != "rope":
        raise UsageError(f"--scaling applies to the rope scheme only (got {checkpoint.config.scheme})")
    for name in given:
        if name not in keys_of(args.scaling):
            reads = ", ".join(_option(key) for key in keys_of(args.scaling) if key not in FIXED_KEYS[1:])
            raise UsageError(f"{_option(name)} is not read by {args.scaling} scaling (it reads: {reads or 'none'})")
    return rope_scaling(checkpoint.config, args.scaling, args.factor, **given)


def as_text(report: dict) -> str:
    """The report as a small table: length, loss, perplexity (and copy accuracy), a note past a learned table."""
    scaling = report["scaling"]
    how = "no scaling" if scaling is None else f"scaling {scaling['rope_type']} (factor {scaling.get('factor')})"
    head = f"{report['scheme']} on {report['task']}, trained at {report['train_length']} tokens, {how}"
    copy = report["task"] == "copy"
    lines = [head + ("" if copy else f", {report['mode']} windows")]
    lines.append(f"{'length':>7} {'loss':>8} {'perplexity':>11}" + (f" {'accuracy':>9}" if copy else ""))
    for row in report["results"]:
        cells = f"{row['length']:>7} {_cell(row['loss'], 8, 3)} {_cell(row['perplexity'], 11, 2)}"
        if copy:
            cells += f" {_cell(row['accuracy'], 9, 3)}"
        lines.append(cells + (f"  {row['note']}" if row.get("past_table") else ""))
    return "\n".join(lines)


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float replaced by None (JSON has no NaN)."""
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _cell(value: float | None, width: int, digits: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def _lengths(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"lengths must be whole numbers separated by commas (got {text!r})") from None


def _floats(text: str) -> list[float]:
    try:
        return [float(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas (got {text!r})") from None


def _bool(text: str) -> bool:
    if text.lower() not in ("true", "false"):
        raise argparse.ArgumentTypeError(f"expected true or false (got {text!r})")
    return text.lower() == "true"


_KINDS = {"float": float, "int": int, "bool": _bool, "floats": _floats}


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def _help(meaning: str) -> str:
    return meaning.replace("%", "%%")


if __name__ == "__main__":
    sys.exit(main())
