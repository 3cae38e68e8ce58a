"""The results file: every scheme's rows at the eight lengths in both modes, copy rows with accuracy, the losses
per position, the RoPE checkpoint under every scaling (and its scaling put back), a JSON round trip, and a missing
or foreign file refused with the command that makes it."""

from __future__ import annotations

import json
import math

import pytest
import torch

from posenc_lab import results
from posenc_lab.checkpoints import Checkpoint, CheckpointError
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.scaling import SCALING_TYPES
from posenc_lab.schemes import SCHEMES
from posenc_lab.train import TrainSettings

SIZE = dict(d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=8)


def _checkpoint(scheme: str, task: str = "lm") -> Checkpoint:
    torch.manual_seed(len(scheme))
    return Checkpoint(LabModel(LabConfig(scheme=scheme, **SIZE)), TrainSettings(task=task, steps=2), [3.0, 2.5], 0.5)


@pytest.fixture(scope="module")
def built() -> dict:
    checkpoints = {(scheme, "lm"): _checkpoint(scheme) for scheme in SCHEMES}
    checkpoints["alibi", "copy"] = _checkpoint("alibi", "copy")
    return results.build_results(checkpoints)


def test_lengths_run_from_half_to_eight_times_the_trained_length():
    assert results.lengths_for(64) == [32, 64, 96, 128, 192, 256, 384, 512]
    assert results.lengths_for(4)[0] == 3  # never under the shortest evaluation


def test_every_scheme_has_a_row_per_length_in_both_modes(built):
    assert built["train_length"] == 8 and built["lengths"] == results.lengths_for(8)
    for mode in ("sliding", "nonoverlapping"):
        assert set(built["lm"][mode]) == set(SCHEMES)
        for scheme, rows in built["lm"][mode].items():
            assert [row["length"] for row in rows] == built["lengths"]
            finite = [row for row in rows if not row.get("past_table")]
            assert all(math.isclose(row["perplexity"], math.exp(row["loss"])) for row in finite)
            assert len(finite) == (2 if scheme == "learned" else 8)  # learned: 4 and 8 only


def test_copy_rows_carry_accuracy_and_runs_say_how_each_was_made(built):
    assert results.copy_lengths_for(20) == [21, 41, 61, 81, 121, 161]  # strings of 10 to 80 letters
    assert built["copy_letters"] == 3 and built["copy_lengths"] == results.copy_lengths_for(3)  # L = 8: (8 - 1) // 2
    assert [row["letters"] for row in built["copy"]["alibi"]] == [2, 3, 4, 6, 9, 12]
    assert list(built["copy"]) == ["alibi"]
    assert all(0.0 <= row["accuracy"] <= 1.0 for row in built["copy"]["alibi"])
    run = next(run for run in built["runs"] if run["task"] == "copy")
    assert run == {"scheme": "alibi", "task": "copy", "steps": 2, "seed": 0, "seconds": 0.5, "device": "cpu",
                   "final_loss": 2.5}  # fmt: skip


def test_positions_cover_the_longest_length_and_learned_has_none(built):
    assert built["positions"]["length"] == 64
    assert built["positions"]["loss"]["learned"] is None
    assert len(built["positions"]["loss"]["rope"]) == 64


def test_the_rope_checkpoint_under_every_scaling_and_its_scaling_put_back():
    rope = _checkpoint("rope")
    built = results.build_results({("rope", "lm"): rope})
    assert built["scaling"]["factor"] == results.SCALING_FACTOR and set(built["scaling"]["rows"]) == set(SCALING_TYPES)
    plain = results.rows(rope, "lm", built["lengths"], "sliding", scored_tokens=results.SCALING_TOKENS)
    assert built["scaling"]["rows"]["default"] == plain != built["lm"]["sliding"]["rope"]  # fewer tokens scored
    assert built["scaling"]["rows"]["linear"] != built["scaling"]["rows"]["default"]
    assert rope.model.scheme.scaling is None


def test_results_round_trip_through_json(tmp_path, built):
    path = results.save_results(built, tmp_path / "results.json")
    assert results.load_results(path) == json.loads(json.dumps(built))
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_without_an_lm_checkpoint_there_is_nothing_to_compare():
    with pytest.raises(ValueError, match="at least one lm checkpoint"):
        results.build_results({("alibi", "copy"): _checkpoint("alibi", "copy")})


@pytest.mark.parametrize(
    ("text", "message"), [(None, "could not be read"), ("{", "could not be read"), ("[]", "format")]
)
def test_a_missing_or_foreign_results_file_is_refused(tmp_path, text, message):
    path = tmp_path / "results.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(CheckpointError, match=message):
        results.load_results(path)
