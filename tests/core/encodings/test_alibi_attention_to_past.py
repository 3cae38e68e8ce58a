"""posenc_core.encodings.alibi.attention_to_past and effective_span: softmax of a bias row, against brute-force sums."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_core.encodings import alibi
from tests.core.alibi_helpers import brute_span


def test_attention_to_past_is_softmax_of_the_bias_row(device):
    for i in [0, 1, 5, 63]:
        expected = torch.softmax(alibi.bias(12, i + 1, device=device, dtype=torch.float64)[:, i, :], -1)
        got = alibi.attention_to_past(12, i, device=device, dtype=torch.float64)
        assert got.shape == (12, i + 1)
        torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-300)
        torch.testing.assert_close(got.sum(-1), torch.ones(12, dtype=torch.float64, device=device))


def test_attention_to_past_brute_force_and_sampled_distances(device):
    slope, i = 0.25, 10
    weights = [math.exp(-slope * (i - j)) for j in range(i + 1)]
    expected = torch.tensor([[w / sum(weights) for w in weights]], dtype=torch.float64)
    got = alibi.attention_to_past(slope, i, device=device, dtype=torch.float64)
    torch.testing.assert_close(got.cpu(), expected, rtol=1e-13, atol=0)
    sampled = alibi.attention_to_past([0.1, slope], i, heads=[1], distances=[0, 3, 10], device=device)
    torch.testing.assert_close(sampled.cpu(), expected[:, [i, i - 3, 0]].float())


def test_attention_to_past_huge_position_sampled(device):
    distances = [0, 1, 10, 1000, 999_999]
    got = alibi.attention_to_past(8, 999_999, distances=distances, device=device, dtype=torch.float64)
    head_slopes = alibi.slopes(8, device=device, dtype=torch.float64)[:, None]
    expected = (1 - torch.exp(-head_slopes)) * torch.exp(-head_slopes * torch.tensor(distances, device=device))
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=0)  # the past is long enough to be unbounded


@pytest.mark.parametrize("mass", [0.5, 0.9, 0.99])
@pytest.mark.parametrize("query_position", [None, 0, 7, 100])
def test_effective_span_equals_brute_force(device, mass, query_position):
    head_slopes = [*alibi.slopes(8, dtype=torch.float64, device="cpu").tolist(), 0.9, 0.03]
    got = alibi.effective_span(head_slopes, mass, query_position=query_position, device=device)
    assert got.dtype == torch.int64
    assert got.tolist() == [brute_span(m, mass, query_position) for m in head_slopes]


def test_effective_span_grows_as_slopes_shrink(device):
    spans = alibi.effective_span(16, device=device)
    assert bool((spans[1:] >= spans[:-1]).all())  # powers of two: slopes decrease with the head index
    assert alibi.effective_span(16, heads=[3, 15], device=device).tolist() == spans[[3, 15]].tolist()
    assert spans[0].item() == math.ceil(-math.log(0.1) / 2 ** (-0.5))
