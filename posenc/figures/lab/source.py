"""Where the length lab's numbers come from: the shipped ``results.json`` and checkpoints of ``posenc_lab``.

:func:`folder` is the one place that says which folder: ``posenc_lab/shipped/``, or the folder named by the
environment variable ``POSENC_LAB_FOLDER`` (tests, and a lab trained elsewhere). Files are read once per change
of their modification time, so a server picks up results shipped after it started.
"""

from __future__ import annotations

import functools
import os
import threading
from pathlib import Path

from posenc_lab import checkpoints
from posenc_lab import results as lab_results
from posenc_lab.checkpoints import SHIPPED, Checkpoint, CheckpointError
from posenc_lab.results import load_results
from posenc_lab.schemes import SCHEMES

ENVIRONMENT = "POSENC_LAB_FOLDER"
SCHEME_ORDER = tuple(SCHEMES)  # nope, sinusoidal, learned, t5, alibi, rope
PROBED_SEED = 0  # the seed whose checkpoints the figures run (attention, pair norms, scaling at another factor)


def folder() -> Path:
    """The folder holding ``results.json`` and ``<scheme>-<task>.pt``."""
    return Path(os.environ.get(ENVIRONMENT) or SHIPPED)


def results_path() -> Path:
    return folder() / "results.json"


def checkpoint_path(scheme: str, task: str = "lm", seed: int = PROBED_SEED) -> Path:
    return folder() / checkpoints.shipped_path(scheme, task, seed).name


def _stamp(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return -1.0


def all_results() -> dict:
    """The lab's results of every seed (layout: :mod:`posenc_lab.results`); CheckpointError (a ValueError) when
    missing."""
    path = results_path()
    return _results(str(path), _stamp(path))


def results() -> dict:
    """The first shipped seed's results in the layout of one run (:func:`posenc_lab.results.seed_view`)."""
    return lab_results.seed_view(all_results())


def seed_views() -> list[dict]:
    """Every shipped seed's results, each in the layout of one run, in the order of ``results["seeds"]``."""
    everything = all_results()
    return [lab_results.seed_view(everything, seed) for seed in everything["seeds"]]


@functools.lru_cache(maxsize=4)
def _results(path: str, stamp: float) -> dict:
    return load_results(path)


def available() -> bool:
    """Whether the results can be read (the page draws its figures), else the figures say how to make them."""
    try:
        results()
    except CheckpointError:
        return False
    return True


def checkpoint(scheme: str, task: str = "lm") -> Checkpoint:
    """The trained model of ``scheme`` on ``task`` (on the CPU, eval mode); CheckpointError when missing."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)} (got {scheme!r})")
    path = checkpoint_path(scheme, task)
    return _checkpoint(str(path), _stamp(path))


@functools.lru_cache(maxsize=16)
def _checkpoint(path: str, stamp: float) -> Checkpoint:
    return checkpoints.load(path)


def missing_message() -> str:
    """Why there is nothing to draw, naming the file and the command that makes it."""
    try:
        results()
    except CheckpointError as error:
        return str(error)
    return ""


LIVE_TOKENS = 1024
"""Tokens scored per length when a page evaluates the RoPE model at a factor the results do not hold: seven
methods redraw in a few seconds (the shipped rows score :data:`posenc_lab.results.SCALING_TOKENS`), and the figure
says so."""

MODEL_LOCK = threading.Lock()
"""Held while a cached model runs: ``scaled_rows`` sets the RoPE model's scaling and puts it back, so two
sessions must not run the same model at once."""


def scaled_rows(rope_type: str, factor: float, mode: str) -> list[dict]:
    """The RoPE lm checkpoint's rows at the results' lengths under ``rope_type`` at ``factor`` (no retraining):
    the shipped rows when they are these, else evaluated now (cached per file, type, factor and mode); none for
    LongRoPE away from the shipped factor (its factors are searched per factor, :mod:`posenc_lab.longrope_search`)."""
    shipped = results().get("scaling", {})
    if shipped.get("factor") == factor and shipped.get("mode") == mode and rope_type in shipped.get("rows", {}):
        return shipped["rows"][rope_type]
    if rope_type == "default":  # no scaling: the same rows as the scheme's own
        return results()["lm"][mode]["rope"]
    if rope_type == "longrope":  # its factors are searched for the shipped factor only
        return []
    path = checkpoint_path("rope")
    return _scaled(str(path), _stamp(path), rope_type, float(factor), mode, tuple(results()["lengths"]))


def scaled_tables(rope_type: str, factor: float, mode: str) -> list[list[dict]]:
    """The RoPE lm model's rows under ``rope_type`` at ``factor``, one list per seed: every seed's shipped rows when
    the results hold this factor and mode, else the first seed's alone, evaluated now (:func:`scaled_rows`); the
    lists are empty where there is nothing to draw (LongRoPE away from its factor)."""
    views = seed_views()
    shipped = [view.get("scaling", {}) for view in views]
    if all(s.get("factor") == factor and s.get("mode") == mode and rope_type in s.get("rows", {}) for s in shipped):
        return [s["rows"][rope_type] for s in shipped]
    return [scaled_rows(rope_type, factor, mode)]


@functools.lru_cache(maxsize=256)
def _scaled(path: str, stamp: float, rope_type: str, factor: float, mode: str, lengths: tuple[int, ...]) -> list:
    with MODEL_LOCK:
        checkpoint = _checkpoint(path, stamp)
        return lab_results.scaled_rows(checkpoint, rope_type, factor, lengths, mode, scored_tokens=LIVE_TOKENS)
