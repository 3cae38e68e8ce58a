"""The lab's results: every shipped checkpoint evaluated the same way, in one JSON file the page draws first.

``posenc lab train --all`` trains the twelve checkpoints (six schemes, two tasks) and then writes
``posenc_lab/shipped/results.json`` with :func:`build_results`; the Length lab page reads it with
:func:`load_results` and so draws its first view without running a model. Layout::

    {"format": 1, "train_length": L, "lengths": [...], "copy_letters": n, "copy_lengths": [...],
     "runs":  [{"scheme", "task", "steps", "seed", "seconds", "device", "final_loss"}, ...],
     "lm":    {"sliding": {scheme: [row, ...]}, "nonoverlapping": {scheme: [row, ...]}},
     "copy":  {scheme: [row, ...]},
     "positions": {"length": n, "loss": {scheme: [loss at position 0..n-1] or null}},
     "scaling": {"factor": F, "mode": "sliding", "rows": {rope_type: [row, ...]}}}

``copy_letters`` is the longest training string of the copy task, ``copy_lengths`` its evaluation lengths in
tokens (strings of n/2 to 4n letters). Each row is :meth:`posenc_lab.evaluate.LengthResult.to_dict`:
``{"length", "loss", "perplexity"}``, with ``"accuracy"`` and ``"letters"`` for copy, and ``"past_table"`` /
``"note"`` where a learned table ran out.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from posenc_lab import targets
from posenc_lab.checkpoints import SHIPPED, Checkpoint, CheckpointError
from posenc_lab.evaluate import MODES, evaluate, position_losses
from posenc_lab.scaling import SCALING_TYPES, rope_scaling
from posenc_lab.schemes import SCHEMES
from posenc_lab.train import COPY_LETTERS

FORMAT = 1
RESULTS = SHIPPED / "results.json"
LENGTH_MULTIPLES = (0.5, 1, 1.5, 2, 3, 4, 6, 8)  # evaluation lengths, as multiples of the trained length
SCALING_FACTOR = 4.0  # the factor the shipped scaling rows use
SCALING_TOKENS = 1024  # tokens scored per length under scaling: seven methods redraw within about a second


def copy_lengths_for(train_letters: int) -> list[int]:
    """The copy task's lengths in tokens (2n + 1) for strings of half to four times ``train_letters`` letters."""
    return [2 * max(round(train_letters * multiple), 1) + 1 for multiple in LENGTH_MULTIPLES if multiple <= 4]


def lengths_for(train_length: int) -> list[int]:
    """The eight evaluation lengths: half to eight times ``train_length`` (at least 3 tokens)."""
    return [max(round(train_length * multiple), 3) for multiple in LENGTH_MULTIPLES]


def rows(checkpoint: Checkpoint, task: str, lengths, mode: str = "sliding", **options) -> list[dict]:
    return [result.to_dict(task) for result in evaluate(checkpoint.model, task, lengths, mode, **options)]


def scaled_rows(checkpoint: Checkpoint, rope_type: str, factor: float, lengths, mode: str = "sliding") -> list[dict]:
    """The RoPE checkpoint's lm rows under ``rope_type`` at ``factor`` (no retraining), :data:`SCALING_TOKENS`
    scored per length, the same for the shipped rows and a page's live ones; the scaling is put back."""
    scheme = checkpoint.model.scheme
    before = scheme.scaling
    scheme.scaling = rope_scaling(checkpoint.config, rope_type, None if rope_type == "default" else factor)
    try:
        return rows(checkpoint, "lm", lengths, mode, scored_tokens=SCALING_TOKENS)
    finally:
        scheme.scaling = before


def build_results(checkpoints: Mapping[tuple[str, str], Checkpoint]) -> dict:
    """The results JSON of ``checkpoints`` keyed by (scheme, task): every scheme of the lm task is required."""
    lm = {scheme: checkpoints[scheme, "lm"] for scheme in SCHEMES if (scheme, "lm") in checkpoints}
    if not lm:
        raise ValueError("checkpoints must hold at least one lm checkpoint")
    train_length = next(iter(lm.values())).config.max_len
    lengths = lengths_for(train_length)
    longest = lengths[-1]
    results: dict = {"format": FORMAT, "train_length": train_length, "lengths": lengths, "runs": []}
    for (scheme, task), checkpoint in checkpoints.items():
        results["runs"].append(
            {
                "scheme": scheme,
                "task": task,
                "steps": checkpoint.settings.steps,
                "seed": checkpoint.settings.seed,
                "seconds": round(checkpoint.seconds, 1),
                "device": checkpoint.device,
                "final_loss": checkpoint.losses[-1] if checkpoint.losses else None,
            }
        )
    results["lm"] = {mode: {scheme: rows(cp, "lm", lengths, mode) for scheme, cp in lm.items()} for mode in MODES}
    train_letters = min(COPY_LETTERS, (train_length - 1) // 2)
    results["copy_letters"], results["copy_lengths"] = train_letters, copy_lengths_for(train_letters)
    results["copy"] = {
        scheme: rows(checkpoints[scheme, "copy"], "copy", results["copy_lengths"])
        for scheme in SCHEMES
        if (scheme, "copy") in checkpoints
    }
    positions = {scheme: position_losses(cp.model, longest) for scheme, cp in lm.items()}
    results["positions"] = {
        "length": longest,
        "loss": {scheme: _rounded(loss) for scheme, loss in positions.items()},
    }
    if "rope" in lm:
        results["scaling"] = {
            "factor": SCALING_FACTOR,
            "mode": "sliding",
            "rows": {kind: scaled_rows(lm["rope"], kind, SCALING_FACTOR, lengths) for kind in SCALING_TYPES},
        }
    return results


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
    """Whether ``path`` holds lab results (:func:`load_results` reads it)."""
    try:
        load_results(path)
    except CheckpointError:
        return False
    return True


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
