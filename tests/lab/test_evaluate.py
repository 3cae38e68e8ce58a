"""Evaluation past the trained length: the windows are cut as documented, loss and perplexity agree, a run is
deterministic, copy accuracy is exact match, a learned table past its rows is reported, bad input names itself."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn import functional as F

from posenc_lab import evaluate as ev
from posenc_lab.limits import MAX_BATCH_SCORES, MAX_EVAL_SCORES
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.train import IGNORE

TINY = dict(d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=16)


def _model(scheme: str = "alibi") -> LabModel:
    torch.manual_seed(0)
    return LabModel(LabConfig(scheme=scheme, **TINY)).eval()


def test_nonoverlapping_windows_are_consecutive_and_score_every_token():
    windows, first = ev.lm_windows(32, "nonoverlapping")
    text = ev.evaluation_tokens()
    assert first == 0 and windows.shape == (ev.SCORED_TOKENS // 32, 33)
    assert torch.equal(windows[1], text[32:65]) and windows.shape[0] * 32 == ev.SCORED_TOKENS


def test_sliding_windows_move_by_half_and_score_the_last_half():
    windows, first = ev.lm_windows(32, "sliding")
    text = ev.evaluation_tokens()
    assert first == 16 and torch.equal(windows[3], text[48:81])
    assert windows.shape[0] * (32 - first) == ev.SCORED_TOKENS  # the same scored tokens as non-overlapping


def test_the_loss_is_the_mean_cross_entropy_of_the_scored_tokens_by_hand():
    model = _model()
    windows, first = ev.lm_windows(24, "sliding")
    with torch.no_grad():
        logits = model(windows[:, :-1])
    expected = F.cross_entropy(logits[:, first:].reshape(-1, 256), windows[:, 1 + first :].reshape(-1))
    (result,) = ev.evaluate(model, "lm", [24], "sliding")
    assert result.loss == pytest.approx(float(expected), rel=1e-5)
    assert result.perplexity == pytest.approx(math.exp(result.loss))
    assert result.to_dict("lm") == {"length": 24, "loss": result.loss, "perplexity": result.perplexity}


def test_evaluation_is_deterministic_and_small_batches_change_nothing():
    model = _model("rope")
    once = ev.evaluate(model, "lm", [8, 40], "nonoverlapping")
    assert once == ev.evaluate(model, "lm", [8, 40], "nonoverlapping")
    windows, _ = ev.lm_windows(40, "nonoverlapping")
    assert torch.allclose(ev.token_losses(model, windows), ev.token_losses(model, windows, batch_tokens=200), atol=1e-5)


def test_position_losses_average_the_windows_per_position():
    model = _model("sinusoidal")
    losses = ev.position_losses(model, 20)
    windows, _ = ev.lm_windows(20, "nonoverlapping")
    assert losses.shape == (20,)
    assert torch.allclose(losses, ev.token_losses(model, windows).mean(dim=0))


def test_a_learned_table_asked_past_its_rows_says_so_and_does_not_clamp():
    model = _model("learned")
    inside, past = ev.evaluate(model, "lm", [16, 17], "sliding")
    assert inside.loss is not None and not inside.past_table
    assert past.loss is None and past.perplexity is None and past.past_table
    assert "16" in past.note and past.to_dict("lm")["past_table"] is True
    assert ev.position_losses(model, 32) is None
    (copy,) = ev.evaluate(model, "copy", [33])
    assert copy.past_table and copy.accuracy is None


def test_copy_examples_put_targets_on_the_copied_letters_only():
    inputs, targets = ev.copy_examples(11)  # 5 letters: abcde|abcde\n is 12 bytes, 11 inputs
    row, target = bytes(inputs[0].tolist()), targets[0]
    letters = row[:5]
    assert row == letters + b"|" + letters and row[5:6] == b"|"
    assert bytes(target[5:].tolist()) == letters + b"\n" and (target[:5] == IGNORE).all()


def test_copy_accuracy_is_exact_match_of_the_whole_copy():
    _, targets = ev.copy_examples(9)

    class Oracle(torch.nn.Module):
        """Predicts every target right, except a wrong letter in the first ``wrong`` examples."""

        def __init__(self, wrong: int):
            super().__init__()
            self.weight, self.wrong = torch.nn.Parameter(torch.zeros(1)), wrong
            self.config = LabConfig()  # its batches are cut as the default model's

        def forward(self, tokens):
            answer = targets.clamp(min=0).clone()
            answer[: self.wrong, 5] = (answer[: self.wrong, 5] + 1) % 256
            return F.one_hot(answer, 256).float() * 50

    assert ev.copy_result(Oracle(0), 9).accuracy == 1.0
    assert ev.copy_result(Oracle(16), 9).accuracy == pytest.approx(1 - 16 / ev.COPY_EXAMPLES)
    row = ev.copy_result(Oracle(16), 9).to_dict("copy")
    assert row["letters"] == 4 and set(row) == {"length", "loss", "perplexity", "accuracy", "letters"}


def test_copy_batches_change_nothing():
    model = _model("rope")
    whole, batched = ev.copy_result(model, 21), ev.copy_result(model, 21, batch_tokens=21 * 5)
    assert batched.loss == pytest.approx(whole.loss, rel=1e-6) and batched.accuracy == whole.accuracy


def test_fewer_scored_tokens_score_fewer_windows():
    windows, _ = ev.lm_windows(32, "sliding", scored_tokens=256)
    assert windows.shape[0] * 16 == 256
    with pytest.raises(ValueError, match="scored_tokens must be a whole number of at least 1"):
        ev.evaluate(_model(), "lm", [8], scored_tokens=0)


@pytest.mark.parametrize(("loss", "perplexity"), [(0.0, 1.0), (800.0, None), (float("nan"), None), (None, None)])
def test_a_perplexity_past_a_floats_range_is_none_not_an_error(loss, perplexity):
    assert ev.LengthResult(8, loss).perplexity == perplexity
    assert ev.LengthResult(8, loss).to_dict("lm")["perplexity"] == perplexity


@pytest.mark.parametrize("lengths", [[0], [2], [10**9], [8.0], [True], [], 64, "64", None])
def test_bad_lengths_name_the_argument(lengths):
    with pytest.raises(ValueError, match="lengths must be"):
        ev.evaluate(_model(), "lm", lengths)


def test_bad_task_and_mode_name_what_is_allowed():
    with pytest.raises(ValueError, match="task must be one of lm, copy"):
        ev.evaluate(_model(), "sort", [8])
    with pytest.raises(ValueError, match="mode must be one of sliding, nonoverlapping"):
        ev.evaluate(_model(), "lm", [8], "strided")


def test_a_repeated_length_is_evaluated_once_in_the_order_first_given():
    assert ev.check_lengths([32] * 20 + [8, 32, 16]) == (32, 8, 16)
    results = ev.evaluate(_model(), "lm", [16] * 20, scored_tokens=64)
    assert [result.length for result in results] == [16]
    with pytest.raises(ValueError, match="lengths must hold at most 16 different lengths .got 17"):
        ev.check_lengths(range(3, 20))


@pytest.mark.parametrize("mode", ev.MODES)
@pytest.mark.parametrize("length", [3, 16, 100, 4096])
def test_the_sequences_counted_for_the_bound_are_the_windows_evaluated(mode, length):
    windows, _ = ev.lm_windows(length, mode)
    assert ev.sequences_at("lm", length, mode) == windows.shape[0]
    assert ev.copy_examples(9)[0].shape[0] == ev.sequences_at("copy", 9)


def test_the_work_of_one_evaluation_is_bounded_before_any_model_runs():
    config = LabConfig()  # 4 heads x 2 layers
    assert ev.attention_scores(config, "copy", [724]) <= MAX_EVAL_SCORES < ev.attention_scores(config, "copy", [725])
    assert ev.check_work(config, "lm", [4096, 4095]) == (4096, 4095)  # two lm lengths of 4,096 fit
    with pytest.raises(ValueError, match=r"one copy length up to 724 tokens \(361 letters\) fits"):
        ev.check_work(config, "copy", [4096])

    class Untouched(LabModel):
        def forward(self, tokens):
            raise AssertionError("the model ran")

    with pytest.raises(ValueError, match="more than the 268,435,456 one evaluation may compute"):
        ev.evaluate(Untouched(config), "lm", [4096, 4095, 4094])


def test_one_forward_pass_holds_a_bounded_number_of_scores():
    config = LabConfig(n_heads=16, d_model=256)
    for length in (8, 512, 2048, 4096):
        rows = ev.batch_rows(config, length, 16384)
        assert rows == 1 or rows * config.n_heads * length**2 <= MAX_BATCH_SCORES
        assert rows <= max(16384 // length, 1)
    assert ev.batch_rows(config, 4096, 16384) == 1
