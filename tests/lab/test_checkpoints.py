"""Checkpoints: a saved model loads back with the same outputs, an interrupted save leaves nothing half written,
and a missing, damaged or foreign file is one clear error naming the file."""

from __future__ import annotations

import os
import stat
import time
import zipfile

import pytest
import torch

from bench.hostile_lab import zip_bomb
from posenc_lab import checkpoints
from posenc_lab.limits import MAX_CHECKPOINT_BYTES
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.scaling import rope_scaling
from posenc_lab.schemes import SCHEMES
from posenc_lab.train import TrainSettings

CONFIG = LabConfig(scheme="t5", d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=16)


def _checkpoint() -> checkpoints.Checkpoint:
    torch.manual_seed(3)
    return checkpoints.Checkpoint(LabModel(CONFIG), TrainSettings(steps=7, seed=3), [2.0, 1.5], 1.25, "cpu")


def test_a_checkpoint_round_trips(tmp_path):
    saved = _checkpoint()
    path = checkpoints.save(saved, tmp_path / "deep" / "t5-lm.pt")
    loaded = checkpoints.load(path)
    assert loaded.config == CONFIG and loaded.settings == saved.settings
    assert loaded.losses == [2.0, 1.5] and loaded.seconds == 1.25 and loaded.device == "cpu"
    tokens = torch.randint(0, 256, (2, 12))
    with torch.no_grad():
        expected = saved.model.half().float()(tokens)  # saved in float16, so the same rounded weights
        assert torch.allclose(loaded.model(tokens), expected, atol=1e-5)
    assert not loaded.model.training
    assert [p.name for p in tmp_path.joinpath("deep").iterdir()] == ["t5-lm.pt"]


def test_a_checkpoint_is_as_readable_as_any_file_the_user_writes(tmp_path):
    mask = os.umask(0o022)
    try:
        path = checkpoints.save(_checkpoint(), tmp_path / "model.pt")
    finally:
        os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_an_interrupted_save_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = checkpoints.save(_checkpoint(), tmp_path / "model.pt")
    before = path.read_bytes()

    def interrupted(data, file):
        file.write(b"half")
        raise KeyboardInterrupt

    monkeypatch.setattr(checkpoints.torch, "save", interrupted)
    with pytest.raises(KeyboardInterrupt):
        checkpoints.save(_checkpoint(), path)
    assert path.read_bytes() == before and sorted(tmp_path.iterdir()) == [path]


def test_a_missing_checkpoint_says_how_to_make_one(tmp_path):
    with pytest.raises(checkpoints.CheckpointError, match="does not exist .*posenc lab train"):
        checkpoints.load(tmp_path / "none.pt")


def test_a_truncated_checkpoint_is_refused_by_name(tmp_path):
    path = checkpoints.save(_checkpoint(), tmp_path / "model.pt")
    path.write_bytes(path.read_bytes()[:300])
    with pytest.raises(checkpoints.CheckpointError, match=r"model\.pt is not a lab checkpoint or is damaged"):
        checkpoints.load(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "of format 1 .found 'list'"),
        ({"format": 99}, "of format 1 .found 99"),
        ({"format": 1, "config": {"scheme": "xpos"}}, "does not hold a lab model"),
        ({"format": 1, "config": CONFIG.to_dict(), "settings": {}, "state": {}, "device": "cpu"}, "lab model"),
    ],
)
def test_a_foreign_file_is_refused(tmp_path, data, message):
    path = tmp_path / "foreign.pt"
    torch.save(data, path)
    with pytest.raises(checkpoints.CheckpointError, match=message):
        checkpoints.load(path)


def test_shipped_paths_name_scheme_task_and_seed():
    assert checkpoints.shipped_path("rope", "copy") == checkpoints.SHIPPED / "rope-copy-seed0.pt"
    assert checkpoints.shipped_path("alibi", "passkey", 2) == checkpoints.SHIPPED / "alibi-passkey-seed2.pt"
    assert checkpoints.finetuned_path("yarn", 1) == checkpoints.SHIPPED / "rope-lm-finetuned-yarn-seed1.pt"
    assert checkpoints.finetuned_path("linear") == checkpoints.SHIPPED / "rope-lm-finetuned-linear-seed0.pt"


ROPE = LabConfig(scheme="rope", d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=8)


def _rope_checkpoint(scaling: dict | None) -> checkpoints.Checkpoint:
    torch.manual_seed(4)
    model = LabModel(ROPE)
    model.scheme.scaling = scaling
    return checkpoints.Checkpoint(model, TrainSettings(steps=3, seed=2, length=32), [1.0], 0.5, "cpu")


@pytest.mark.parametrize("rope_type", ["linear", "yarn", "longrope"])
def test_the_rope_scaling_a_model_was_finetuned_under_is_saved_and_loaded_back(tmp_path, rope_type):
    keys = {"long_factor": [1.0, 1.5, 3.0, 5.0]} if rope_type == "longrope" else {}
    made = rope_scaling(ROPE, rope_type, 4.0, **keys)
    saved = _rope_checkpoint(made)
    loaded = checkpoints.load(checkpoints.save(saved, tmp_path / "tuned.pt"))
    assert loaded.model.scheme.scaling == made and loaded.settings.length == 32
    tokens = torch.randint(0, 256, (2, 32))  # past the trained 8 tokens, where the scaling changes the outputs
    with torch.no_grad():
        expected = saved.model.half().float()(tokens)
        assert torch.allclose(loaded.model(tokens), expected, atol=1e-5)
        loaded.model.scheme.scaling = None
        assert not torch.allclose(loaded.model(tokens), expected, atol=1e-3)


def test_a_model_without_scaling_saves_no_block_and_loads_none(tmp_path):
    path = checkpoints.save(_rope_checkpoint(None), tmp_path / "plain.pt")
    assert "rope_scaling" not in torch.load(path, weights_only=True)
    assert checkpoints.load(path).model.scheme.scaling is None


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"rope_scaling": {"rope_type": "linear", "factor": -2.0}}, r"field rope_scaling is not a rope_scaling block"),
        ({"rope_scaling": {"rope_type": "xpos", "factor": 2.0}}, r"field rope_scaling .*rope_type must be one of"),
        ({"rope_scaling": [1, 2]}, r"field rope_scaling .*must be a dict or None"),
        ({"rope_scaling": {"rope_type": "longrope", "factor": 4.0}}, r"field rope_scaling .*short_factor is required"),
    ],
)
def test_a_bad_scaling_block_is_refused_naming_the_field(tmp_path, change, words):
    path = checkpoints.save(_rope_checkpoint(rope_scaling(ROPE, "linear", 2.0)), tmp_path / "tuned.pt")
    torch.save(torch.load(path, weights_only=True) | change, path)
    with pytest.raises(checkpoints.CheckpointError, match=words):
        checkpoints.load(path)


def test_a_scaling_block_on_a_model_without_rope_is_refused(tmp_path):
    path = checkpoints.save(_checkpoint(), tmp_path / "t5.pt")
    torch.save(torch.load(path, weights_only=True) | {"rope_scaling": {"rope_type": "linear", "factor": 2.0}}, path)
    with pytest.raises(
        checkpoints.CheckpointError, match=r"field rope_scaling is for RoPE models only .this one is t5"
    ):
        checkpoints.load(path)


@pytest.mark.parametrize(
    ("length", "words"),
    [(1, "settings.length must be a whole number from 2 to 4,096"), (2.5, "settings.length must be a whole number")],
)
def test_a_training_length_is_read_back_within_its_bounds(tmp_path, length, words):
    path = checkpoints.save(_rope_checkpoint(None), tmp_path / "model.pt")
    data = torch.load(path, weights_only=True)
    data["settings"]["length"] = length
    torch.save(data, path)
    with pytest.raises(checkpoints.CheckpointError, match=f"field {words}"):
        checkpoints.load(path)
    del data["settings"]["length"]  # a checkpoint from before the setting: trained at its own L
    torch.save(data, path)
    assert checkpoints.load(path).settings.length is None


# --- issue 35: a checkpoint is an untrusted file: its size, its zip and every size it declares are bounded ---


def _refused_before_a_model_is_built(path, monkeypatch, words: str) -> None:
    def built(config):
        raise AssertionError(f"a model was built for {config}")

    monkeypatch.setattr(checkpoints, "LabModel", built)
    started = time.process_time()  # this process's CPU: what a busy machine does not stretch
    with pytest.raises(checkpoints.CheckpointError, match=words):
        checkpoints.load(path)
    assert time.process_time() - started < 5  # refused from what the file declares, not after reading it


def test_a_zip_whose_storage_inflates_past_the_bound_is_not_inflated(tmp_path, monkeypatch):
    """A checkpoint whose weights are one deflated storage of 32 MiB of zeros (a file of about 40 KB): the zip
    guard of the Learned page's tables refuses it from its directory."""
    saved = checkpoints.save(_checkpoint(), tmp_path / "model.pt")
    bomb = tmp_path / "bomb.pt"
    zip_bomb(saved, bomb, 32 << 20)
    assert bomb.stat().st_size < 1 << 20
    with zipfile.ZipFile(bomb) as archive:  # the crafted entry is deflated, as a hostile file's would be
        assert any(entry.compress_type == zipfile.ZIP_DEFLATED for entry in archive.infolist())
    _refused_before_a_model_is_built(bomb, monkeypatch, "compressed entries declare 33,554,432 bytes")


def test_a_file_larger_than_any_lab_checkpoint_is_not_read(tmp_path, monkeypatch):
    path = tmp_path / "large.pt"
    with path.open("wb") as file:  # sparse: no disk used
        file.truncate(MAX_CHECKPOINT_BYTES + 1)
    _refused_before_a_model_is_built(path, monkeypatch, "more than a lab checkpoint may be")


def test_a_pickle_larger_than_any_lab_checkpoints_is_not_unpickled(tmp_path, monkeypatch):
    path = tmp_path / "pickle.pt"
    torch.save({"format": 1, "losses": [0.5] * 600_000}, path)  # about 5.4 MB of pickled floats
    _refused_before_a_model_is_built(path, monkeypatch, "its pickle declares")


@pytest.mark.parametrize(
    ("sizes", "words"),
    [
        ({"d_model": 16384, "n_heads": 64, "n_layers": 8}, "config.d_model must be a whole number from 2 to 256"),
        ({"n_layers": 10_000_000}, "config.n_layers must be a whole number from 1 to 8 .got 10000000"),
        ({"max_len": 10**9}, "config.max_len must be a whole number from 2 to 4,096"),
        ({"vocab_size": 2**40}, "config.vocab_size"),
        ({"n_heads": 16}, "d_model must be a multiple of n_heads with an even head_dim"),
    ],
)
def test_a_tiny_file_declaring_a_huge_model_is_refused_before_any_weight(tmp_path, monkeypatch, sizes, words):
    data = {"format": 1, "config": CONFIG.to_dict() | sizes, "settings": {}, "state": {}, "device": "cpu"}
    path = tmp_path / "huge.pt"
    torch.save(data, path)
    assert path.stat().st_size < 10_000
    _refused_before_a_model_is_built(path, monkeypatch, words)


def test_save_refuses_a_link_and_a_file_of_another_kind_through_the_api_too(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    os.symlink(tmp_path / "notes.txt", tmp_path / "link.pt")
    for name, words in (("link.pt", "symbolic link"), ("notes.txt", "holds no lab checkpoint")):
        with pytest.raises(checkpoints.CheckpointError, match=words):
            checkpoints.save(_checkpoint(), tmp_path / name)
    assert (tmp_path / "notes.txt").read_text() == "mine" and os.path.islink(tmp_path / "link.pt")


SHIPPED_BUDGET_BYTES = 24 << 20  # the shipped set, every seed (18 MB in float16 today): the package carries it
CHECKPOINT_BUDGET_BYTES = 512 << 10  # one shipped checkpoint (up to 300 KB today: float16 weights and the loss curve)


def test_every_shipped_model_of_every_seed_is_there_within_the_size_budget():
    from posenc_lab.finetune import FINETUNE_METHODS
    from posenc_lab.results import SEEDS, load_results
    from posenc_lab.settings import TASKS

    expected = {checkpoints.shipped_path(s, task, seed) for seed in SEEDS for task in TASKS for s in SCHEMES}
    expected |= {checkpoints.finetuned_path(method, seed) for seed in SEEDS for method in FINETUNE_METHODS}
    shipped = set(checkpoints.SHIPPED.glob("*.pt"))
    assert shipped == expected, sorted(path.name for path in shipped ^ expected)
    sizes = {path.name: path.stat().st_size for path in shipped}
    assert max(sizes.values()) <= CHECKPOINT_BUDGET_BYTES, max(sizes.items(), key=lambda item: item[1])
    assert sum(sizes.values()) <= SHIPPED_BUDGET_BYTES, sum(sizes.values())
    runs = load_results(checkpoints.SHIPPED / "results.json")["runs"]
    assert len(runs) == len(expected) and {run["seed"] for run in runs} == set(SEEDS)  # results of exactly these
