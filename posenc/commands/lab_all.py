"""``posenc lab train --all``: every shipped model of the length lab for each seed, then ``results.json``.

For each seed: the six schemes on each task (:data:`posenc_lab.settings.TASKS`), the RoPE language model
fine-tuned at s·L under each of :data:`posenc_lab.finetune.FINETUNE_METHODS`, and LongRoPE's factors searched for
it (:mod:`posenc_lab.longrope_search`); then one ``results.json`` of every seed
(:func:`posenc_lab.results.build_results`).
With ``resume``, a checkpoint already in the folder that was trained with the same settings is read instead of
trained again (an interrupted ``make lab`` goes on where it stopped). Ctrl-C keeps every checkpoint written.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from posenc.commands.lab_progress import Progress, duration
from posenc_lab import checkpoints, results
from posenc_lab.finetune import FINETUNE_METHODS, FINETUNE_STEPS, finetune, finetune_settings, rope_type_of
from posenc_lab.longrope_search import GENERATIONS, search
from posenc_lab.schemes import SCHEMES
from posenc_lab.settings import TASKS, TrainSettings
from posenc_lab.train import DEFAULT_STEPS, train_checkpoint


class Interrupted(Exception):
    """Ctrl-C during the run; ``kept`` checkpoints were written before it."""

    def __init__(self, kept: int):
        super().__init__(kept)
        self.kept = kept


@dataclass(frozen=True)
class Plan:
    """What ``--all`` makes: ``seeds``, each task's steps (``steps`` for every task and fine-tune when given, as a
    quick trial of the whole run: it also bounds the LongRoPE search's generations), and whether to resume."""

    seeds: tuple[int, ...]
    steps: int | None
    batch_size: int
    folder: Path
    resume: bool = False

    def settings(self, task: str, seed: int) -> TrainSettings:
        return TrainSettings(task=task, steps=self.steps or DEFAULT_STEPS[task], batch_size=self.batch_size, seed=seed)

    def paths(self) -> list[Path]:
        """Every file the run writes, checkpoints first."""
        written = [
            self.folder / checkpoints.shipped_path(scheme, task, seed).name
            for seed in self.seeds
            for task in TASKS
            for scheme in SCHEMES
        ]
        written += [
            self.folder / checkpoints.finetuned_path(method, seed).name
            for seed in self.seeds
            for method in FINETUNE_METHODS
        ]
        return written


def _reusable(path: Path, wanted: Callable[[checkpoints.Checkpoint], bool], device) -> checkpoints.Checkpoint | None:
    """The checkpoint at ``path`` if it reads and is the one ``wanted`` (else None: train it)."""
    if not path.exists():
        return None
    try:
        checkpoint = checkpoints.load(path, device)
    except checkpoints.CheckpointError:
        return None
    return checkpoint if wanted(checkpoint) else None


def _kept_or_trained(plan: Plan, path: Path, label: str, wanted, train, device) -> checkpoints.Checkpoint:
    """The checkpoint at ``path``: kept when resuming and it is the one ``wanted``, else ``train(on_step)``, saved
    and read back as saved (float16: what the page loads)."""
    kept = _reusable(path, wanted, device) if plan.resume else None
    if kept is not None:
        print(f"kept {path} (trained with the same settings)", flush=True)
        return kept
    progress = Progress(label)
    try:
        trained = train(progress)
    finally:
        progress.close()
    checkpoints.save(trained, path)
    print(
        f"wrote {path}: {label}, {trained.settings.steps} steps in {trained.seconds:.1f} s on {trained.device}, "
        f"final loss {trained.losses[-1]:.3f}",
        flush=True,
    )
    return checkpoints.load(path, device)


def train_seed(plan: Plan, seed: int, device, done: list[Path]) -> results.SeedModels:
    """One seed's checkpoints (trained, or read when resuming), fine-tunes and LongRoPE search."""
    held: dict[tuple[str, str], checkpoints.Checkpoint] = {}
    for task in TASKS:
        for scheme in SCHEMES:
            settings = plan.settings(task, seed)
            path = plan.folder / checkpoints.shipped_path(scheme, task, seed).name
            held[scheme, task] = _kept_or_trained(
                plan,
                path,
                f"{scheme} on {task}, seed {seed}",
                lambda cp, scheme=scheme, settings=settings: cp.config.scheme == scheme and cp.settings == settings,
                lambda on_step, scheme=scheme, settings=settings: train_checkpoint(
                    scheme, settings, device=device, on_step=on_step
                ),
                device,
            )
            done.append(path)
    finetuned = {}
    steps = min(plan.steps, FINETUNE_STEPS) if plan.steps else FINETUNE_STEPS
    settings = finetune_settings(held["rope", "lm"], steps=steps)
    for method in FINETUNE_METHODS:
        path = plan.folder / checkpoints.finetuned_path(method, seed).name
        finetuned[method] = _kept_or_trained(
            plan,
            path,
            f"rope fine-tuned under {method} scaling, seed {seed}",
            lambda cp, method=method: cp.settings == settings and rope_type_of(cp) == method,
            lambda on_step, method=method: finetune(
                held["rope", "lm"], method, steps=steps, device=device, on_step=on_step
            ),
            device,
        )
        done.append(path)
    generations = min(plan.steps, GENERATIONS) if plan.steps else GENERATIONS
    started = time.perf_counter()
    found = search(held["rope", "lm"], seed=seed, generations=generations)
    print(
        f"LongRoPE search, seed {seed}: {found.evaluated} candidates in {duration(time.perf_counter() - started)}, "
        f"loss {found.loss:.3f} at 4L on the search text (PI {found.starts['pi']:.3f}, NTK {found.starts['ntk']:.3f}, "
        f"YaRN {found.starts['yarn']:.3f})",
        flush=True,
    )
    return results.SeedModels(held, finetuned, found)


def train_all(plan: Plan, device) -> int:
    """Everything :class:`Plan` names into its folder, then ``results.json``; 0, or raises :class:`Interrupted`."""
    started, done, by_seed = time.perf_counter(), [], {}
    try:
        for seed in plan.seeds:
            by_seed[seed] = train_seed(plan, seed, device, done)
        print("evaluating every checkpoint for results.json ...", file=sys.stderr, flush=True)
        evaluated = time.perf_counter()
        written = results.save_results(results.build_results(by_seed), plan.folder / results.RESULTS.name)
    except KeyboardInterrupt:
        raise Interrupted(len(done)) from None
    print(f"wrote {written} in {duration(time.perf_counter() - evaluated)}")
    total = time.perf_counter() - started
    print(
        f"total: {len(done)} checkpoints of {len(plan.seeds)} seeds and their results in {duration(total)} "
        f"({total:.0f} s) on {device.type}"
    )
    return 0
