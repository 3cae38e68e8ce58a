"""Fine-tuning under RoPE scaling: the model trains at round(factor·L) tokens with its own seed under the scaling
asked for, keeps it (also through save and load), leaves the source model as it was, and refuses a model that is
not a RoPE language model."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from posenc_lab import checkpoints, finetune
from posenc_lab import train as training
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.scaling import rope_scaling
from posenc_lab.settings import TrainSettings

ROPE = LabConfig(scheme="rope", d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=8)


def _source(config: LabConfig = ROPE, task: str = "lm", seed: int = 7) -> checkpoints.Checkpoint:
    torch.manual_seed(seed)
    return checkpoints.Checkpoint(LabModel(config).eval(), TrainSettings(task=task, seed=seed), [3.0], 1.0, "cpu")


def _tuned(source, rope_type: str, factor: float, **options) -> checkpoints.Checkpoint:
    return finetune.finetune(source, rope_type, factor, steps=2, batch_size=2, device="cpu", **options)


@pytest.mark.parametrize(("factor", "length"), [(2, 16), (2.5, 20), (4.0, 32)])
def test_the_finetune_trains_at_factor_times_l_with_the_models_seed(monkeypatch, factor, length):
    seen = []
    original = training.task_batch

    def recording(task, text, rng, length, batch_size):
        seen.append((task, length, batch_size))
        return original(task, text, rng, length, batch_size)

    monkeypatch.setattr(training, "task_batch", recording)
    tuned = _tuned(_source(), "linear", factor)
    assert seen == [("lm", length, 2)] * 2
    settings = tuned.settings
    assert (settings.task, settings.length, settings.seed, settings.steps) == ("lm", length, 7, 2)
    assert settings.learning_rate == finetune.FINETUNE_RATE and len(tuned.losses) == 2 and tuned.device == "cpu"


def test_the_finetune_is_the_same_run_for_the_same_model_and_continues_from_its_weights():
    first, again = _tuned(_source(), "yarn", 2.0), _tuned(_source(), "yarn", 2.0)
    assert first.losses == again.losses
    assert all(torch.equal(a, b) for a, b in zip(first.model.parameters(), again.model.parameters(), strict=True))
    other = _tuned(_source(seed=8), "yarn", 2.0)  # other starting weights (and seed): another run
    assert other.losses != first.losses


@pytest.mark.parametrize(("rope_type", "factor"), [("linear", 2.0), ("ntk", 4.0), ("yarn", 2.0)])
def test_the_scaling_is_kept_through_save_and_load_and_the_source_is_left_as_it_was(tmp_path, rope_type, factor):
    source = _source()
    weights = {name: tensor.clone() for name, tensor in source.model.state_dict().items()}
    tuned = _tuned(source, rope_type, factor)
    expected = rope_scaling(ROPE, rope_type, factor)
    assert tuned.model.scheme.scaling == expected and source.model.scheme.scaling is None
    assert all(torch.equal(tensor, weights[name]) for name, tensor in source.model.state_dict().items())
    loaded = checkpoints.load(checkpoints.save(tuned, tmp_path / "tuned.pt"))
    assert loaded.model.scheme.scaling == expected and loaded.settings == tuned.settings


def test_default_is_the_same_finetune_with_no_scaling_and_a_source_scaling_is_restored():
    source = _source()
    mine = rope_scaling(ROPE, "dynamic", 3.0)
    source.model.scheme.scaling = mine
    tuned = _tuned(source, "default", 2.0)
    assert tuned.model.scheme.scaling is None and tuned.settings.length == 16
    assert source.model.scheme.scaling is mine


def test_the_source_scaling_is_restored_when_training_fails(monkeypatch):
    source = _source()

    def failing(*args, **kwargs):
        assert kwargs["start"].scheme.scaling == rope_scaling(ROPE, "linear", 2.0)  # trained under the scaling
        raise KeyboardInterrupt

    monkeypatch.setattr(finetune, "train", failing)
    with pytest.raises(KeyboardInterrupt):
        _tuned(source, "linear", 2.0)
    assert source.model.scheme.scaling is None


@pytest.mark.parametrize(
    ("source", "rope_type", "words"),
    [
        (
            lambda: _source(dataclasses.replace(ROPE, scheme="alibi")),
            "linear",
            "checkpoint must be a RoPE model .*got alibi",
        ),
        (
            lambda: _source(task="copy"),
            "linear",
            "checkpoint must be a language model .task lm. to fine-tune .got copy",
        ),
        (lambda: _source(task="passkey"), "yarn", "checkpoint must be a language model"),
        (lambda: _source(), "xpos", "scaling must be one of default, linear"),
    ],
)
def test_a_source_that_cannot_be_finetuned_is_refused(source, rope_type, words):
    with pytest.raises(ValueError, match=words):
        _tuned(source(), rope_type, 2.0)
