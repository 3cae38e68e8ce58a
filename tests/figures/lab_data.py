"""A small lab folder for the Length lab's tests: a made-up ``results.json`` of three seeds (numbers chosen so that
every figure's branches show: NoPE and sinusoidal break past L, the learned table stops at L, each seed's loss a
little above the one before so that the bands have a width, PI breaking without its fine-tune and recovering with
it, NoPE still learning when training stops) and untrained checkpoints, written in a moment (no training)."""

from __future__ import annotations

import math
from pathlib import Path

import torch

from posenc_lab import checkpoints
from posenc_lab.checkpoints import Checkpoint
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.results import FORMAT, lengths_for, passkey_lengths_for, save_results, seed_view
from posenc_lab.scaling import SCALING_TYPES
from posenc_lab.train import TrainSettings

L = 64
SCHEMES = ("nope", "sinusoidal", "learned", "t5", "alibi", "rope")
GROWTH = {"nope": 0.5, "sinusoidal": 1.0, "learned": 0.0, "t5": 0.05, "alibi": 0.0, "rope": 0.3}  # loss per doubling
LOSS_AT_L = 1.5


SEEDS = (0, 1, 2)
SEED_STEP = 0.02  # each seed's loss sits this much above the previous seed's: the bands have a width
FINETUNED = ("default", "linear", "ntk", "yarn")


def _row(scheme: str, length: int, task: str = "lm", growth: dict = GROWTH, offset: float = 0.0) -> dict:
    if scheme == "learned" and length > L:
        return {"length": length, "loss": None, "perplexity": None, "past_table": True, "note": "past the table"}
    loss = LOSS_AT_L + offset + growth[scheme] * max(math.log2(length / L), 0)
    row = {"length": length, "loss": loss, "loss_se": 0.01, "perplexity": math.exp(loss)}
    if task == "copy":
        accuracy = 1.0 if length <= L else max(0.0, 1 - growth[scheme] - offset)  # a little lower each seed
        row |= {"accuracy": accuracy, "accuracy_se": 0.05, "letters": (length - 1) // 2}
    if task == "passkey":  # accuracy falls by the scheme's growth per doubling past L, a little lower each seed
        accuracy = min(1.0, max(0.0, 1 - growth[scheme] * max(math.log2(length / L), 0) - 2 * offset))
        row |= {"accuracy": accuracy, "accuracy_se": 0.05, "distance": length - 20.0}
    return row


def _shifted(row: dict, by: float = 0.1) -> dict:
    """The row a worse cut gives: ``by`` more loss (none where there is none)."""
    if row["loss"] is None:
        return row
    return {**row, "loss": row["loss"] + by, "perplexity": math.exp(row["loss"] + by)}


def _flat(length: int, loss: float, **more) -> dict:
    return {"length": length, "loss": loss, "loss_se": 0.01, "perplexity": math.exp(loss), **more}


def seed_tables(growth: dict[str, float], offset: float = 0.0, *, new_tables: bool = True) -> dict:
    """One seed's tables, ``offset`` added to every loss; without ``new_tables`` no passkey, passkey_scaling or
    finetune table (the results shipped before they were added)."""
    lengths, keyed = lengths_for(L), passkey_lengths_for(L)
    lm = {scheme: [_row(scheme, n, growth=growth, offset=offset) for n in lengths] for scheme in SCHEMES}
    positions = {
        scheme: None if scheme == "learned" else [LOSS_AT_L + offset + growth[scheme] * (p >= L) for p in range(8 * L)]
        for scheme in SCHEMES
    }
    untuned = {"default": 0.3, "linear": 1.0, "ntk": 0.2, "yarn": 0.1}  # loss added past L without a fine-tune
    scaling_rows = {
        kind: [_flat(n, LOSS_AT_L + offset + index * 0.01 + untuned.get(kind, 0) * (n > L)) for n in lengths]
        for index, kind in enumerate(SCALING_TYPES)
    }
    seed = {
        "lm": {"sliding": lm, "nonoverlapping": {s: [_shifted(r) for r in rows] for s, rows in lm.items()}},
        "copy": {scheme: [_row(scheme, n, "copy", growth, offset) for n in COPY_LENGTHS] for scheme in SCHEMES},
        "positions": {"length": 8 * L, "loss": positions},
        "scaling": {"factor": 4.0, "mode": "sliding", "rows": scaling_rows},
    }
    if not new_tables:
        return {**seed, "passkey": {}}
    seed["passkey"] = {scheme: [_row(scheme, n, "passkey", growth, offset) for n in keyed] for scheme in SCHEMES}
    seed["passkey_scaling"] = {
        "factor": 4.0,
        "rows": {
            kind: [
                _flat(n, 1.0, accuracy=max(0.0, 1 - index * 0.1 - offset), accuracy_se=0.05, distance=n - 20.0)
                for n in keyed
            ]
            for index, kind in enumerate(kind for kind in SCALING_TYPES if kind != "longrope")
        },
    }
    seed["finetune"] = {
        "factor": 4.0,
        "steps": 1000,
        "length": 4 * L,
        "rows": {kind: [_flat(n, LOSS_AT_L + offset + 0.02 * (n > 4 * L)) for n in lengths] for kind in FINETUNED},
    }
    return seed


def _curve(scheme: str, task: str, offset: float) -> list[float]:
    """A training curve that falls from 3 towards its floor (NoPE's still falling at the end)."""
    floor = 1.2 if scheme == "nope" else 0.5
    rate = 0.1 if scheme == "nope" else 0.5
    return [round(floor + offset + (3 - floor) * math.exp(-rate * i), 4) for i in range(20)]


def full_results(
    growth: dict[str, float] | None = None,
    seeds: tuple[int, ...] = SEEDS,
    seed_growth: dict[int, dict[str, float]] | None = None,
    *,
    new_tables: bool = True,
) -> dict:
    """The made-up results file of ``seeds`` (``growth`` overrides the loss added per doubling past L in every
    seed, ``seed_growth[seed]`` in that seed only; ``new_tables`` False: no passkey or fine-tune tables)."""
    growth = {**GROWTH, **(growth or {})}
    by_seed, runs = {}, []
    for index, seed in enumerate(seeds):
        offset = index * SEED_STEP
        by_seed[str(seed)] = seed_tables({**growth, **(seed_growth or {}).get(seed, {})}, offset, new_tables=new_tables)
        for scheme in SCHEMES:
            for task in ("lm", "copy", "passkey") if new_tables else ("lm", "copy"):
                curve = _curve(scheme, task, offset)
                runs.append(
                    {
                        "scheme": scheme,
                        "task": task,
                        "steps": 2000,
                        "seed": seed,
                        "seconds": 1.0,
                        "device": "cpu",
                        "final_loss": curve[-1],
                        "curve": curve,
                    }
                )
    return {
        "format": FORMAT,
        "seeds": list(seeds),
        "train_length": L,
        "lengths": lengths_for(L),
        "copy_letters": 20,
        "copy_lengths": COPY_LENGTHS,
        "runs": runs,
        "by_seed": by_seed,
    }


def results(growth: dict[str, float] | None = None, seed: int | None = None) -> dict:
    """One seed's made-up results (the first when None), as :func:`posenc_lab.results.seed_view` gives them."""
    return seed_view(full_results(growth), seed)


def views(growth: dict[str, float] | None = None, **options) -> list[dict]:
    """Every seed's made-up results, as :func:`posenc.figures.lab.source.seed_views` gives them."""
    everything = full_results(growth, **options)
    return [seed_view(everything, seed) for seed in everything["seeds"]]


COPY_LENGTHS = [21, 41, 61, 81, 121, 161]  # strings of 10 to 80 letters, trained up to 20


def make_folder(folder: Path, schemes=("rope", "learned", "alibi"), **options) -> Path:
    """``folder`` with the made-up results (``options``: :func:`full_results`'s) and an untrained lm checkpoint of
    each of ``schemes``."""
    folder.mkdir(parents=True, exist_ok=True)
    save_results(full_results(**options), folder / "results.json")
    torch.manual_seed(0)
    for scheme in schemes:
        model = LabModel(LabConfig(scheme=scheme, max_len=L)).eval()
        checkpoints.save(
            Checkpoint(model, TrainSettings(task="lm", steps=1)), folder / checkpoints.shipped_path(scheme, "lm").name
        )
    return folder
