"""Checkpoints: a saved model loads back with the same outputs, an interrupted save leaves nothing half written,
and a missing, damaged or foreign file is one clear error naming the file."""

from __future__ import annotations

import os
import stat

import pytest
import torch

from posenc_lab import checkpoints
from posenc_lab.model import LabConfig, LabModel
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


def test_shipped_paths_name_scheme_and_task():
    assert checkpoints.shipped_path("rope", "copy") == checkpoints.SHIPPED / "rope-copy.pt"
