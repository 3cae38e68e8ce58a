"""The LongRoPE search: its starts are PI, NTK-aware and YaRN as their formulas give them, it is deterministic for a
seed, its factors stay in the search space (sorted, within [1, 1.25·s]), it never does worse than its starts and its
best loss never rises, it leaves the model as it was, and bad arguments name themselves."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
import torch

from posenc_lab import checkpoints
from posenc_lab import longrope_search as ls
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.scaling import rope_scaling
from posenc_lab.settings import TrainSettings

ROPE = LabConfig(scheme="rope", d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=8)  # head_dim 8: 4 pairs


@pytest.fixture(autouse=True)
def few_tokens(monkeypatch):
    monkeypatch.setattr(ls, "SEARCH_TOKENS", 256)  # 32 windows of 16 tokens a candidate: fast enough for a test


def _checkpoint(config: LabConfig = ROPE) -> checkpoints.Checkpoint:
    torch.manual_seed(0)
    return checkpoints.Checkpoint(LabModel(config).eval(), TrainSettings(), [1.0], 1.0, "cpu")


def test_the_starts_are_pi_ntk_and_yarn_by_their_formulas():
    rules = ls.rule_factors(_checkpoint(), 4.0)
    d = ROPE.head_dim
    assert rules["pi"] == pytest.approx([4.0] * (d // 2))  # every position divided by s
    assert rules["ntk"] == pytest.approx([4.0 ** (2 * i / (d - 2)) for i in range(d // 2)])  # the base raised
    assert rules["yarn"][0] == pytest.approx(1.0) and rules["yarn"][-1] == pytest.approx(4.0)  # fast kept, slow / s
    assert rules["yarn"] == sorted(rules["yarn"])


def test_a_candidate_is_scored_on_windows_of_the_search_tokens(monkeypatch):
    asked = []
    original = ls.search_windows

    def recording(length, tokens):
        asked.append((length, tokens))
        return original(length, tokens)

    monkeypatch.setattr(ls, "search_windows", recording)
    ls.candidate_loss(_checkpoint(), [1.0, 1.0, 2.0, 2.0], 2.0)
    assert asked == [(16, 256)]  # s·L tokens a window, SEARCH_TOKENS as it is when the search runs
    windows, first = original(16, 256)
    assert windows.shape == (256 // 8, 17) and first == 8
    assert torch.equal(windows[1, :8], windows[0, 8:16])  # moved by half a window


def test_the_search_is_deterministic_for_a_seed_and_stays_in_its_space():
    checkpoint = _checkpoint()
    seen = []
    found = ls.search(checkpoint, 2.0, seed=1, generations=2, on_generation=lambda *step: seen.append(step))
    assert ls.search(checkpoint, 2.0, seed=1, generations=2) == found
    assert ls.search(checkpoint, 2.0, seed=2, generations=2) != found
    assert len(found.factors) == ROPE.head_dim // 2 and found.factors == sorted(found.factors)
    assert all(1.0 <= value <= 1.25 * 2.0 for value in found.factors)
    assert set(found.starts) == {"pi", "ntk", "yarn"} and found.loss <= min(found.starts.values())
    assert len(found.history) == 3 and all(a >= b for a, b in itertools.pairwise(found.history))
    assert found.loss == found.history[-1] == pytest.approx(ls.candidate_loss(checkpoint, found.factors, 2.0))
    assert [(done, total) for done, total, _ in seen] == [(1, 2), (2, 2)] and seen[-1][2] == found.loss
    assert ls.POPULATION <= found.evaluated <= ls.POPULATION + 2 * (ls.POPULATION - ls.PARENTS)


@pytest.mark.parametrize("aim", [[2.0, 2.0, 2.0, 2.0], [1.0, 1.3, 1.9, 2.4]])
def test_the_search_keeps_its_best_and_moves_toward_a_better_candidate(monkeypatch, aim):
    """On a loss of its own (the squared distance to ``aim``, no model run): with the PI start as the optimum the
    search keeps it to the end; with an optimum none of the rules hits, ten generations get closer than any rule."""

    def distance(checkpoint, factors, factor):
        return sum((value - target) ** 2 for value, target in zip(factors, aim, strict=True))

    monkeypatch.setattr(ls, "candidate_loss", distance)
    found = ls.search(_checkpoint(), 2.0, seed=3, generations=10)
    assert all(a >= b for a, b in itertools.pairwise(found.history)) and found.loss == found.history[-1]
    if aim == [2.0] * 4:
        assert found.starts["pi"] == 0.0 and found.factors == aim and set(found.history) == {0.0}
    else:
        assert found.loss < min(found.starts.values()) / 2 and found.history[-1] < found.history[0]


def test_no_generation_gives_the_first_populations_best():
    found = ls.search(_checkpoint(), 3.0, seed=0, generations=0)
    assert len(found.history) == 1 and found.loss == found.history[0] <= min(found.starts.values())


def test_a_candidate_is_scored_under_longrope_and_the_model_keeps_its_scaling():
    checkpoint = _checkpoint()
    mine = rope_scaling(ROPE, "linear", 2.0)
    checkpoint.model.scheme.scaling = mine
    plain = ls.candidate_loss(checkpoint, [1.0] * 4, 2.0)
    stretched = ls.candidate_loss(checkpoint, [1.0, 1.5, 2.0, 2.5], 2.0)
    assert plain != stretched and checkpoint.model.scheme.scaling is mine
    ls.search(checkpoint, 2.0, generations=1)
    assert checkpoint.model.scheme.scaling is mine


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"factor": 1.0}, "factor must be a number above 1 and at most 64 .got 1.0"),
        ({"factor": 0}, "factor must be a number above 1"),
        ({"factor": 65}, "factor must be a number above 1 and at most 64"),
        ({"factor": True}, "factor must be a number"),
        ({"factor": "4"}, "factor must be a number"),
        ({"generations": -1}, "generations must be a whole number from 0 to 100 .got -1"),
        ({"generations": 101}, "generations must be a whole number from 0 to 100"),
        ({"generations": 1.5}, "generations must be a whole number"),
        ({"generations": True}, "generations must be a whole number"),
    ],
)
def test_bad_arguments_name_themselves(options, words):
    with pytest.raises(ValueError, match=words):
        ls.search(_checkpoint(), **{"factor": 2.0, **options})


def test_a_model_without_rope_is_refused():
    with pytest.raises(ValueError, match="checkpoint must be a RoPE model to search LongRoPE factors .got t5"):
        ls.search(_checkpoint(dataclasses.replace(ROPE, scheme="t5")), 2.0)
