"""The lab's results: every shipped checkpoint of every seed evaluated the same way, in one JSON file the page
draws first.

``posenc lab train --all`` (``make lab``) trains the shipped checkpoints for each seed of :data:`SEEDS` (six schemes
on three tasks, the RoPE language model fine-tuned under each of :data:`~posenc_lab.finetune.FINETUNE_METHODS`, and
LongRoPE's factors searched), then writes ``posenc_lab/shipped/results.json`` with :func:`build_results`; the
Length lab page reads it with :func:`load_results` and so draws its first view without running a model. Layout::

    {"format": 2, "seeds": [0, 1, 2], "train_length": L, "lengths": [...], "copy_letters": n,
     "copy_lengths": [...], "scored_tokens": 8192, "examples": {"copy": 64, "passkey": 60},
     "runs": [{"scheme", "task", "steps", "seed", "seconds", "device", "final_loss", "curve", "method"?}, ...],
     "by_seed": {"0": {
         "lm": {"sliding": {scheme: [row, ...]}, "nonoverlapping": {scheme: [row, ...]}},
         "copy": {scheme: [row, ...]},
         "passkey": {scheme: [row, ...]},
         "positions": {"length": n, "loss": {scheme: [loss at position 0..n-1] or null}},
         "scaling": {"factor": F, "mode": "sliding", "rows": {rope_type: [row, ...]}},
         "passkey_scaling": {"factor": F, "rows": {rope_type: [row, ...]}},
         "finetune": {"factor": F, "steps": n, "length": F·L, "rows": {method: [row, ...]}},
         "longrope": {"factors": [...], "loss", "history": [...], "starts": {...}, "evaluated": n}}, ...}}

Each row is :meth:`posenc_lab.evaluate.LengthResult.to_dict`: ``{"length", "loss", "loss_se", "perplexity"}``, with
``"accuracy"``, ``"accuracy_se"`` and ``"letters"`` (copy) or ``"distance"`` (passkey), and ``"past_table"`` /
``"note"`` where a learned table ran out. A run's ``curve`` is its training loss averaged over at most
:data:`CURVE_POINTS` equal spans of steps. :func:`seed_view` gives one seed's results in the layout of a single run
(the tables of ``by_seed[seed]`` beside the shared keys). LongRoPE's scaling row uses the factors searched for that
seed (:mod:`posenc_lab.longrope_search`); the passkey model has no LongRoPE row (its factors would need a search on
the passkey model).
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from posenc_lab import targets
from posenc_lab.checkpoints import SHIPPED, Checkpoint, CheckpointError
from posenc_lab.data import PASSKEY_FIXED
from posenc_lab.evaluate import EXAMPLES, MODES, SCORED_TOKENS, evaluate, position_losses
from posenc_lab.longrope_search import SearchResult
from posenc_lab.scaling import SCALING_TYPES, rope_scaling
from posenc_lab.schemes import SCHEMES
from posenc_lab.train import COPY_LETTERS

FORMAT = 2
RESULTS = SHIPPED / "results.json"
SEEDS = (0, 1, 2)  # the shipped seeds: every checkpoint is trained once per seed
LENGTH_MULTIPLES = (0.5, 1, 1.5, 2, 3, 4, 6, 8)  # evaluation lengths, as multiples of the trained length
SCALING_FACTOR = 4.0  # the factor the shipped scaling rows use
SCALING_TOKENS = SCORED_TOKENS  # tokens scored per length under scaling, as everywhere
CURVE_POINTS = 100  # a run's training curve, averaged into at most this many spans


@dataclass
class SeedModels:
    """What one seed's results are built from: checkpoints keyed by (scheme, task), the RoPE language model
    fine-tuned under each method (keyed by rope_type), and LongRoPE's searched factors."""

    checkpoints: dict[tuple[str, str], Checkpoint]
    finetuned: dict[str, Checkpoint] = field(default_factory=dict)
    longrope: SearchResult | None = None


def copy_lengths_for(train_letters: int) -> list[int]:
    """The copy task's lengths in tokens (2n + 1) for strings of half to four times ``train_letters`` letters."""
    return [2 * max(round(train_letters * multiple), 1) + 1 for multiple in LENGTH_MULTIPLES if multiple <= 4]


def lengths_for(train_length: int) -> list[int]:
    """The eight evaluation lengths: half to eight times ``train_length`` (at least 3 tokens)."""
    return [max(round(train_length * multiple), 3) for multiple in LENGTH_MULTIPLES]


def passkey_lengths_for(train_length: int) -> list[int]:
    """The evaluation lengths (:func:`lengths_for`) long enough to hold a passkey example."""
    return [length for length in lengths_for(train_length) if length + 1 >= PASSKEY_FIXED]


def rows(checkpoint: Checkpoint, task: str, lengths, mode: str = "sliding", **options) -> list[dict]:
    return [result.to_dict(task) for result in evaluate(checkpoint.model, task, lengths, mode, **options)]


def scaled_rows(
    checkpoint: Checkpoint,
    rope_type: str,
    factor: float,
    lengths,
    mode: str = "sliding",
    task: str = "lm",
    scored_tokens: int = SCALING_TOKENS,
    **keys,
) -> list[dict]:
    """The RoPE checkpoint's ``task`` rows under ``rope_type`` at ``factor`` (with ``keys``, e.g. LongRoPE's
    ``long_factor``; no retraining), ``scored_tokens`` per lm length (:data:`SCALING_TOKENS` for the shipped rows; a
    page evaluating another factor live may score fewer, and says so); the scaling is put back."""
    scheme = checkpoint.model.scheme
    before = scheme.scaling
    scheme.scaling = rope_scaling(checkpoint.config, rope_type, None if rope_type == "default" else factor, **keys)
    try:
        options = {"scored_tokens": scored_tokens} if task == "lm" else {}
        return rows(checkpoint, task, lengths, mode, **options)
    finally:
        scheme.scaling = before


def longrope_keys(search: SearchResult) -> dict:
    """The ``short_factor`` and ``long_factor`` of a longrope block from a search's factors."""
    return {"short_factor": [1.0] * len(search.factors), "long_factor": list(search.factors)}


def curve(losses: list[float], points: int = CURVE_POINTS) -> list[float]:
    """``losses`` averaged over at most ``points`` equal spans of steps (rounded to 4 decimals)."""
    if not losses:
        return []
    spans = min(points, len(losses))
    edges = [round(i * len(losses) / spans) for i in range(spans + 1)]
    return [round(sum(losses[a:b]) / (b - a), 4) for a, b in itertools.pairwise(edges)]


def _run(scheme: str, checkpoint: Checkpoint, method: str | None = None) -> dict:
    run = {
        "scheme": scheme,
        "task": checkpoint.settings.task,
        "steps": checkpoint.settings.steps,
        "seed": checkpoint.settings.seed,
        "seconds": round(checkpoint.seconds, 1),
        "device": checkpoint.device,
        "final_loss": checkpoint.losses[-1] if checkpoint.losses else None,
        "curve": curve(checkpoint.losses),
    }
    if method is not None:
        run["method"] = method
        run["length"] = checkpoint.settings.length
    return run


def seed_results(models: SeedModels, train_length: int, lengths: list[int], copy_lengths: list[int]) -> dict:
    """One seed's tables (the ``by_seed`` entry of :func:`build_results`)."""
    held = models.checkpoints
    passkey_lengths = passkey_lengths_for(train_length)
    lm = {scheme: held[scheme, "lm"] for scheme in SCHEMES if (scheme, "lm") in held}
    seed: dict = {"lm": {mode: {scheme: rows(cp, "lm", lengths, mode) for scheme, cp in lm.items()} for mode in MODES}}
    seed["copy"] = {
        scheme: rows(held[scheme, "copy"], "copy", copy_lengths) for scheme in SCHEMES if (scheme, "copy") in held
    }
    seed["passkey"] = {
        scheme: rows(held[scheme, "passkey"], "passkey", passkey_lengths)
        for scheme in SCHEMES
        if (scheme, "passkey") in held
    }
    longest = lengths[-1]
    seed["positions"] = {
        "length": longest,
        "loss": {scheme: _rounded(position_losses(cp.model, longest)) for scheme, cp in lm.items()},
    }
    kinds = [kind for kind in SCALING_TYPES if kind != "longrope" or models.longrope is not None]
    keys = {"longrope": longrope_keys(models.longrope)} if models.longrope is not None else {}
    if "rope" in lm:
        seed["scaling"] = {
            "factor": SCALING_FACTOR,
            "mode": "sliding",
            "rows": {
                kind: scaled_rows(lm["rope"], kind, SCALING_FACTOR, lengths, **keys.get(kind, {})) for kind in kinds
            },
        }
    if ("rope", "passkey") in held:
        passkey = held["rope", "passkey"]
        seed["passkey_scaling"] = {
            "factor": SCALING_FACTOR,
            "rows": {
                kind: scaled_rows(passkey, kind, SCALING_FACTOR, passkey_lengths, task="passkey")
                for kind in SCALING_TYPES
                if kind != "longrope"
            },
        }
    if models.finetuned:
        first = next(iter(models.finetuned.values()))
        seed["finetune"] = {
            "factor": SCALING_FACTOR,
            "steps": first.settings.steps,
            "length": first.settings.length,
            "rows": {method: rows(cp, "lm", lengths, "sliding") for method, cp in models.finetuned.items()},
        }
    if models.longrope is not None:
        seed["longrope"] = asdict(models.longrope)
    return seed


def build_results(by_seed: Mapping[int, SeedModels]) -> dict:
    """The results JSON of each seed's models (every seed must hold at least one lm checkpoint, all of one L)."""
    if not by_seed:
        raise ValueError("by_seed must hold at least one seed's models")
    lm = [cp for models in by_seed.values() for (_, task), cp in models.checkpoints.items() if task == "lm"]
    if not lm or any(not any(task == "lm" for _, task in models.checkpoints) for models in by_seed.values()):
        raise ValueError("every seed's checkpoints must hold at least one lm checkpoint")
    train_length = lm[0].config.max_len
    if any(cp.config.max_len != train_length for cp in lm):
        raise ValueError("every lm checkpoint must have the same trained length (config.max_len)")
    lengths = lengths_for(train_length)
    train_letters = min(COPY_LETTERS, (train_length - 1) // 2)
    results: dict = {
        "format": FORMAT,
        "seeds": sorted(by_seed),
        "train_length": train_length,
        "lengths": lengths,
        "copy_letters": train_letters,
        "copy_lengths": copy_lengths_for(train_letters),
        "scored_tokens": SCORED_TOKENS,
        "examples": dict(EXAMPLES),
        "runs": [],
        "by_seed": {},
    }
    for seed in sorted(by_seed):
        models = by_seed[seed]
        results["runs"] += [_run(scheme, cp) for (scheme, _), cp in models.checkpoints.items()]
        results["runs"] += [_run("rope", cp, method) for method, cp in models.finetuned.items()]
        results["by_seed"][str(seed)] = seed_results(models, train_length, lengths, results["copy_lengths"])
    return results


SHARED = ("seeds", "train_length", "lengths", "copy_letters", "copy_lengths", "scored_tokens", "examples")


def seed_view(results: Mapping, seed: int | None = None) -> dict:
    """One seed's results (the first seed when None) in the layout of a single run: the shared keys and the
    tables of ``by_seed[seed]``, with ``runs`` of that seed only; ValueError for a seed the results lack."""
    seeds = results["seeds"]
    seed = seeds[0] if seed is None else seed
    if seed not in seeds:
        raise ValueError(f"seed must be one of {', '.join(map(str, seeds))} (got {seed!r})")
    view = {key: results[key] for key in SHARED if key in results}
    view["seed"] = seed
    view["runs"] = [run for run in results["runs"] if run["seed"] == seed]
    view.update(results["by_seed"][str(seed)])
    return view


def _rounded(values) -> list[float] | None:
    return None if values is None else [round(float(value), 4) for value in values]


def save_results(results: dict, path: str | os.PathLike = RESULTS) -> Path:
    """Write ``results`` as JSON atomically (a temporary file of its own beside ``path``, renamed over it), where
    :func:`posenc_lab.targets.check_target` allows: a new name, or lab results to replace (else TargetError, a
    ValueError)."""
    path = targets.check_target(path, holds_results, "results")
    text = json.dumps(results, indent=1) + "\n"
    return targets.write_atomically(path, lambda file: file.write(text.encode()))


def holds_results(path: Path) -> bool:
    """Whether ``path`` holds lab results of this format or an earlier one (a file ``make lab`` may replace)."""
    try:
        return json.loads(path.read_text()).get("format") in range(1, FORMAT + 1)
    except (OSError, ValueError, AttributeError):
        return False


def load_results(path: str | os.PathLike = RESULTS) -> dict:
    """The results JSON at ``path``; :class:`CheckpointError` (a ValueError) if missing or not ours."""
    path = Path(path)
    try:
        results = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        message = f"results {path} could not be read ({type(error).__name__}): run posenc lab train --all"
        raise CheckpointError(message) from None
    if not isinstance(results, dict) or results.get("format") != FORMAT:
        raise CheckpointError(f"results {path} are not lab results of format {FORMAT}")
    return results
