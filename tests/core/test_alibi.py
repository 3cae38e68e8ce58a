"""posenc_core.alibi: reference numbers (docs/REFERENCE_NUMBERS.md §4, §9), slow oracles written from the paper and the
reference code, HF BLOOM itself, and properties."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_core import alibi


def press_get_slopes(n: int) -> list[float]:
    """Press's recursive ``get_slopes``, transcribed in plain Python (the oracle)."""

    def get_slopes_power_of_2(n: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + press_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


def mpt_gen_slopes(n_heads: int, alibi_bias_max: float) -> torch.Tensor:
    """MosaicML ``gen_slopes`` transcribed (float32, as MPT computes it)."""
    padded = 2 ** math.ceil(math.log2(n_heads))
    m = torch.arange(1, padded + 1, dtype=torch.float32) * (alibi_bias_max / padded)
    slopes = 1.0 / torch.pow(2, m)
    if padded != n_heads:
        slopes = torch.concat([slopes[1::2], slopes[::2]])[:n_heads]
    return slopes


def loop_bias(slopes: list[float], q_len: int, k_len: int, mode: str) -> torch.Tensor:
    """b[h,i,j] = -m_h (p_i - j), p_i = i + k_len - q_len; -inf above the diagonal when causal."""
    offset = k_len - q_len
    out = torch.empty(len(slopes), q_len, k_len, dtype=torch.float64)
    for h, m in enumerate(slopes):
        for i in range(q_len):
            for j in range(k_len):
                if mode == "causal":
                    out[h, i, j] = -m * (i + offset - j) if j <= i + offset else -math.inf
                else:
                    out[h, i, j] = -m * abs(i + offset - j)
    return out


# ---------------------------------------------------------------- reference numbers (§4)


@pytest.mark.parametrize(
    ("n_heads", "expected"),
    [
        (1, [2**-8]),
        (2, [2**-4, 2**-8]),
        (3, [2**-4, 2**-8, 2**-2]),
        (5, [2**-2, 2**-4, 2**-6, 2**-8, 2**-1]),
        (6, [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]),
        (8, [2.0**-k for k in range(1, 9)]),
        (16, [2 ** (-k / 2) for k in range(1, 17)]),
    ],
)
def test_slopes_spec_vectors(device, n_heads, expected):
    got = alibi.slopes(n_heads, device=device, dtype=torch.float64)
    assert got.device.type == device.type
    torch.testing.assert_close(got.cpu(), torch.tensor(expected, dtype=torch.float64), rtol=1e-15, atol=0)


def test_slopes_12_heads_spec(device):
    expected = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    expected += [0.70710678, 0.35355339, 0.17677670, 0.08838835]
    got = alibi.slopes(12, device=device, dtype=torch.float64).cpu()
    torch.testing.assert_close(got, torch.tensor(expected, dtype=torch.float64), rtol=0, atol=5e-9)
    torch.testing.assert_close(torch.log2(got[8:]), torch.tensor([-0.5, -1.5, -2.5, -3.5], dtype=torch.float64))


def test_slopes_112_heads_bloom_spec(device):
    got = alibi.slopes(112, device=device, dtype=torch.float64).cpu()
    assert got.shape == (112,)
    expected = torch.tensor([0.9170040, 2**-8, 0.9576033, 0.0163168], dtype=torch.float64)
    torch.testing.assert_close(got[[0, 63, 64, 111]], expected, rtol=0, atol=5e-8)
    assert got[0].item() == 2 ** (-1 / 8) and got[64].item() == 2 ** (-1 / 16) and got[111].item() == 2 ** (-95 / 16)


def test_bias_rows_spec_slope_half(device):
    canonical = alibi.bias([0.5], 4, device=device)
    reference = alibi.reference_bias([0.5], 4, device=device)
    symmetric = alibi.bias([0.5], 4, mode="symmetric", device=device)
    assert canonical[0, 3].tolist() == [-1.5, -1.0, -0.5, 0.0]
    assert reference[0, 3].tolist() == [0.0, 0.5, 1.0, 1.5]
    distance = (torch.arange(4)[:, None] - torch.arange(4)[None, :]).abs()
    assert torch.equal(symmetric[0].cpu(), -0.5 * distance.float())
    torch.testing.assert_close(torch.softmax(canonical[0, 3], -1), torch.softmax(reference[0, 3], -1))


# ---------------------------------------------------------------- oracles


def test_slopes_equal_press_reference_for_every_n():
    for n in range(1, alibi.MAX_HEADS + 1):
        reference = torch.tensor(press_get_slopes(n), dtype=torch.float64)
        assert torch.equal(alibi.slopes(n, device="cpu"), reference.float()), n  # bit for bit in float32
        # the reference accumulates ratio**i rounding; ours is exp2 of the exact exponent
        torch.testing.assert_close(alibi.slopes(n, device="cpu", dtype=torch.float64), reference, rtol=2e-14, atol=0)


def test_slopes_equal_hf_bloom_build_alibi_tensor(device):
    modeling_bloom = pytest.importorskip("transformers.models.bloom.modeling_bloom")
    for n in [*range(1, 33), 40, 64, 71, 96, 112, 128]:
        mask = torch.ones(1, 7, dtype=torch.int64, device=device)
        hf = modeling_bloom.build_alibi_tensor(mask, n, torch.float32)  # (H, 1, 7) = m_h * j
        hf_slopes = hf[:, 0, 1]
        torch.testing.assert_close(hf_slopes, alibi.slopes(n, device=device), rtol=2e-6, atol=0)
        # the last query sees every key, so its reference row is HF's row
        ours = alibi.reference_bias(n, 7, device=device)[:, -1, :]
        torch.testing.assert_close(hf[:, 0, :], ours, rtol=2e-6, atol=0)


@pytest.mark.parametrize("alibi_bias_max", [8.0, 4.0, 12.0, 16.0])
def test_mpt_slopes_equal_llm_foundry_gen_slopes(device, alibi_bias_max):
    for n in [1, 2, 3, 5, 6, 7, 12, 24, 40, 64, 100]:
        got = alibi.mpt_slopes(n, alibi_bias_max, device=device)
        torch.testing.assert_close(got.cpu(), mpt_gen_slopes(n, alibi_bias_max), rtol=1e-6, atol=0)


def test_mpt_slopes_equal_reference_at_max_8(device):
    for n in range(1, 129):
        assert torch.equal(alibi.mpt_slopes(n, device=device), alibi.slopes(n, device=device)), n


@pytest.mark.parametrize(
    ("n_heads", "q_len", "k_len", "mode"),
    [(1, 1, 1, "causal"), (4, 5, 5, "causal"), (3, 4, 4, "symmetric"), (6, 3, 7, "causal"), (5, 2, 6, "symmetric")],
)
def test_bias_equals_loop(device, n_heads, q_len, k_len, mode):
    expected = loop_bias(press_get_slopes(n_heads), q_len, k_len, mode)
    got = alibi.bias(n_heads, q_len, k_len, mode=mode, device=device, dtype=torch.float64)
    assert got.shape == (n_heads, q_len, k_len)
    torch.testing.assert_close(got.cpu(), expected, rtol=1e-14, atol=0)


@pytest.mark.parametrize(("q_len", "k_len"), [(5, 5), (2, 6), (1, 9)])
def test_reference_bias_equals_loop_and_softmax(device, q_len, k_len):
    n_heads = 6
    slopes = press_get_slopes(n_heads)
    offset = k_len - q_len
    expected = torch.tensor(
        [[[m * j if j <= i + offset else -math.inf for j in range(k_len)] for i in range(q_len)] for m in slopes],
        dtype=torch.float64,
    )
    reference = alibi.reference_bias(n_heads, q_len, k_len, device=device, dtype=torch.float64)
    torch.testing.assert_close(reference.cpu(), expected, rtol=1e-14, atol=0)
    canonical = alibi.bias(n_heads, q_len, k_len, device=device, dtype=torch.float64)
    torch.testing.assert_close(torch.softmax(reference, -1), torch.softmax(canonical, -1), rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------- properties


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


# ---------------------------------------------------------------- attention to the past


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


def brute_span(slope: float, mass: float, query_position: int | None) -> int:
    """Sum the attention from the most recent key back until it reaches ``mass``."""
    length = query_position + 1 if query_position is not None else 10**6
    total = (1 - math.exp(-slope * length)) / (1 - math.exp(-slope))
    held = 0.0
    for count in range(1, length + 1):
        held += math.exp(-slope * (count - 1)) / total
        if held >= mass:
            return count
    return length


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


# ---------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: alibi.slopes(0), "n_heads"),
        (lambda: alibi.slopes(alibi.MAX_HEADS + 1), "n_heads"),
        (lambda: alibi.slopes(True), "n_heads"),
        (lambda: alibi.slopes(2.5), "n_heads"),
        (lambda: alibi.slopes(8, dtype=torch.float16), "dtype"),
        (lambda: alibi.mpt_slopes(0), "n_heads"),
        (lambda: alibi.mpt_slopes(8, 0.0), "alibi_bias_max"),
        (lambda: alibi.mpt_slopes(8, math.nan), "alibi_bias_max"),
        (lambda: alibi.bias(8, -1), "q_len"),
        (lambda: alibi.bias(8, 0), "q_len"),
        (lambda: alibi.bias(8, 4, 3), "k_len"),
        (lambda: alibi.bias(0, 4), "n_heads"),
        (lambda: alibi.bias(8, 4, mode="bidirectional"), "mode"),
        (lambda: alibi.bias(8, 4, heads=[8]), "heads"),
        (lambda: alibi.bias(8, 4, heads=[-1]), "heads"),
        (lambda: alibi.bias(8, 4, query_positions=[4]), "query_positions"),
        (lambda: alibi.bias(8, 4, 6, key_positions=torch.tensor([6])), "key_positions"),
        (lambda: alibi.bias(8, 4, key_positions=torch.tensor([0.5])), "key_positions"),
        (lambda: alibi.bias([0.5, 0.0], 4), "n_heads"),
        (lambda: alibi.bias(torch.tensor([0.5, math.nan]), 4), "n_heads"),
        (lambda: alibi.bias([], 4), "n_heads"),
        (lambda: alibi.bias(["a"], 4), "n_heads"),
        (lambda: alibi.reference_bias(8, 4, dtype=torch.int64), "dtype"),
        (lambda: alibi.reference_bias(8, 4, 2), "k_len"),
        (lambda: alibi.attention_to_past(8, -1), "query_position"),
        (lambda: alibi.attention_to_past(8, 3, distances=[4]), "distances"),
        (lambda: alibi.attention_to_past(-0.5, 3), "n_heads"),
        (lambda: alibi.effective_span(8, 0.0), "mass"),
        (lambda: alibi.effective_span(8, 1.0), "mass"),
        (lambda: alibi.effective_span(8, query_position=-2), "query_position"),
    ],
)
def test_bad_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
