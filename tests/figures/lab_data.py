"""A small lab folder for the Length lab's tests: a made-up ``results.json`` (numbers chosen so that every figure's
branches show: NoPE and sinusoidal break past L, the learned table stops at L) and untrained checkpoints, written
in a moment (no training)."""

from __future__ import annotations

import math
from pathlib import Path

import torch

from posenc_lab import checkpoints
from posenc_lab.checkpoints import Checkpoint
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.results import FORMAT, lengths_for, save_results, seed_view
from posenc_lab.scaling import SCALING_TYPES
from posenc_lab.train import TrainSettings

L = 64
SCHEMES = ("nope", "sinusoidal", "learned", "t5", "alibi", "rope")
GROWTH = {"nope": 0.5, "sinusoidal": 1.0, "learned": 0.0, "t5": 0.05, "alibi": 0.0, "rope": 0.3}  # loss per doubling
LOSS_AT_L = 1.5


def _row(scheme: str, length: int, task: str = "lm", growth: dict = GROWTH) -> dict:
    if scheme == "learned" and length > L:
        return {"length": length, "loss": None, "perplexity": None, "past_table": True, "note": "past the table"}
    loss = LOSS_AT_L + growth[scheme] * max(math.log2(length / L), 0)
    row = {"length": length, "loss": loss, "perplexity": math.exp(loss)}
    if task == "copy":
        row |= {"accuracy": 1.0 if length <= L else max(0.0, 1 - growth[scheme]), "letters": (length - 1) // 2}
    return row


def _shifted(row: dict, by: float = 0.1) -> dict:
    """The row a worse cut gives: ``by`` more loss (none where there is none)."""
    if row["loss"] is None:
        return row
    return {**row, "loss": row["loss"] + by, "perplexity": math.exp(row["loss"] + by)}


def full_results(growth: dict[str, float] | None = None) -> dict:
    """The made-up results file, one seed (``growth`` overrides the loss added per doubling past L)."""
    growth = {**GROWTH, **(growth or {})}
    lengths = lengths_for(L)
    lm = {scheme: [_row(scheme, n, growth=growth) for n in lengths] for scheme in SCHEMES}
    positions = {
        scheme: None if scheme == "learned" else [LOSS_AT_L + growth[scheme] * (p >= L) for p in range(8 * L)]
        for scheme in SCHEMES
    }
    scaling_rows = {
        kind: [{**_row("rope", n), "loss": LOSS_AT_L + index * 0.01} for n in lengths]
        for index, kind in enumerate(SCALING_TYPES)
    }
    seed = {
        "lm": {"sliding": lm, "nonoverlapping": {s: [_shifted(r) for r in rows] for s, rows in lm.items()}},
        "copy": {scheme: [_row(scheme, n, "copy", growth) for n in COPY_LENGTHS] for scheme in SCHEMES},
        "positions": {"length": 8 * L, "loss": positions},
        "scaling": {"factor": 4.0, "mode": "sliding", "rows": scaling_rows},
    }
    return {
        "format": FORMAT,
        "seeds": [0],
        "train_length": L,
        "lengths": lengths,
        "copy_letters": 20,
        "copy_lengths": COPY_LENGTHS,
        "runs": [],
        "by_seed": {"0": seed},
    }


def results(growth: dict[str, float] | None = None) -> dict:
    """The made-up results of the one seed, as the figures read them (:func:`posenc_lab.results.seed_view`)."""
    return seed_view(full_results(growth))


COPY_LENGTHS = [21, 41, 61, 81, 121, 161]  # strings of 10 to 80 letters, trained up to 20


def make_folder(folder: Path, schemes=("rope", "learned", "alibi")) -> Path:
    """``folder`` with the made-up results and an untrained lm checkpoint of each of ``schemes``."""
    folder.mkdir(parents=True, exist_ok=True)
    save_results(full_results(), folder / "results.json")
    torch.manual_seed(0)
    for scheme in schemes:
        model = LabModel(LabConfig(scheme=scheme, max_len=L)).eval()
        checkpoints.save(Checkpoint(model, TrainSettings(task="lm", steps=1)), folder / checkpoints.shipped_path(scheme, "lm").name)
    return folder
