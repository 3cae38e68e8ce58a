"""Training the lab's models: a few steps on a tiny model lower the loss, a seed gives the same run twice, the copy
task's loss reads only the copied letters and the passkey task's only the asked digits, a run can continue from a
model (and its RoPE scaling) at a length of its own, and bad settings name the setting."""

from __future__ import annotations

import itertools
import math
import re

import pytest
import torch
from torch.nn import functional as F

from posenc_lab import train as training
from posenc_lab.data import PASSKEY_DIGITS, SplitMix64
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.scaling import rope_scaling

TINY = LabConfig(scheme="alibi", d_model=32, n_heads=2, n_layers=1, d_ff=64, max_len=32)


def test_a_few_steps_lower_the_loss():
    _, losses = training.train(TINY, training.TrainSettings(steps=40, batch_size=8, learning_rate=1e-2))
    assert sum(losses[-5:]) / 5 < sum(losses[:5]) / 5 - 1.0, losses


@pytest.mark.parametrize("task", training.TASKS)
def test_a_seed_gives_the_same_run_twice_and_another_seed_another(task):
    runs = [
        training.train(TINY, training.TrainSettings(task=task, steps=3, batch_size=4, seed=seed)) for seed in (5, 5, 6)
    ]
    (first, first_losses), (again, again_losses), (_, other_losses) = runs
    assert first_losses == again_losses and first_losses != other_losses
    for mine, theirs in zip(first.parameters(), again.parameters(), strict=True):
        assert torch.equal(mine, theirs)


def test_progress_is_reported_after_every_step():
    seen = []
    training.train(TINY, training.TrainSettings(steps=3, batch_size=2), on_step=lambda *step: seen.append(step))
    assert [(step, steps) for step, steps, _ in seen] == [(1, 3), (2, 3), (3, 3)]


def test_a_copy_row_is_scored_on_its_copy_only():
    inputs, targets = training.copy_batch(SplitMix64(2), 32, 4)
    for row in range(4):
        text = bytes(int(t) for t in inputs[row] if t).decode()
        letters = text.split("|")[0]
        scored = bytes(int(t) for t in targets[row] if t != training.IGNORE).decode()
        assert scored == letters + "\n"  # each copied letter and the newline, predicted from the byte before
        assert 1 <= len(letters) <= 15
    assert inputs.shape == targets.shape == (4, 31)  # rows as long as the longest string needs


def test_copy_strings_stop_at_the_training_length_of_the_task():
    inputs, _ = training.copy_batch(SplitMix64(5), 64, 64)
    longest = max(bytes(int(t) for t in row if t).decode().index("|") for row in inputs)
    assert inputs.shape[1] == 2 * training.COPY_LETTERS + 1 and 15 < longest <= training.COPY_LETTERS


def test_a_passkey_row_is_scored_on_the_five_asked_digits_only():
    inputs, targets = training.passkey_batch(SplitMix64(3), 48, 16)
    assert inputs.shape == targets.shape == (16, 48)
    distances = set()
    for row in range(16):
        scored = (targets[row] != training.IGNORE).nonzero().flatten().tolist()
        text = bytes(inputs[row].tolist()).decode("ascii")
        key = re.search(r"key (\d{5})\. ", text)
        asked = bytes(targets[row, scored].tolist()).decode("ascii")
        assert len(scored) == PASSKEY_DIGITS and scored == list(range(scored[0], scored[0] + PASSKEY_DIGITS))
        assert asked == key.group(1) and scored[-1] == 46  # the last input (the last digit) predicts the newline
        assert text[: scored[0] + 1].endswith("key? ")  # the first asked digit is predicted from the question
        assert text[scored[0] + 1 :] == asked  # each later digit from the true digits before it
        distances.add(scored[0] + 1 - key.start(1))
    assert len(distances) > 8  # the passkey is set at many places, so its distance varies


def test_a_passkey_batch_needs_room_for_the_passkey():
    with pytest.raises(ValueError, match="length must be at least 21 tokens for the passkey task .got 20"):
        training.passkey_batch(SplitMix64(1), 20, 2)


@pytest.mark.parametrize(
    ("task", "make"),
    [
        ("copy", lambda rng: training.copy_batch(rng, 32, 3)),
        ("passkey", lambda rng: training.passkey_batch(rng, 32, 3)),
        ("lm", lambda rng: training.lm_batch(training.training_text(), rng, 32, 3)),
    ],
)
def test_task_batch_is_the_tasks_own_batch(task, make):
    text = training.training_text() if task == "lm" else None
    made = training.task_batch(task, text, SplitMix64(9), 32, 3)
    expected = make(SplitMix64(9))
    assert all(torch.equal(mine, theirs) for mine, theirs in zip(made, expected, strict=True))


ROPE = LabConfig(scheme="rope", d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=8)


def test_a_run_trains_at_its_settings_length_or_at_the_models(monkeypatch):
    seen = []
    original = training.task_batch

    def recording(task, text, rng, length, batch_size):
        seen.append(length)
        return original(task, text, rng, length, batch_size)

    monkeypatch.setattr(training, "task_batch", recording)
    training.train(ROPE, training.TrainSettings(steps=2, batch_size=2, length=24))
    training.train(ROPE, training.TrainSettings(steps=1, batch_size=2))
    assert seen == [24, 24, ROPE.max_len]


def test_a_run_continues_from_a_model_and_its_scaling_and_leaves_the_model_as_it_was():
    torch.manual_seed(42)
    start = LabModel(ROPE)
    start.scheme.scaling = rope_scaling(ROPE, "linear", 2.0)
    before = {name: tensor.clone() for name, tensor in start.state_dict().items()}
    settings = training.TrainSettings(steps=1, batch_size=4, seed=5, length=16)
    model, losses = training.train(ROPE, settings, start=start)
    inputs, targets = training.lm_batch(training.training_text(), SplitMix64(5), 16, 4)
    with torch.no_grad():
        first = F.cross_entropy(start(inputs).reshape(-1, 256), targets.reshape(-1))
    assert losses[0] == pytest.approx(float(first), rel=1e-5)  # the first step ran the start model's weights
    _, fresh = training.train(ROPE, settings)
    assert fresh[0] != pytest.approx(losses[0], rel=1e-3)  # from seeded random weights it would not
    assert model.scheme.scaling == start.scheme.scaling == rope_scaling(ROPE, "linear", 2.0)
    assert all(torch.equal(tensor, before[name]) for name, tensor in start.state_dict().items())
    assert not all(torch.equal(tensor, before[name]) for name, tensor in model.state_dict().items())


def test_the_learning_rate_warms_up_then_decays_to_a_tenth():
    settings = training.TrainSettings(steps=100, learning_rate=1e-3)
    rates = [training.learning_rate(step, settings) for step in range(100)]
    assert rates[0] == pytest.approx(1e-4) and rates[9] == pytest.approx(1e-3)
    assert rates[-1] == pytest.approx(1e-4, rel=0.01) and all(a >= b for a, b in itertools.pairwise(rates[9:]))


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"task": "sort"}, "task must be one of lm, copy, passkey"),
        ({"steps": 0}, "steps must be a whole number from 1 to 100,000"),
        ({"batch_size": 1.5}, "batch_size must be a whole number"),
        ({"learning_rate": 0}, "learning_rate must be between 0 and 1"),
        ({"length": 1}, "length must be a whole number from 2 to 4,096"),
        ({"length": 5000}, "length must be a whole number from 2 to 4,096"),
        ({"length": 64.0}, "length must be a whole number"),
    ],
)
def test_bad_settings_name_the_setting(settings, words):
    with pytest.raises(ValueError, match=words):
        training.TrainSettings(**settings)


def test_a_checkpoint_trains_and_evaluates_on_each_device(device):
    """On a GPU the default model is the shipped one (the larger one only when asked for); on either device a seed
    gives the same run twice."""
    from posenc_lab.evaluate import evaluate

    settings = training.TrainSettings(steps=2, batch_size=2, seed=4)
    first, again = (training.train_checkpoint("rope", settings, device=device) for _ in range(2))
    assert first.device == device.type and first.losses == again.losses
    assert first.config == LabConfig(scheme="rope") and next(first.model.parameters()).device.type == device.type
    (result,) = evaluate(first.model, "lm", [96])
    assert result.loss is not None and result.loss > 0
    with pytest.raises(ValueError, match="config.scheme must be the scheme trained"):
        training.train_checkpoint("alibi", settings, device=device, config=LabConfig(scheme="rope"))


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"steps": 100_001}, "steps must be a whole number from 1 to 100,000 .got 100001"),
        ({"batch_size": 10**6}, "batch_size must be a whole number from 1 to 1,024"),
        ({"seed": -1}, "seed must be a whole number from 0 to 4,294,967,295"),
        ({"seed": 2**64}, "seed must be a whole number from 0 to 4,294,967,295 .got a whole number of 65 bits"),
        ({"learning_rate": math.nan}, "learning_rate must be between 0 and 1"),
    ],
)
def test_a_run_past_its_bounds_is_refused_in_its_settings(settings, words):
    with pytest.raises(ValueError, match=words):
        training.TrainSettings(**settings)
