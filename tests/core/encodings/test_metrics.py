"""posenc_core.encodings.metrics: slow double-loop oracles, sinusoidal closed forms, subsets, bad arguments."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posenc_core.encodings import metrics
from posenc_core.encodings.learned import random_table
from posenc_core.encodings.metrics import (
    adjacent_distance_stats,
    compare_schemes,
    distance,
    distance_profile,
    offset_profile,
    offset_similarity,
    similarity_matrix,
)
from posenc_core.encodings.sinusoidal import LAYOUTS, encoding, inv_freq, relative_similarity

F64 = torch.float64


def similarity_oracle(table, p, q, kind):
    a, b = table[p].tolist(), table[q].tolist()
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    if kind == "dot":
        return dot
    norm_a, norm_b = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (norm_a * norm_b) if norm_a and norm_b else 0.0


def offset_oracle(table, offsets, kind):
    """For each k: the values sim(p, p+k), p = 0 .. L-1-k, then their mean and population std, in plain loops."""
    length = table.shape[0]
    means, stds = [], []
    for k in offsets:
        values = [similarity_oracle(table, p, p + k, kind) for p in range(length - k)]
        mean = sum(values) / len(values)
        means.append(mean)
        stds.append(math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)))
    return torch.tensor(means, dtype=F64), torch.tensor(stds, dtype=F64)


def _table(device, length=70, width=5, seed=0):
    table = random_table(length, width, std=1.0, seed=seed, device=device, dtype=F64)
    table[3] = 0.0  # an all-zero row: cosine 0 with everything
    return table


# --- similarity_matrix ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["dot", "cosine"])
def test_similarity_matrix_matches_oracle(device, kind):
    table = _table(device, length=12)
    got = similarity_matrix(table, kind=kind)
    assert got.shape == (12, 12) and got.device.type == device.type
    cpu = table.cpu()
    expected = torch.tensor([[similarity_oracle(cpu, p, q, kind) for q in range(12)] for p in range(12)], dtype=F64)
    torch.testing.assert_close(got.cpu(), expected, atol=1e-12, rtol=0)


def test_similarity_matrix_subsets_equal_slicing(device):
    table = _table(device, length=40)
    rows, cols = [0, 39, 7, 7], torch.tensor([5, 1])
    for kind in ("dot", "cosine"):
        full = similarity_matrix(table, kind=kind)
        torch.testing.assert_close(similarity_matrix(table, kind=kind, rows=rows, cols=cols), full[rows][:, cols])
    cosine = similarity_matrix(table, kind="cosine")
    nonzero = torch.tensor([p != 3 for p in range(40)], device=device)
    torch.testing.assert_close(cosine.diagonal()[nonzero], torch.ones(39, dtype=F64, device=device))


# --- offset_similarity ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["dot", "cosine"])
@pytest.mark.parametrize(
    ("offsets", "block_elements"),
    [
        (None, 2**22),  # every offset, one block (matmul path)
        (None, 700),  # every offset, many blocks merged (matmul path)
        (list(range(10, 90 - 10)), 900),  # a dense window of offsets, not starting at 0
        ([0, 3, 17, 69], 2**22),  # a few scattered offsets (gather path)
        ([69, 0, 5, 5, 40], 30),  # unsorted, repeated, many blocks (gather path)
    ],
)
def test_offset_similarity_matches_double_loop(device, monkeypatch, kind, offsets, block_elements):
    monkeypatch.setattr(metrics, "_BLOCK_ELEMENTS", block_elements)
    table = _table(device, length=90, width=6)
    ks, mean, std = offset_similarity(table, offsets, kind=kind)
    expected_ks = list(range(90)) if offsets is None else offsets
    assert ks.tolist() == expected_ks and ks.device.type == device.type
    expected_mean, expected_std = offset_oracle(table.cpu(), expected_ks, kind)
    torch.testing.assert_close(mean.cpu(), expected_mean, atol=1e-10, rtol=0)
    torch.testing.assert_close(std.cpu(), expected_std, atol=1e-10, rtol=0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(length=st.integers(1, 40), width=st.integers(1, 7), seed=st.integers(0, 1000), data=st.data())
def test_offset_similarity_property(device, length, width, seed, data):
    table = random_table(length, width, std=1.0, seed=seed, device=device, dtype=F64)
    offsets = data.draw(st.lists(st.integers(0, length - 1), max_size=80) | st.none())
    ks, mean, std = offset_similarity(table, offsets)
    expected_mean, expected_std = offset_oracle(table.cpu(), ks.tolist(), "dot")
    torch.testing.assert_close(mean.cpu(), expected_mean, atol=1e-10, rtol=0)
    torch.testing.assert_close(std.cpu(), expected_std, atol=1e-10, rtol=0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_offset_similarity_of_sinusoids_is_the_closed_form(device, layout):
    """For even d every p gives the same PE(p)·PE(p+k): mean = Σ cos(kω_i), std = 0."""
    table = encoding(200, 32, layout=layout, device=device, dtype=F64)
    ks, mean, std = offset_similarity(table)
    torch.testing.assert_close(mean, relative_similarity(ks, 32, layout=layout, device=device, dtype=F64))
    assert std.max().item() < 1e-9


def test_offset_similarity_keeps_the_table_dtype(device):
    table = random_table(100, 8, device=device)
    ks, mean, std = offset_similarity(table, [0, 1])
    assert mean.dtype == std.dtype == torch.float32 and ks.dtype == torch.int64
    assert offset_similarity(table, [])[1].shape == (0,)


# --- offset_profile (every offset at once, by FFT) -------------------------------------------------------------


@pytest.mark.parametrize("kind", ["dot", "cosine"])
@pytest.mark.parametrize(("length", "width"), [(1, 3), (2, 1), (23, 3), (70, 5)])
def test_offset_profile_matches_the_double_loop(device, kind, length, width):
    table = _table(device, length=max(length, 4), width=width)[:length]  # row 3 (if kept) is all zeros
    profile = offset_profile(table, kind=kind)
    assert profile.shape == (length,) and profile.dtype == F64 and profile.device.type == device.type
    expected, _ = offset_oracle(table.cpu(), range(length), kind)
    torch.testing.assert_close(profile.cpu(), expected, atol=1e-10, rtol=0)


@pytest.mark.parametrize("kind", ["dot", "cosine"])
def test_offset_profile_equals_offset_similarity_on_a_random_table(device, monkeypatch, kind):
    table = random_table(600, 48, std=0.02, seed=3, device=device, dtype=F64)
    _, mean, _ = offset_similarity(table, kind=kind)
    torch.testing.assert_close(offset_profile(table, kind=kind), mean)
    monkeypatch.setattr(metrics, "_BLOCK_ELEMENTS", 1200 * 5)  # 5 channels per FFT block
    torch.testing.assert_close(offset_profile(table, kind=kind), mean)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_offset_profile_of_sinusoids_is_the_closed_form(device, layout):
    """Even d: every p gives PE(p)·PE(p+k) = Σ cos(kω_i), so the mean over p is that closed form."""
    table = encoding(512, 32, layout=layout, device=device, dtype=F64)
    expected = relative_similarity(torch.arange(512), 32, layout=layout, device=device, dtype=F64)
    torch.testing.assert_close(offset_profile(table), expected)
    torch.testing.assert_close(offset_profile(table), offset_similarity(table)[1])


def test_offset_profile_keeps_the_table_dtype(device):
    table = random_table(100, 8, device=device)
    profile = offset_profile(table)
    assert profile.dtype == torch.float32
    torch.testing.assert_close(profile, offset_similarity(table)[1])
    assert offset_profile([[1, 2], [3, 4]]).tolist() == [15.0, 11.0]  # (1+4+9+16)/2, (3+8)/1


# --- distances ---------------------------------------------------------------------------------------------


def test_adjacent_distance_stats_matches_oracle(device):
    table = _table(device, length=30)
    steps = [math.dist(table[p + 1].tolist(), table[p].tolist()) for p in range(29)]
    mean = sum(steps) / 29
    std = math.sqrt(sum((s - mean) ** 2 for s in steps) / 29)
    assert adjacent_distance_stats(table) == pytest.approx((mean, std), abs=1e-12)


def test_distances_match_oracle(device):
    table = _table(device, length=60)
    assert distance(table, 0, 50) == pytest.approx(math.dist(table[0].tolist(), table[50].tolist()), abs=1e-12)
    profile = distance_profile(table, anchor=7)
    expected = torch.tensor([math.dist(table[q].tolist(), table[7].tolist()) for q in range(60)], dtype=F64)
    torch.testing.assert_close(profile.cpu(), expected, atol=1e-12, rtol=0)
    torch.testing.assert_close(distance_profile(table, anchor=7, positions=[59, 7, 0]), profile[[59, 7, 0]])


def test_sinusoidal_distances_are_the_closed_form(device):
    """||PE(p+k) - PE(p)||² = 2 Σ_i (1 - cos(kω_i)) for even d: adjacent steps all have the same length."""
    d = 64
    table = encoding(100, d, device=device, dtype=F64)
    omega = inv_freq(d, device="cpu", dtype=F64)
    step = math.sqrt(2 * (1 - torch.cos(omega)).sum().item())
    far = math.sqrt(2 * (1 - torch.cos(50 * omega)).sum().item())
    mean, std = adjacent_distance_stats(table)
    assert mean == pytest.approx(step, abs=1e-12) and std < 1e-12
    assert distance(table, 0, 50) == pytest.approx(far, abs=1e-12)


def test_compare_schemes(device):
    tables = {
        "sinusoidal": encoding(64, 16, device=device),
        "learned": random_table(64, 16, device=device),
        "none": torch.zeros(64, 16, device=device),
    }
    result = compare_schemes(tables, anchor=0, other=50)
    assert set(result) == set(tables)
    assert result["none"] == {"adjacent_mean": 0.0, "adjacent_std": 0.0, "distance": 0.0}
    mean, std = adjacent_distance_stats(tables["learned"])
    assert result["learned"] == {
        "adjacent_mean": mean,
        "adjacent_std": std,
        "distance": distance(tables["learned"], 0, 50),
    }
    assert result["sinusoidal"]["adjacent_std"] < 1e-6


# --- bad arguments -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda t: similarity_matrix(t, kind="l2"), "kind"),
        (lambda t: similarity_matrix(t[0]), "table"),
        (lambda t: similarity_matrix(torch.zeros(0, 3)), "table"),
        (lambda t: similarity_matrix(t.bool()), "table"),
        (lambda t: similarity_matrix("abc"), "table"),
        (lambda t: similarity_matrix(t, rows=[0, 10]), "rows"),
        (lambda t: similarity_matrix(t, cols=[-1]), "cols"),
        (lambda t: offset_similarity(t, [10]), "offsets"),
        (lambda t: offset_similarity(t, [0.5]), "offsets"),
        (lambda t: offset_similarity(t, kind="cos"), "kind"),
        (lambda t: offset_profile(t[0]), "table"),
        (lambda t: offset_profile(torch.full((4, 2), float("nan"))), "table"),
        (lambda t: offset_profile(torch.full((4, 2), float("inf"))), "table"),
        (lambda t: offset_profile(torch.zeros(0, 3)), "table"),
        (lambda t: offset_profile(t, kind="cos"), "kind"),
        (lambda t: adjacent_distance_stats(t[:1]), "table"),
        (lambda t: distance(t, 0, 10), "j"),
        (lambda t: distance(t, -1, 0), "i"),
        (lambda t: distance_profile(t, anchor=10), "anchor"),
        (lambda t: distance_profile(t, positions=[[0]]), "positions"),
        (lambda t: compare_schemes({"a": t}, other=10), "other"),
        (lambda t: compare_schemes({"a": t}, anchor=-1), "anchor"),
        (lambda t: compare_schemes({}), "tables"),
        (lambda t: compare_schemes({"a": t[0]}), "tables\\['a'\\]"),
    ],
)
def test_bad_arguments(call, name):
    with pytest.raises(ValueError, match=name):
        call(torch.ones(10, 3))


def test_integer_tables_are_accepted():
    table = torch.arange(6).reshape(3, 2)
    torch.testing.assert_close(similarity_matrix(table), (table @ table.T).float())
