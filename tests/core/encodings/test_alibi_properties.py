"""posenc_core.encodings.alibi properties: slopes, the tutorial formulas of docs/REFERENCE_NUMBERS.md §9, bias
shapes, slicing."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_core.encodings import alibi
from tests.core.alibi_helpers import loop_bias, press_get_slopes


def test_slopes_inside_unit_interval_and_geometric_for_powers_of_two(device):
    for n in range(1, 257):
        values = alibi.slopes(n, device=device, dtype=torch.float64)
        assert bool(((values > 0) & (values <= 1)).all()), n
        if n & (n - 1) == 0:
            ratios = values[1:] / values[:-1]
            torch.testing.assert_close(ratios, torch.full_like(ratios, 2 ** (-8 / n)), rtol=1e-14, atol=0)
            assert values[0].item() == 2 ** (-8 / n)


def test_non_power_of_two_starts_with_lower_power_then_interleaves(device):
    for n in [3, 5, 6, 7, 12, 20, 24, 40, 96, 112, 200]:
        closest = 2 ** math.floor(math.log2(n))
        values = alibi.slopes(n, device=device)
        assert torch.equal(values[:closest], alibi.slopes(closest, device=device))
        assert torch.equal(values[closest:], alibi.slopes(2 * closest, device=device)[0::2][: n - closest])


def test_tutorial_slope_formulas_differ(device):
    """§9 (a) and (b): the off-by-one exponent and the ceil-power truncation are not ALiBi."""
    tutorial_a = 2 ** (-8 * torch.arange(8, dtype=torch.float64) / 8)
    assert tutorial_a.tolist() == [1.0, *[2.0**-k for k in range(1, 8)]]
    ours_8 = alibi.slopes(8, device=device, dtype=torch.float64).cpu()
    assert not torch.allclose(ours_8, tutorial_a)
    torch.testing.assert_close(tutorial_a / 2, ours_8)  # every tutorial slope is twice the reference
    ours_12 = alibi.slopes(12, device=device, dtype=torch.float64).cpu()
    assert not torch.allclose(ours_12, 2 ** (-8 * torch.arange(12, dtype=torch.float64) / 12))
    tutorial_b = torch.tensor(press_get_slopes(16)[:12], dtype=torch.float64)
    torch.testing.assert_close(tutorial_b, 2 ** (-torch.arange(1, 13, dtype=torch.float64) / 2))
    assert not torch.allclose(ours_12, tutorial_b)
    assert 2**-8 in ours_12.tolist() and 2**-8 not in tutorial_b.tolist()


def test_symmetric_bias_is_symmetric_and_causal_upper_triangle_is_minus_inf(device):
    symmetric = alibi.bias(7, 9, mode="symmetric", device=device)
    assert torch.equal(symmetric, symmetric.transpose(1, 2))
    causal = alibi.bias(7, 9, device=device)
    above = torch.ones(9, 9, dtype=torch.bool, device=device).triu(1)
    assert bool(torch.isneginf(causal[:, above]).all())
    assert bool(torch.isfinite(causal[:, ~above]).all())
    assert torch.equal(causal[:, ~above], symmetric[:, ~above])
    assert bool((causal[:, ~above] <= 0).all())


def test_decoding_queries_are_the_last_keys(device):
    full = alibi.bias(5, 8, device=device)
    assert torch.equal(alibi.bias(5, 3, 8, device=device), full[:, 5:, :])
    assert torch.equal(alibi.bias(5, 1, 8, device=device), full[:, -1:, :])
    reference_full = alibi.reference_bias(5, 8, device=device)
    assert torch.equal(alibi.reference_bias(5, 3, 8, device=device), reference_full[:, 5:, :])


@pytest.mark.parametrize("function", [alibi.bias, alibi.reference_bias])
def test_sampled_positions_equal_slicing(device, function):
    full = function(12, 40, 50, device=device)
    heads, queries, keys = [11, 0, 5], [0, 7, 39, 39, 20], torch.tensor([49, 0, 3, 48])
    got = function(12, 40, 50, heads=heads, query_positions=queries, key_positions=keys, device=device)
    assert torch.equal(got, full[heads][:, queries][:, :, keys.tolist()])
    assert torch.equal(function(12, 40, 50, heads=range(12), device=device), full)


def test_sampled_positions_of_a_long_context_stay_small(device):
    positions = torch.linspace(0, 1_000_000 - 1, 50).round().to(torch.int64)
    got = alibi.bias(128, 1_000_000, query_positions=positions, key_positions=positions, device=device)
    assert got.shape == (128, 50, 50)
    head_slopes = alibi.slopes(128, device=device)
    torch.testing.assert_close(got[:, -1, 0], -head_slopes * 999_999.0)


def test_given_slopes_replace_the_head_count(device):
    mpt = alibi.mpt_slopes(4, 4.0, device=device)
    got = alibi.bias(mpt, 3, device=device, dtype=torch.float64)
    torch.testing.assert_close(got, loop_bias(mpt.tolist(), 3, 3, "causal").to(device), rtol=1e-14, atol=0)
    assert torch.equal(alibi.bias(8, 5, device=device), alibi.bias(alibi.slopes(8), 5, device=device))
