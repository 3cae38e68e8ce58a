"""Evaluation past the trained length: the windows are cut as documented, loss and perplexity agree, a run is
deterministic, copy and passkey accuracy are exact match, every row carries its standard error (by hand), a learned
table past its rows is reported, the work is bounded, bad input names itself."""

from __future__ import annotations

import math
import re
import statistics

import pytest
import torch
from torch.nn import functional as F

from posenc_lab import evaluate as ev
from posenc_lab.data import PASSKEY_DIGITS
from posenc_lab.limits import MAX_BATCH_SCORES, MAX_EVAL_SCORES, MAX_LENGTH
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
    windows, first = ev.lm_windows(24, "sliding", scored_tokens=1200)
    with torch.no_grad():
        logits = model(windows[:, :-1])
    expected = F.cross_entropy(logits[:, first:].reshape(-1, 256), windows[:, 1 + first :].reshape(-1))
    (result,) = ev.evaluate(model, "lm", [24], "sliding", scored_tokens=1200)
    assert result.loss == pytest.approx(float(expected), rel=1e-5)
    assert result.perplexity == pytest.approx(math.exp(result.loss))
    row = {"length": 24, "loss": result.loss, "loss_se": result.loss_se, "perplexity": result.perplexity}
    assert result.to_dict("lm") == row


@pytest.mark.parametrize("mode", ev.MODES)
def test_the_lm_standard_error_is_the_spread_of_the_window_means_by_hand(mode):
    model = _model("rope")
    windows, first = ev.lm_windows(16, mode, scored_tokens=256)
    with torch.no_grad():
        logits = model(windows[:, :-1])
    means = []
    for row in range(windows.shape[0]):  # each window's mean loss over its scored tokens, one at a time
        scored = F.cross_entropy(logits[row, first:], windows[row, 1 + first :])
        means.append(float(scored))
    (result,) = ev.evaluate(model, "lm", [16], mode, scored_tokens=256)
    assert len(means) > 10 and result.loss == pytest.approx(statistics.fmean(means), rel=1e-5)
    assert result.loss_se == pytest.approx(statistics.stdev(means) / math.sqrt(len(means)), rel=1e-4)
    assert 0 < result.loss_se < result.loss / 10
    (alone,) = ev.evaluate(model, "lm", [16], mode, scored_tokens=8)  # one window: no spread to measure
    assert ev.lm_windows(16, mode, scored_tokens=8)[0].shape[0] == 1 and alone.loss_se == 0.0


def test_evaluation_is_deterministic_and_small_batches_change_nothing():
    model = _model("rope")
    once = ev.evaluate(model, "lm", [8, 40], "nonoverlapping", scored_tokens=1200)
    assert once == ev.evaluate(model, "lm", [8, 40], "nonoverlapping", scored_tokens=1200)
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


class Oracle(torch.nn.Module):
    """Knows the examples (``inputs``, ``targets``): predicts every target right (logit 50 on it, 0 elsewhere),
    except a wrong answer at ``column`` in the first ``wrong`` examples."""

    def __init__(self, inputs: torch.Tensor, targets: torch.Tensor, wrong: int, column: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))
        self.config = LabConfig()  # its batches are cut as the default model's
        self.rows = {tuple(row.tolist()): index for index, row in enumerate(inputs)}
        self.answer = targets.clamp(min=0).clone()
        self.answer[:wrong, column] = (self.answer[:wrong, column] + 1) % 256

    def forward(self, tokens):
        picked = [self.rows[tuple(row.tolist())] for row in tokens]  # the examples of this batch, whatever its size
        return F.one_hot(self.answer[picked], 256).float() * 50


def _oracle(task: str, length: int, wrong: int, column: int) -> Oracle:
    inputs, targets = ev.copy_examples(length) if task == "copy" else ev.passkey_examples(length)[:2]
    return Oracle(inputs, targets, wrong, column)


# copy at 9 tokens: 4 letters, 5 answer tokens (the letters and the newline); passkey: the 5 asked digits
@pytest.mark.parametrize(("task", "length", "column"), [("copy", 9, 5), ("passkey", 30, 30 - 6)])
@pytest.mark.parametrize("wrong", [0, 1, 15, 60])
def test_accuracy_is_exact_match_with_its_standard_error_by_hand(task, length, column, wrong):
    """An answer wrong in one of its 5 tokens loses the whole example; its loss there is 50 (its logit margin),
    so 10 per answer token, 0 on a right example: the loss and its spread follow by hand."""
    count = ev.EXAMPLES[task]
    result = ev.exact_result(_oracle(task, length, wrong, column), task, length)
    share = 1 - wrong / count
    assert result.accuracy == pytest.approx(share)
    assert result.accuracy_se == pytest.approx(math.sqrt(share * (1 - share) / count))
    per_example = [10.0] * wrong + [0.0] * (count - wrong)
    assert result.loss == pytest.approx(statistics.fmean(per_example), abs=1e-6)
    assert result.loss_se == pytest.approx(statistics.stdev(per_example) / math.sqrt(count), abs=1e-6)
    batched = ev.exact_result(_oracle(task, length, wrong, column), task, length, batch_tokens=length * 7)
    assert batched == result  # rows cut into batches of 7 change nothing


def test_copy_and_passkey_rows_name_what_they_hold():
    copy = ev.exact_result(_oracle("copy", 9, 16, 5), "copy", 9).to_dict("copy")
    assert copy["letters"] == 4 and copy["accuracy"] == pytest.approx(0.75)
    assert set(copy) == {"length", "loss", "loss_se", "perplexity", "accuracy", "accuracy_se", "letters"}
    passkey = ev.exact_result(_oracle("passkey", 30, 0, 24), "passkey", 30)
    row = passkey.to_dict("passkey")
    assert set(row) == {"length", "loss", "loss_se", "perplexity", "accuracy", "accuracy_se", "distance"}
    assert row["accuracy"] == 1.0 and row["accuracy_se"] == 0.0 and row["distance"] == passkey.distance


@pytest.mark.parametrize("length", [21, 40, 100])
def test_passkey_examples_ask_for_their_digits_set_near_the_start(length):
    inputs, targets, distance = ev.passkey_examples(length)
    assert (
        inputs.shape == targets.shape == (ev.PASSKEY_EXAMPLES, length) == (ev.sequences_at("passkey", length), length)
    )
    distances = []
    for row in range(ev.PASSKEY_EXAMPLES):
        text = bytes(inputs[row].tolist()).decode("ascii")
        key = re.search(r"key (\d{5})\. ", text)
        scored = (targets[row] != IGNORE).nonzero().flatten()
        assert bytes(targets[row, scored].tolist()).decode() == key.group(1) and len(scored) == PASSKEY_DIGITS
        assert key.start() < ev.PASSKEY_LEAD and len(re.findall(r"\d", text)) == 2 * PASSKEY_DIGITS
        distances.append(int(scored[0]) + 1 - key.start(1))  # from the set digits to the asked ones
    assert distance == pytest.approx(statistics.fmean(distances))
    assert length - 9 - ev.PASSKEY_LEAD < distance <= length - 9  # grows with the length, as the task means
    again = ev.passkey_examples.__wrapped__(length)
    assert torch.equal(again[0], inputs) and again[2] == distance  # the same examples on every call


def test_a_model_is_evaluated_on_passkeys_and_a_too_short_length_is_refused():
    model = _model("rope")
    (result,) = ev.evaluate(model, "passkey", [24])
    assert 0 <= result.accuracy <= 1 and result.loss > 0 and result.distance == ev.passkey_examples(24)[2]
    with pytest.raises(ValueError, match="lengths must be at least 21 tokens for the passkey task .got 20"):
        ev.evaluate(model, "passkey", [20])


def test_copy_batches_change_nothing():
    model = _model("rope")
    whole, batched = ev.exact_result(model, "copy", 21), ev.exact_result(model, "copy", 21, batch_tokens=21 * 5)
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
    with pytest.raises(ValueError, match="task must be one of lm, copy, passkey"):
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
    assert ev.attention_scores(config, "copy", [1023]) <= MAX_EVAL_SCORES < ev.attention_scores(config, "copy", [1025])
    assert ev.check_work(config, "lm", [4096]) == (4096,)  # one lm length of 4,096 fits: 4 windows x 4096² x 8
    with pytest.raises(ValueError, match=r"one copy length up to 1023 tokens \(511 letters\) fits"):
        ev.check_work(config, "copy", [4096])
    with pytest.raises(ValueError, match=r"one lm length up to 4096 tokens fits"):
        ev.check_work(config, "lm", [4096, 4095])
    eight = [32, 64, 96, 128, 192, 256, 384, 512]  # half to eight times the default L of 64
    assert ev.check_work(config, "passkey", eight) == tuple(eight)

    class Untouched(LabModel):
        def forward(self, tokens):
            raise AssertionError("the model ran")

    with pytest.raises(ValueError, match="more than the 536,870,912 one evaluation may compute"):
        ev.evaluate(Untouched(config), "lm", [4096, 4095, 4094])


@pytest.mark.parametrize("task", ["lm", "copy", "passkey"])
@pytest.mark.parametrize("config", [LabConfig(), LabConfig(n_heads=2, n_layers=1, d_model=32)])
def test_the_longest_fitting_length_fits_and_the_next_does_not(task, config):
    longest = ev.longest_fitting(config, task)
    assert ev.attention_scores(config, task, [longest]) <= MAX_EVAL_SCORES
    step = 2 if task == "copy" else 1
    if longest + step <= MAX_LENGTH:
        assert ev.attention_scores(config, task, [longest + step]) > MAX_EVAL_SCORES
    assert longest % 2 == 1 or task != "copy"  # copy lengths are 2n + 1
    if task != "lm":
        with pytest.raises(ValueError, match=f"one {task} length up to {longest} tokens"):
            ev.check_work(config, task, [longest + step])


def test_no_fitting_length_is_none(monkeypatch):
    monkeypatch.setattr(ev, "MAX_EVAL_SCORES", 100)
    assert ev.longest_fitting(LabConfig(), "passkey") is None
    with pytest.raises(ValueError, match=r"one evaluation may compute$"):
        ev.check_work(LabConfig(), "passkey", [24])


def test_one_forward_pass_holds_a_bounded_number_of_scores():
    config = LabConfig(n_heads=16, d_model=256)
    for length in (8, 512, 2048, 4096):
        rows = ev.batch_rows(config, length, 16384)
        assert rows == 1 or rows * config.n_heads * length**2 <= MAX_BATCH_SCORES
        assert rows <= max(16384 // length, 1)
    assert ev.batch_rows(config, 4096, 16384) == 1
