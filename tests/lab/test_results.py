"""The results file: one table set per seed (every scheme's rows at the eight lengths in both modes, copy and passkey
rows with their accuracy and standard errors, the losses per position, the RoPE checkpoint under every scaling with
LongRoPE's searched factors, the fine-tuned models), a seed's view in the layout of one run, training curves, a JSON
round trip, and a missing or foreign file refused with the command that makes it."""

from __future__ import annotations

import json
import math

import pytest
import torch

from posenc_lab import results
from posenc_lab.checkpoints import Checkpoint, CheckpointError
from posenc_lab.longrope_search import SearchResult
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.scaling import SCALING_TYPES, rope_scaling
from posenc_lab.schemes import SCHEMES
from posenc_lab.train import TrainSettings

SIZE = dict(d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=8)
SEARCHED = SearchResult([1.0, 1.5, 2.0, 4.0], 0.5, [0.7, 0.5], {"pi": 3.0, "ntk": 0.8, "yarn": 0.9}, 12)


ORIGINAL_ROWS = results.rows


def _few_tokens(patch: pytest.MonkeyPatch) -> None:
    """Fewer scored lm tokens than the lab's 8,192, so that building the results of tiny models takes a moment."""

    def rows(checkpoint, task, lengths, mode="sliding", **options):
        if task == "lm":
            options["scored_tokens"] = 256
        return ORIGINAL_ROWS(checkpoint, task, lengths, mode, **options)

    patch.setattr(results, "rows", rows)


@pytest.fixture(autouse=True)
def few_tokens(monkeypatch):
    _few_tokens(monkeypatch)


def _checkpoint(scheme: str, task: str = "lm", seed: int = 0) -> Checkpoint:
    torch.manual_seed(len(scheme) + 10 * seed)
    settings = TrainSettings(task=task, steps=2, seed=seed)
    return Checkpoint(LabModel(LabConfig(scheme=scheme, **SIZE)), settings, [3.0, 2.5], 0.5)


def _finetuned(method: str, seed: int) -> Checkpoint:
    tuned = _checkpoint("rope", seed=seed)
    tuned.settings = TrainSettings(steps=3, seed=seed, length=32)
    tuned.model.scheme.scaling = rope_scaling(tuned.config, method, None if method == "default" else 4.0)
    return tuned


def _seed(seed: int) -> results.SeedModels:
    held = {(scheme, "lm"): _checkpoint(scheme, seed=seed) for scheme in SCHEMES}
    held["alibi", "copy"] = _checkpoint("alibi", "copy", seed)
    held["rope", "passkey"] = _checkpoint("rope", "passkey", seed)
    tuned = {method: _finetuned(method, seed) for method in ("default", "linear")}
    return results.SeedModels(held, tuned, SEARCHED)


@pytest.fixture(scope="module")
def built() -> dict:
    with pytest.MonkeyPatch.context() as patch:
        _few_tokens(patch)
        return results.build_results({0: _seed(0), 2: _seed(2)})


def test_lengths_run_from_half_to_eight_times_the_trained_length():
    assert results.lengths_for(64) == [32, 64, 96, 128, 192, 256, 384, 512]
    assert results.lengths_for(4)[0] == 3  # never under the shortest evaluation


def test_each_seed_has_its_own_tables_and_the_shared_keys_once(built):
    assert built["format"] == 2 and built["seeds"] == [0, 2] and sorted(built["by_seed"]) == ["0", "2"]
    assert built["train_length"] == 8 and built["lengths"] == results.lengths_for(8)
    assert built["scored_tokens"] == 8192 and built["examples"] == {"copy": 64, "passkey": 60}
    zero, two = built["by_seed"]["0"], built["by_seed"]["2"]
    assert zero["lm"]["sliding"]["rope"] != two["lm"]["sliding"]["rope"]  # other weights, other numbers


def test_every_scheme_has_a_row_per_length_in_both_modes_with_its_error(built):
    for seed in built["by_seed"].values():
        for mode in ("sliding", "nonoverlapping"):
            assert set(seed["lm"][mode]) == set(SCHEMES)
            for scheme, rows in seed["lm"][mode].items():
                assert [row["length"] for row in rows] == built["lengths"]
                finite = [row for row in rows if not row.get("past_table")]
                assert all(math.isclose(row["perplexity"], math.exp(row["loss"])) for row in finite)
                assert all(0 < row["loss_se"] < row["loss"] for row in finite)
                assert len(finite) == (2 if scheme == "learned" else 8)  # learned: 4 and 8 only


def test_copy_and_passkey_rows_carry_accuracy_and_runs_say_how_each_was_made(built):
    assert results.copy_lengths_for(20) == [21, 41, 61, 81, 121, 161]  # strings of 10 to 80 letters
    assert built["copy_letters"] == 3 and built["copy_lengths"] == results.copy_lengths_for(3)  # L = 8: (8 - 1) // 2
    seed = built["by_seed"]["2"]
    assert [row["letters"] for row in seed["copy"]["alibi"]] == [2, 3, 4, 6, 9, 12] and list(seed["copy"]) == ["alibi"]
    passkey = seed["passkey"]["rope"]
    assert [row["length"] for row in passkey] == results.passkey_lengths_for(8) == [24, 32, 48, 64]
    assert all(0.0 <= row["accuracy"] <= 1.0 and row["distance"] > 0 for row in passkey)
    for row in passkey:
        p = row["accuracy"]
        assert row["accuracy_se"] == pytest.approx(math.sqrt(p * (1 - p) / 60))
    run = next(run for run in built["runs"] if run["task"] == "copy" and run["seed"] == 2)
    assert run == {"scheme": "alibi", "task": "copy", "steps": 2, "seed": 2, "seconds": 0.5, "device": "cpu",
                   "final_loss": 2.5, "curve": [3.0, 2.5]}  # fmt: skip
    tuned = [run for run in built["runs"] if run.get("method") == "linear"]
    assert [(run["seed"], run["length"], run["steps"]) for run in tuned] == [(0, 32, 3), (2, 32, 3)]


def test_the_passkey_lengths_are_the_lm_lengths_that_hold_a_passkey():
    lengths = results.lengths_for(64)
    assert results.passkey_lengths_for(64) == lengths
    assert results.passkey_lengths_for(8) == [24, 32, 48, 64]  # a passkey example needs 21 tokens


def test_positions_cover_the_longest_length_and_learned_has_none(built):
    positions = built["by_seed"]["0"]["positions"]
    assert positions["length"] == 64 and positions["loss"]["learned"] is None and len(positions["loss"]["rope"]) == 64


def test_the_rope_checkpoint_under_every_scaling_with_the_searched_longrope_factors():
    rope = _checkpoint("rope")
    built = results.build_results({0: results.SeedModels({("rope", "lm"): rope}, longrope=SEARCHED)})
    scaling = built["by_seed"]["0"]["scaling"]
    assert scaling["factor"] == results.SCALING_FACTOR and set(scaling["rows"]) == set(SCALING_TYPES)
    plain = results.rows(rope, "lm", built["lengths"], "sliding")
    assert scaling["rows"]["default"] == plain and scaling["rows"]["linear"] != plain
    searched = results.scaled_rows(rope, "longrope", 4.0, built["lengths"], long_factor=SEARCHED.factors)
    assert scaling["rows"]["longrope"] == searched
    assert built["by_seed"]["0"]["longrope"]["factors"] == SEARCHED.factors
    assert rope.model.scheme.scaling is None  # put back
    unsearched = results.build_results({0: results.SeedModels({("rope", "lm"): rope})})
    assert "longrope" not in unsearched["by_seed"]["0"]["scaling"]["rows"]  # no factors, no row


def test_the_fine_tuned_models_are_evaluated_with_their_own_scaling(built):
    tuned = built["by_seed"]["0"]["finetune"]
    assert (tuned["factor"], tuned["steps"], tuned["length"]) == (4.0, 3, 32) and list(tuned["rows"]) == [
        "default",
        "linear",
    ]
    assert tuned["rows"]["linear"] == results.rows(_finetuned("linear", 0), "lm", built["lengths"])
    assert tuned["rows"]["linear"] != tuned["rows"]["default"]


def test_the_passkey_model_under_scaling_has_no_longrope_row(built):
    rows = built["by_seed"]["0"]["passkey_scaling"]["rows"]
    assert set(rows) == set(SCALING_TYPES) - {"longrope"} and all("accuracy" in row for row in rows["yarn"])


def test_a_seed_view_is_one_run_s_layout(built):
    view = results.seed_view(built, 2)
    assert view["seed"] == 2 and view["lm"] == built["by_seed"]["2"]["lm"] and view["lengths"] == built["lengths"]
    assert {run["seed"] for run in view["runs"]} == {2}
    assert results.seed_view(built)["seed"] == 0  # the first seed
    with pytest.raises(ValueError, match="seed must be one of 0, 2"):
        results.seed_view(built, 1)


@pytest.mark.parametrize(
    ("losses", "points", "expected"),
    [([], 5, []), ([1.0, 3.0], 5, [1.0, 3.0]), ([1.0, 3.0, 5.0, 7.0], 2, [2.0, 6.0]), ([1, 2, 3], 2, [1.5, 3.0])],
)
def test_a_training_curve_is_its_losses_averaged_over_equal_spans(losses, points, expected):
    assert results.curve(losses, points) == expected


def test_results_round_trip_through_json(tmp_path, built):
    path = results.save_results(built, tmp_path / "results.json")
    assert results.load_results(path) == json.loads(json.dumps(built))
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_an_earlier_format_may_be_replaced_but_is_not_read(tmp_path, built):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"format": 1, "lm": {}}))
    assert results.holds_results(path)
    with pytest.raises(CheckpointError, match="format 2"):
        results.load_results(path)
    results.save_results(built, path)
    assert results.load_results(path)["format"] == 2


def test_without_an_lm_checkpoint_there_is_nothing_to_compare():
    with pytest.raises(ValueError, match="at least one lm checkpoint"):
        results.build_results({0: results.SeedModels({("alibi", "copy"): _checkpoint("alibi", "copy")})})
    with pytest.raises(ValueError, match="at least one seed"):
        results.build_results({})


@pytest.mark.parametrize(
    ("text", "message"), [(None, "could not be read"), ("{", "could not be read"), ("[]", "format")]
)
def test_a_missing_or_foreign_results_file_is_refused(tmp_path, text, message):
    path = tmp_path / "results.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(CheckpointError, match=message):
        results.load_results(path)
