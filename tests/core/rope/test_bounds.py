"""posenc_core.rope.bounds: RoFormer's decay bound (default and any frequencies) and Men et al.'s base bound,
against loops from the papers."""

from __future__ import annotations

import cmath
import math

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posenc_core.rope import bounds as rope_bounds
from posenc_core.rope.bounds import (
    MAX_BOUND_CONTEXT,
    MAX_DISTANCES,
    base_bound,
    base_bound_curve,
    decay_bound,
    decay_bound_for_frequencies,
    min_base_for_context,
)
from posenc_core.rope.scaling import default_inv_freq, inv_freq

F64 = torch.float64
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def decay_oracle(r, d, base=10000.0):
    """(1/(d/2)) Σ_{j=1}^{d/2} |S_j|, S_j = Σ_{k=0}^{j-1} e^{i r θ_k} (Su et al. 2021 §3.4.3)."""
    total, partial = 0.0, 0j
    for k in range(d // 2):
        partial += cmath.exp(1j * r * base ** (-2 * k / d))
        total += abs(partial)
    return total / (d // 2)


def bound_oracle(m, d, base):
    """B(m) = Σ_{i=0}^{d/2-1} cos(m · base^(-2i/d)) (Men et al. 2024, Theorem 1)."""
    return sum(math.cos(m * base ** (-2 * i / d)) for i in range(d // 2))


def feasible(context_len, d, base):
    return base_bound(torch.arange(context_len), d, base, device="cpu", dtype=F64).min().item() >= 0


# --- RoFormer long-term decay -----------------------------------------------------------------------------


@pytest.mark.parametrize("d", [2, 8, 64, 128])
def test_decay_bound_at_zero_is_its_maximum(device, d):
    """|S_j(0)| = j, so the value at r = 0 is (1/(d/2)) Σ j = (d/2 + 1)/2, and |S_j| <= j bounds every r."""
    distances, values = decay_bound(300, d, device=device, dtype=F64)
    assert distances.shape == values.shape == (301,) and values.device.type == device.type
    assert values[0].item() == pytest.approx((d / 2 + 1) / 2, rel=1e-12)
    assert values.max().item() == pytest.approx((d / 2 + 1) / 2, rel=1e-12)


@pytest.mark.parametrize("base", [100.0, 10000.0])
def test_decay_bound_matches_the_partial_sum_loop(device, base):
    distances, values = decay_bound(250, 32, base, device=device, dtype=F64)
    assert distances.tolist() == list(range(251))
    for r in (1, 7, 64, 250):
        assert values[r].item() == pytest.approx(decay_oracle(r, 32, base), rel=1e-10)


def test_decay_bound_sampled_distances_are_exact(device):
    distances, values = decay_bound(100_000, 128, num_points=7, device=device, dtype=F64)
    assert distances.tolist() == pytest.approx([i * 100_000 / 6 for i in range(7)])
    expected = [decay_oracle(r, 128) for r in distances.tolist()]
    torch.testing.assert_close(values.cpu(), torch.tensor(expected, dtype=F64), rtol=1e-9, atol=1e-9)


def test_decay_bound_decays_on_average():
    """The RoFormer figure: the bound falls from 32.5 (d = 128) to about 6 on average past r = 200."""
    _, values = decay_bound(1000, 128)
    assert values.dtype == torch.float32
    assert values[:10].mean() > 20 and values[50:].max() < 15 and values[200:].mean() < 8


# --- RoFormer long-term decay for any frequencies ---------------------------------------------------------


def decay_oracle_for(r, frequencies):
    """RoFormer §3.4.3 with the frequencies given: (1/n) Σ_{j=1}^{n} |S_j|, S_j = Σ_{i<j} e^{i r θ_i}, a loop."""
    total, partial = 0.0, 0j
    for theta in frequencies:
        partial += cmath.exp(1j * r * theta)
        total += abs(partial)
    return total / len(frequencies)


@pytest.mark.parametrize(("d", "base"), [(8, 100.0), (128, 10000.0), (128, 5e5)])
def test_decay_bound_for_frequencies_equals_decay_bound_for_the_default_ones(device, d, base):
    distances, expected = decay_bound(3000, d, base, device=device, dtype=F64)
    got = decay_bound_for_frequencies(default_inv_freq(d, base, dtype=F64), distances, device=device, dtype=F64)
    assert got.shape == (3001,) and got.dtype == F64 and got.device.type == device.type
    torch.testing.assert_close(got, expected, rtol=1e-9, atol=1e-9)


def test_decay_bound_for_frequencies_matches_the_loop_on_yarn_frequencies(device):
    """A scaled inv_freq (YaRN, factor 8, L 2048, float32 as the models use it) against the paper's loop."""
    scaling = {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 2048}
    yarn = inv_freq(64, 1e4, scaling)[0]
    assert not torch.allclose(yarn, default_inv_freq(64, 1e4))  # input sanity: the frequencies are scaled
    distances = [0, 1, 2.5, 100, 2047, 4097, 65536]
    got = decay_bound_for_frequencies(yarn, distances, device=device, dtype=F64)
    expected = torch.tensor([decay_oracle_for(r, yarn.tolist()) for r in distances], dtype=F64)
    torch.testing.assert_close(got.cpu(), expected, rtol=1e-10, atol=1e-10)


@SETTINGS
@given(
    frequencies=st.lists(st.floats(1e-7, 10.0), min_size=1, max_size=40),
    r=st.floats(0.0, 1e6),
)
def test_decay_bound_for_frequencies_is_largest_at_zero(device, frequencies, r):
    """|S_j(0)| = j, so the value at distance 0 is (1/n) Σ j = (n + 1)/2, and |S_j(r)| <= j bounds every r."""
    values = decay_bound_for_frequencies(frequencies, [0, r], device=device, dtype=F64)
    assert values[0].item() == pytest.approx((len(frequencies) + 1) / 2, rel=1e-12)
    assert values[1].item() <= values[0].item() * (1 + 1e-12)


def test_decay_bound_for_frequencies_blocks_and_dtype(monkeypatch):
    inv, ks = default_inv_freq(32, 1e4, dtype=F64), torch.arange(1000)
    whole = decay_bound_for_frequencies(inv, ks, device="cpu", dtype=F64)
    monkeypatch.setattr(rope_bounds, "_DECAY_BLOCK_ELEMENTS", 16 * 7)  # 7 distances per block
    torch.testing.assert_close(decay_bound_for_frequencies(inv, ks, device="cpu", dtype=F64), whole, rtol=0, atol=0)
    assert decay_bound_for_frequencies(inv, ks, device="cpu").dtype == torch.float32
    assert decay_bound_for_frequencies(inv, [], device="cpu").shape == (0,)


# --- Men et al. base bound --------------------------------------------------------------------------------


def test_base_bound_matches_the_cosine_loop(device):
    positions = [0, 1, 17, 4095, 123_456, 2.5]
    values = base_bound(positions, 64, 5e5, device=device, dtype=F64)
    expected = torch.tensor([bound_oracle(m, 64, 5e5) for m in positions], dtype=F64)
    torch.testing.assert_close(values.cpu(), expected, rtol=1e-10, atol=1e-10)
    assert values[0].item() == 32.0


@pytest.mark.parametrize("context_len", [1, 5, 4096, 100_000])
def test_base_bound_curve_keeps_exact_points_and_the_minimum(device, context_len):
    m, values = base_bound_curve(context_len, 128, 30000.0, num_points=1000, device=device, dtype=F64)
    every = base_bound(torch.arange(context_len), 128, 30000.0, device="cpu", dtype=F64)
    assert m.dtype == torch.int64 and m.numel() <= max(context_len if context_len <= 1000 else 0, 1000)
    assert bool((m.diff() > 0).all()) and m[0].item() == 0 and m[-1].item() < context_len
    torch.testing.assert_close(values.cpu(), every[m.cpu()], rtol=1e-9, atol=1e-9)  # the matmul path is exact
    assert values.min().item() == pytest.approx(every.min().item(), abs=1e-9)
    assert values.max().item() == pytest.approx(every.max().item(), abs=1e-9)


PAPER_TABLE = {1024: 4.3e3, 2048: 1.6e4, 4096: 2.7e4, 8192: 8.4e4, 32768: 6.4e5}
"""Men et al. 2024 Table 1 (d = 128); Su 2024 finds 4.3e3, 1.2e4, 2.7e4, 8.4e4, 6.3e5 with a finer search."""


@pytest.mark.parametrize(("context_len", "paper"), sorted(PAPER_TABLE.items()))
def test_min_base_against_the_paper_table(context_len, paper):
    """Feasible, its neighbour rtol below is not, and within the rounding of the paper's table or below it."""
    found = min_base_for_context(context_len, 128)
    assert feasible(context_len, 128, found)
    assert not feasible(context_len, 128, found * (1 - 2e-6))
    assert 0.7 * paper <= found <= 1.05 * paper


def test_min_base_pinned_values():
    assert min_base_for_context(1024, 128) == pytest.approx(4293.44, rel=1e-5)
    assert min_base_for_context(4096, 128) == pytest.approx(26952.3, rel=1e-4)  # an island below 27000


def test_feasibility_is_not_monotone_in_the_base():
    """d = 128, 4k: 26953 passes, 27000 and 28000 fail, 28629 passes: bisection would be wrong."""
    assert [feasible(4096, 128, b) for b in (26953.0, 27000.0, 28000.0, 28629.0)] == [True, False, False, True]


@SETTINGS
@given(context_len=st.integers(3, 200), d=st.sampled_from([4, 8, 16]), points_per_decade=st.integers(5, 60))
def test_min_base_is_the_first_feasible_grid_base(context_len, d, points_per_decade):
    """Oracle from the definition: every grid base 10^(k/ppd) below the result fails at some m < L."""
    found = min_base_for_context(context_len, d, points_per_decade=points_per_decade, rtol=1e-5)
    assert feasible(context_len, d, found)
    below = torch.tensor(
        [10 ** (k / points_per_decade) for k in range(1, int(points_per_decade * math.log10(found)) + 1)], dtype=F64
    )
    below = below[below < found * (1 - 1e-5)]
    m, i = torch.arange(context_len, dtype=F64), torch.arange(d // 2, dtype=F64)
    values = torch.cos(m[None, :, None] * below[:, None, None] ** (-2 * i / d)).sum(-1)  # (bases, m)
    assert bool((values.amin(dim=1) < 0).all())


def test_the_search_runs_once_per_arguments(monkeypatch):
    """A sweep over the base asks for the same smallest base in every frame: the second ask is not searched again,
    another context is, and a refusal (none found) is not kept."""
    real, searched = rope_bounds._first_feasible_base, []

    def counted(grid, *args):
        searched.append(grid.length)
        return real(grid, *args)

    monkeypatch.setattr(rope_bounds, "_first_feasible_base", counted)
    first = min_base_for_context(333, 12, points_per_decade=97)  # arguments no other test asks for
    assert min_base_for_context(333, 12, points_per_decade=97) == first
    assert searched == [333]
    assert min_base_for_context(334, 12, points_per_decade=97) != 1.0 and searched == [333, 334]
    for _ in range(2):
        with pytest.raises(ValueError, match="max_base"):
            min_base_for_context(5, 2, points_per_decade=97, max_base=1e3)
    assert searched == [333, 334, 5, 5]


def test_min_base_small_contexts_and_hopeless_dims():
    assert min_base_for_context(1, 128) == 1.0 and min_base_for_context(2, 4) == 1.0
    with pytest.raises(ValueError, match="max_base"):
        min_base_for_context(3, 2, max_base=1e3)  # B(2) = cos 2 < 0 for every base when d = 2


# --- bad arguments ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: decay_bound(-1, 128), "max_distance"),
        (lambda: decay_bound(10, 127), "head_dim"),
        (lambda: decay_bound(10, 128, 1.0), "base"),
        (lambda: decay_bound(10, 128, float("nan")), "base"),
        (lambda: decay_bound(MAX_DISTANCES, 128), "max_distance"),
        (lambda: decay_bound(10, 128, num_points=0), "num_points"),
        (lambda: decay_bound(10, 128, dtype=torch.int64), "dtype"),
        (lambda: decay_bound_for_frequencies([[1.0, 0.5]], [0, 1]), "inv_freq"),
        (lambda: decay_bound_for_frequencies([], [0, 1]), "inv_freq"),
        (lambda: decay_bound_for_frequencies([1.0, 0.0], [0, 1]), "inv_freq"),
        (lambda: decay_bound_for_frequencies([1.0, -0.5], [0, 1]), "inv_freq"),
        (lambda: decay_bound_for_frequencies([1.0, float("nan")], [0, 1]), "inv_freq"),
        (lambda: decay_bound_for_frequencies("ab", [0, 1]), "inv_freq"),
        (lambda: decay_bound_for_frequencies([1.0], [0, -1]), "distances"),
        (lambda: decay_bound_for_frequencies([1.0], [0, float("inf")]), "distances"),
        (lambda: decay_bound_for_frequencies([1.0], [[0, 1]]), "distances"),
        (lambda: decay_bound_for_frequencies([1.0], [0, 1], dtype=torch.int64), "dtype"),
        (lambda: base_bound([0, float("nan")], 128), "positions"),
        (lambda: base_bound("ab", 128), "positions"),
        (lambda: base_bound_curve(0, 128), "context_len"),
        (lambda: base_bound_curve(MAX_BOUND_CONTEXT + 1, 128), "context_len"),
        (lambda: base_bound_curve(10, 128, num_points=1), "num_points"),
        (lambda: min_base_for_context(-5, 128), "context_len"),
        (lambda: min_base_for_context(4096, 0), "head_dim"),
        (lambda: min_base_for_context(4096, 128, points_per_decade=0), "points_per_decade"),
        (lambda: min_base_for_context(4096, 128, rtol=0.0), "rtol"),
        (lambda: min_base_for_context(4096, 128, max_base=1.0), "max_base"),
        (lambda: min_base_for_context(True, 128), "context_len"),
    ],
)
def test_bad_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
