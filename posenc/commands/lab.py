"""``posenc lab``: train the length lab's tiny models and evaluate them at lengths they were not trained at.

    posenc lab train --scheme rope --task lm --steps 400 --seed 0 --out rope.pt   # one checkpoint
    posenc lab train --all                    # every shipped checkpoint, three seeds, and results.json (make lab)
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
from pathlib import Path
from typing import Any

from posenc.commands import lab_all
from posenc.commands.lab_progress import Progress
from posenc_core.device import resolve_device
from posenc_core.rope.scaling_keys import SCALING_KEYS, keys_of
from posenc_lab import checkpoints, results, targets
from posenc_lab.evaluate import MODES, SCORED_TOKENS, check_work, evaluate, longest_fitting
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
from posenc_lab.model import LabConfig
from posenc_lab.scaling import SCALING_TYPES, rope_scaling
from posenc_lab.schemes import SCHEMES
from posenc_lab.train import COPY_LETTERS, DEFAULT_STEPS, TASKS, TrainSettings, train_checkpoint

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
_LONGEST = {task: longest_fitting(LabConfig(), task) for task in TASKS}
EVAL_BOUNDS = (
    f"Bounds, checked before evaluating: lengths {MIN_LENGTH} to {MAX_LENGTH:,} tokens, each evaluated once, at most "
    f"{MAX_LENGTHS} different ones, and at most {MAX_EVAL_SCORES:,} attention scores in all (sequences x length^2 x "
    f"heads x layers: for the default model, {SCORED_TOKENS:,} lm tokens scored per length, one lm length up to "
    f"{_LONGEST['lm']:,} tokens, the copy task up to {_LONGEST['copy']:,} tokens, {(_LONGEST['copy'] - 1) // 2:,} "
    f"letters, or the passkey task up to {_LONGEST['passkey']:,}). A checkpoint is read only if it is at most "
    f"{MAX_CHECKPOINT_BYTES:,} bytes, its zip inflates to no "
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
    train.add_argument(
        "--all",
        action="store_true",
        help="every scheme on every task for each of --seeds, the RoPE fine-tunes and LongRoPE search, then "
        "results.json",
    )
    train.add_argument("--task", choices=TASKS, help="lm (the generated text, the default), copy or passkey")
    seeds = "with --all: comma-separated seeds (default: " + ",".join(map(str, results.SEEDS)) + ", the shipped ones)"
    train.add_argument("--seeds", type=_seeds, default=results.SEEDS, help=seeds)
    resume = "with --all: keep a checkpoint already in the folder that was trained with the same settings"
    train.add_argument("--resume", action="store_true", help=resume)
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
    shipped_seed = "which shipped seed's checkpoint (default 0; one of " + ", ".join(map(str, results.SEEDS)) + ")"
    check.add_argument("--seed", type=int, choices=results.SEEDS, default=0, help=shipped_seed)
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
    if args.all:
        if args.scheme or args.task:
            raise UsageError("--all trains every scheme on every task: leave out --scheme and --task")
        if args.out is not None and not args.out.strip():
            raise UsageError("--out needs a folder name (got '')")
        folder = Path(args.out) if args.out is not None else checkpoints.SHIPPED
        plan = lab_all.Plan(tuple(args.seeds), checked, args.batch_size, folder, args.resume)
        for path in plan.paths():
            checkpoints.check_target(path)
        targets.check_target(folder / results.RESULTS.name, results.holds_results, "results")
        try:
            return lab_all.train_all(plan, device)
        except lab_all.Interrupted as stop:
            print(f"posenc lab: interrupted: results.json not written ({stop.kept} checkpoints kept)", file=sys.stderr)
            return INTERRUPTED
        except OSError as error:
            raise UsageError(f"could not write in {folder} ({_why(error)}); checkpoints written are kept") from None
    if not args.scheme:
        raise UsageError("train needs --scheme (one of " + ", ".join(SCHEMES) + ") or --all")
    task = args.task or "lm"
    steps = checked or DEFAULT_STEPS[task]
    settings = TrainSettings(task=task, steps=steps, batch_size=args.batch_size, seed=args.seed)
    default = checkpoints.shipped_path(args.scheme, task, args.seed)
    out = checkpoints.check_target(args.out if args.out is not None else default)
    checkpoint = _train_one(args.scheme, settings, device, out)
    return INTERRUPTED if checkpoint is None else 0


def _bounded(args: argparse.Namespace) -> int | None:
    """``--steps`` (None: the task's default), once it and ``--batch-size`` and the seeds are within their bounds
    (stated in ``--help``); UsageError naming the option otherwise."""
    for option, value, least, most in (
        ("--steps", args.steps, 1, MAX_STEPS),
        ("--batch-size", args.batch_size, 1, MAX_BATCH_SIZE),
        ("--seed", args.seed, 0, MAX_SEED),
        *(("--seeds", seed, 0, MAX_SEED) for seed in args.seeds),
    ):
        if value is not None and not least <= value <= most:
            shown = f"{value}" if abs(value) < 10**30 else f"a {len(str(abs(value)))}-digit number"
            raise UsageError(f"{option} must be from {least:,} to {most:,} (got {shown})")
    return args.steps


def _train_one(scheme: str, settings: TrainSettings, device, out: Path):
    """Train and save one checkpoint; None (nothing written) if interrupted; UsageError if the disk refuses it."""
    progress = Progress(f"{scheme}-{settings.task}")
    try:
        checkpoint = train_checkpoint(scheme, settings, device=device, on_step=progress)
        path = checkpoints.save(checkpoint, out)
    except KeyboardInterrupt:
        progress.close()
        print("posenc lab: interrupted: no checkpoint written", file=sys.stderr)
        return None
    except OSError as error:  # a full disk, a folder removed or made read-only while training
        progress.close()
        raise UsageError(f"could not write {out} ({_why(error)}): no checkpoint written") from None
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
    if args.checkpoint is not None and args.seed != 0:
        raise UsageError("--seed chooses a shipped checkpoint: leave it out with --checkpoint")
    path = args.checkpoint or checkpoints.shipped_path(args.scheme, args.task or "lm", args.seed)
    checkpoint = checkpoints.load(path, device)
    scheme, task = checkpoint.config.scheme, args.task or checkpoint.settings.task
    if args.scheme and args.scheme != scheme:
        raise UsageError(f"checkpoint {path} was trained with scheme {scheme}, not {args.scheme}")
    lengths = default_lengths(checkpoint.config.max_len, task) if args.lengths is None else args.lengths
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


def default_lengths(train_length: int, task: str) -> list[int]:
    """The lengths the lab's results use for ``task``: strings of half to four times the trained letters for copy
    (:func:`posenc_lab.results.copy_lengths_for`), else half to eight times L."""
    if task == "copy":
        return results.copy_lengths_for(min(COPY_LETTERS, (train_length - 1) // 2))
    return results.lengths_for(train_length)


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


def _seeds(text: str) -> tuple[int, ...]:
    try:
        seeds = tuple(dict.fromkeys(int(part) for part in text.split(",")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds must be comma-separated whole numbers (got {text!r})") from None
    return seeds


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
