"""The length lab on this machine: training speed per scheme and task, the time of one scheme's evaluation at the
eight default lengths, and what ``make lab`` (``posenc lab train --all``) should therefore take.

Training is timed for a short run per scheme and task (:data:`MEASURED_STEPS` steps after two warm-up steps) and
extrapolated to :data:`posenc_lab.train.DEFAULT_STEPS`: the shipped runs are too long to repeat in a benchmark, and
a step costs the same at step 30 as at step 400 (same shapes, same work). ``results.json``'s time is estimated
from the evaluations measured here, counted as :func:`posenc_lab.results.build_results` runs them.

Every time is taken twice: wall-clock, and the process's CPU time (``time.process_time``, all its threads). On a
machine busy with other work the wall-clock time grows with the load; the CPU time grows less (threads waiting on
each other still spend some), and on an idle machine the wall-clock time is at most about the CPU time, since
torch uses every core it is given. The fastest training step is kept too: the step least disturbed by other work.

    python -m bench.run --lab-only
"""

from __future__ import annotations

import itertools
import os
import resource
import sys
import time

import torch

from posenc_core.device import resolve_device
from posenc_lab.evaluate import evaluate, evaluation_tokens
from posenc_lab.model import LabModel
from posenc_lab.results import copy_lengths_for, lengths_for
from posenc_lab.scaling import SCALING_TYPES
from posenc_lab.schemes import SCHEMES
from posenc_lab.train import (
    COPY_LETTERS,
    DEFAULT_STEPS,
    TASKS,
    TrainSettings,
    default_config,
    train_checkpoint,
    training_text,
)

MEASURED_STEPS = 30  # timed steps per scheme and task
WARM_UP_STEPS = 2  # untimed steps first (allocations, the first batch's caches)
TARGETS = {"train_all_s": 20 * 60, "eval_s": 1.0}  # 12 checkpoints within 20 min; one scheme, 8 lengths, 1 s


def run(steps: int = MEASURED_STEPS) -> dict:
    """The lab's measures on the default device (the GPU if there is one), as plain JSON values."""
    device = resolve_device("auto")
    synchronize = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    load = os.getloadavg()
    started = time.perf_counter()
    training_text()  # the 1 MiB generated text, made once per process (--all pays it once too)
    text_s = time.perf_counter() - started
    training = [_train_rate(scheme, task, steps, device, synchronize) for task in TASKS for scheme in SCHEMES]
    evaluation = _eval_times(device, synchronize)
    train_all_s = text_s + sum(row["seconds_extrapolated"] for row in training)
    train_all_cpu_s = text_s + sum(row["cpu_seconds_extrapolated"] for row in training)
    train_all_fastest_s = text_s + sum(row["fastest_step_s"] * row["default_steps"] for row in training)
    results_s = _results_json_seconds(evaluation)
    results_cpu_s = _results_json_seconds(evaluation, "_cpu_s")
    return {
        "device": device.type,
        "gpu": torch.cuda.get_device_name(0) if device.type == "cuda" else None,
        "threads": torch.get_num_threads(),
        "load_average_1m": round(load[0], 2),
        "parameters": sum(p.numel() for p in LabModel(default_config("rope", device)).parameters()),
        "measured_steps": steps,
        "training_text_s": round(text_s, 2),
        "training": training,
        "train_all_s_extrapolated": round(train_all_s, 1),
        "eval": evaluation,
        "results_json_s_estimated": round(results_s, 1),
        "make_lab_s_estimated": round(train_all_s + results_s, 1),
        "train_all_cpu_s_extrapolated": round(train_all_cpu_s, 1),
        "train_all_fastest_s_extrapolated": round(train_all_fastest_s, 1),
        "results_json_cpu_s_estimated": round(results_cpu_s, 1),
        "make_lab_cpu_s_estimated": round(train_all_cpu_s + results_cpu_s, 1),
        "peak_memory_mb": round(_peak_memory_mb(device), 1),
        "targets": TARGETS,
    }


def _train_rate(scheme: str, task: str, steps: int, device, synchronize) -> dict:
    """Steps per second of ``scheme`` on ``task`` (after the warm-up), and the default run's extrapolated time."""
    marks = []

    def on_step(step, total, loss):
        synchronize()
        marks.append((time.perf_counter(), time.process_time()))

    settings = TrainSettings(task=task, steps=steps + WARM_UP_STEPS)
    train_checkpoint(scheme, settings, device=device, on_step=on_step)
    (wall_start, cpu_start), (wall_end, cpu_end) = marks[WARM_UP_STEPS - 1], marks[-1]
    rate, cpu_per_step = steps / (wall_end - wall_start), (cpu_end - cpu_start) / steps
    timed = [wall for wall, _ in marks[WARM_UP_STEPS - 1 :]]
    fastest = min(after - before for before, after in itertools.pairwise(timed))
    return {
        "scheme": scheme,
        "task": task,
        "steps_per_s": round(rate, 2),
        "cpu_s_per_step": round(cpu_per_step, 4),
        "default_steps": DEFAULT_STEPS[task],
        "seconds_extrapolated": round(DEFAULT_STEPS[task] / rate, 1),
        "cpu_seconds_extrapolated": round(DEFAULT_STEPS[task] * cpu_per_step, 1),
        "fastest_step_s": round(fastest, 4),
    }


def _eval_times(device, synchronize) -> dict:
    """One RoPE model (default size; untrained: the time does not depend on the weights) at the eight lengths."""
    model = LabModel(default_config("rope", device)).to(device).eval()
    lengths = lengths_for(model.config.max_len)
    evaluation_tokens()  # the held-out text, made and hash-checked once per process
    evaluate(model, "lm", lengths[:1], "sliding")  # warm-up
    copy_lengths = copy_lengths_for(min(COPY_LETTERS, (model.config.max_len - 1) // 2))  # the copy task's own
    times = {"scheme": "rope", "lengths": lengths, "copy_lengths": copy_lengths}
    for name, task, mode, at in (
        ("sliding", "lm", "sliding", lengths),
        ("nonoverlapping", "lm", "nonoverlapping", lengths),
        ("copy", "copy", "sliding", copy_lengths),
    ):
        synchronize()
        started, cpu_started = time.perf_counter(), time.process_time()
        evaluate(model, task, at, mode)
        synchronize()
        times[f"{name}_s"] = round(time.perf_counter() - started, 3)
        times[f"{name}_cpu_s"] = round(time.process_time() - cpu_started, 3)
    return times


def _results_json_seconds(evaluation: dict, unit: str = "_s") -> float:
    """``build_results``'s evaluations: every scheme's lm rows in both modes and its positions (about a
    nonoverlapping pass), the copy rows, and the RoPE model under every scaling type (sliding)."""
    sliding, nonoverlapping, copy = (evaluation[name + unit] for name in ("sliding", "nonoverlapping", "copy"))
    return len(SCHEMES) * (sliding + 2 * nonoverlapping + copy) + len(SCALING_TYPES) * sliding


def _peak_memory_mb(device) -> float:
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated() / 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux, bytes on macOS
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def render_markdown(lab: dict) -> list[str]:
    """The lab's section of bench/results.md: training per scheme and task, evaluation, ``make lab``'s time, each
    as wall-clock seconds on the machine as it was and as CPU seconds (about an idle machine's wall-clock)."""
    where = f"GPU {lab['gpu']}" if lab["gpu"] else f"CPU, {lab['threads']} threads, no GPU"
    lines = [
        f"Length lab on {where}, 1-minute load average {lab['load_average_1m']} when it started; the default "
        f"model ({lab['parameters']:,} parameters). Training is timed for {lab['measured_steps']} steps per scheme "
        "and task and **extrapolated** to the shipped steps. *wall* is the clock on the machine as it was; *CPU* "
        "is the process's CPU time (all threads), which other work on the machine inflates less (threads waiting "
        "on each other still spend it); on an idle machine the wall-clock time is at most about the CPU time. "
        "The fastest step is the one least disturbed by other work.",
        "",
        "| scheme | task | steps/s (wall) | CPU s per step | fastest step (s) | shipped steps "
        "| wall s (extrapolated) | CPU s (extrapolated) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in lab["training"]:
        lines.append(
            f"| {row['scheme']} | {row['task']} | {row['steps_per_s']} | {row['cpu_s_per_step']} | "
            f"{row['fastest_step_s']} | {row['default_steps']} | {row['seconds_extrapolated']} | "
            f"{row['cpu_seconds_extrapolated']} |"
        )
    evaluation, targets = lab["eval"], lab["targets"]
    lines.append("")
    for clock, suffix in (("wall", ""), ("CPU", "_cpu")):
        total = lab[f"make_lab{suffix}_s_estimated"]
        lines.append(
            f"- `make lab` ({clock}): {lab[f'train_all{suffix}_s_extrapolated'] / 60:.1f} min of training for 12 "
            f"checkpoints (extrapolated) + about {lab[f'results_json{suffix}_s_estimated']:.0f} s for results.json "
            f"(estimated) = **{total / 60:.1f} min** (target <= {targets['train_all_s'] / 60:.0f} min) "
            f"{_mark(total <= targets['train_all_s'])}"
        )
    lines.append(
        f"- Training at every scheme's fastest step (the least disturbed by other work): "
        f"{lab['train_all_fastest_s_extrapolated'] / 60:.1f} min for the 12 checkpoints (extrapolated)"
    )
    for mode in ("sliding", "nonoverlapping", "copy"):
        what = "copy task" if mode == "copy" else f"lm, {mode}"
        at = evaluation.get("copy_lengths", evaluation["lengths"]) if mode == "copy" else evaluation["lengths"]
        wall, cpu = evaluation[f"{mode}_s"], evaluation[f"{mode}_cpu_s"]
        lines.append(
            f"- One scheme ({evaluation['scheme']}) at the {len(at)} lengths {', '.join(map(str, at))} ({what}): "
            f"{wall:.2f} s wall "
            f"{_mark(wall <= targets['eval_s'])}, {cpu:.2f} s CPU {_mark(cpu <= targets['eval_s'])} "
            f"(target <= {targets['eval_s']:.0f} s)"
        )
    memory = "GPU memory allocated" if lab["device"] == "cuda" else "resident memory of the process"
    lines += [f"- Peak {memory}: {lab['peak_memory_mb']:.0f} MB", ""]
    return lines


def _mark(ok: bool) -> str:
    return "✅" if ok else "❌"
