"""posenc_core.encodings.relative: reference numbers (docs/REFERENCE_NUMBERS.md §5, §6), a pure-Python T5 loop from the
paper/Mesh TF, HF's T5Attention._relative_position_bucket itself, a tensor2tensor loop for Shaw, and properties."""

from __future__ import annotations

import itertools
import math

import pytest
import torch

from posenc_core.encodings import relative

BUCKET_CONFIGS = [(32, 128), (16, 64), (64, 256), (8, 20), (128, 512), (32, 1000), (12, 50), (6, 10), (33, 128)]


def loop_t5_bucket(rel: int, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """Mesh TensorFlow's bucketing in plain Python (math.log in float64)."""
    bucket = 0
    if bidirectional:
        num_buckets //= 2
        if rel > 0:
            bucket += num_buckets
        n = abs(rel)
    else:
        n = max(-rel, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return bucket + n
    large = max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact))
    return bucket + min(large, num_buckets - 1)


def loop_shaw_index(q_len: int, k_len: int, k: int) -> list[list[int]]:
    """tensor2tensor: queries are the last q_len keys; clip(j - i, -k, k) + k."""
    query_keys = list(range(k_len))[-q_len:]
    return [[min(max(j - i, -k), k) + k for j in range(k_len)] for i in query_keys]


# ---------------------------------------------------------------- reference numbers (§5, §6)


def test_t5_requested_vector(device):
    rel = torch.tensor([-200, -5, 0, 3, 127], device=device)
    got = relative.t5_bucket(rel)
    assert got.dtype == torch.int64 and got.device.type == device.type
    assert got.tolist() == [15, 5, 0, 19, 31]
    assert relative.t5_bucket([-200, -5, 0, 3, 127], device=device).tolist() == [15, 5, 0, 19, 31]
    assert relative.t5_bucket(-5, device=device).item() == 5


def test_t5_bidirectional_table_starts():
    starts = {
        -8: 8, -12: 9, -16: 10, -23: 11, -32: 12, -46: 13, -64: 14, -91: 15,
        1: 17, 8: 24, 12: 25, 16: 26, 23: 27, 32: 28, 46: 29, 64: 30, 91: 31,
    }  # fmt: skip
    for rel, bucket in starts.items():
        assert relative.t5_bucket(rel).item() == bucket, rel
        if rel != 1:  # one step closer to 0 is still the previous bucket (rel 0 is bucket 0, not 16)
            step_back = rel + 1 if rel < 0 else rel - 1
            assert relative.t5_bucket(step_back).item() == bucket - 1, rel
    ranges = {r.bucket: r for r in relative.t5_bucket_ranges(True, 32, 128)}
    assert [ranges[b].max_rel for b in range(8, 16)] == [-8, -12, -16, -23, -32, -46, -64, -91]
    assert [ranges[b].min_rel for b in range(24, 32)] == [8, 12, 16, 23, 32, 46, 64, 91]


def test_t5_causal_table():
    rel = [5, 1, 0, -5, -16, -23, -32, -46, -64, -91, -127, -128, -200]
    expected = [0, 0, 0, 5, 16, 18, 21, 24, 26, 29, 31, 31, 31]
    assert relative.t5_bucket(rel, bidirectional=False).tolist() == expected


def test_shaw_spec_rows(device):
    index = relative.shaw_index(5, 5, 2, device=device)
    assert index.dtype == torch.int64
    assert index[0].tolist() == [2, 3, 4, 4, 4]
    assert index[4].tolist() == [0, 0, 0, 1, 2]


# ---------------------------------------------------------------- oracles


@pytest.mark.parametrize(("num_buckets", "max_distance"), BUCKET_CONFIGS)
@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_bucket_equals_python_loop(device, num_buckets, max_distance, bidirectional):
    rel = torch.arange(-1000, 1001, device=device)
    got = relative.t5_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    expected = [loop_t5_bucket(r, bidirectional, num_buckets, max_distance) for r in range(-1000, 1001)]
    assert got.tolist() == expected


def test_t5_bucket_follows_float32_at_exact_boundaries():
    """ln 4 / ln 32 · 5 is exactly 2: HF's float32 math says bucket 6, float64 rounds down to 5."""
    assert loop_t5_bucket(-16, True, 18, 128) == 5
    assert relative.t5_bucket(-16, num_buckets=18, max_distance=128).item() == 6
    assert relative.t5_bucket(16, num_buckets=18, max_distance=128).item() == 9 + 6


def test_t5_bucket_equals_hf_bit_for_bit(device):
    modeling_t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    hf_bucket = modeling_t5.T5Attention._relative_position_bucket
    rel = torch.arange(-3000, 3001, device=device)
    # includes configurations where float64 math would land one bucket lower (9/128, 18/128, 72/100, 99/121)
    for num_buckets in [2, 3, 4, 5, 8, 9, 16, 18, 19, 32, 33, 38, 72, 99, 128]:
        for max_distance in [3, 9, 16, 20, 64, 100, 121, 128, 296, 1024]:
            for bidirectional in (True, False):
                max_exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
                if max_exact < 1 or max_distance <= max_exact:
                    continue
                kwargs = {"bidirectional": bidirectional, "num_buckets": num_buckets, "max_distance": max_distance}
                assert torch.equal(relative.t5_bucket(rel, **kwargs), hf_bucket(rel, **kwargs)), kwargs


@pytest.mark.parametrize(("q_len", "k_len"), [(6, 6), (3, 200), (1, 300)])
@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_bucket_matrix_equals_hf_compute_bias_positions(device, q_len, k_len, bidirectional):
    modeling_t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    past_seen_tokens = k_len - q_len
    context_position = torch.arange(q_len, device=device)[:, None] + past_seen_tokens
    memory_position = torch.arange(k_len, device=device)[None, :]
    expected = modeling_t5.T5Attention._relative_position_bucket(
        memory_position - context_position, bidirectional=bidirectional
    )
    got = relative.t5_bucket_matrix(q_len, k_len, bidirectional=bidirectional, device=device)
    assert got.shape == (q_len, k_len)
    assert torch.equal(got, expected)


@pytest.mark.parametrize(("q_len", "k_len", "k"), [(5, 5, 2), (3, 8, 2), (1, 6, 3), (4, 4, 10), (7, 9, 1)])
def test_shaw_index_equals_t2t_loop(device, q_len, k_len, k):
    got = relative.shaw_index(q_len, k_len, k, device=device)
    assert got.tolist() == loop_shaw_index(q_len, k_len, k)
    assert int(got.min()) >= 0 and int(got.max()) <= 2 * k


def test_shaw_cached_decoding_is_the_single_query_row(device):
    k_len, k = 9, 3
    t2t_cache_row = (torch.arange(-k_len + 1, 1, device=device).clamp(-k, k) + k)[None, :]
    assert torch.equal(relative.shaw_index(1, k_len, k, device=device), t2t_cache_row)


# ---------------------------------------------------------------- properties


@pytest.mark.parametrize(("num_buckets", "max_distance"), BUCKET_CONFIGS)
@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_buckets_monotone_in_distance_and_in_range(device, num_buckets, max_distance, bidirectional):
    kwargs = {"bidirectional": bidirectional, "num_buckets": num_buckets, "max_distance": max_distance}
    past = relative.t5_bucket(-torch.arange(0, 3000, device=device), **kwargs)
    assert bool((past[1:] >= past[:-1]).all())
    assert int(past.min()) >= 0 and int(past.max()) < num_buckets
    future = relative.t5_bucket(torch.arange(1, 3000, device=device), **kwargs)
    if bidirectional:
        assert bool((future[1:] >= future[:-1]).all())
        assert int(future.min()) >= num_buckets // 2 and int(future.max()) < num_buckets
        assert int(past.max()) == num_buckets // 2 - 1  # far keys share the last bucket of their side
    else:
        assert bool((future == 0).all())  # a decoder never sees the future: it shares bucket 0 with rel 0
        assert int(past.max()) == num_buckets - 1


@pytest.mark.parametrize(("num_buckets", "max_distance"), BUCKET_CONFIGS)
@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_bucket_ranges_cover_every_relative_position(num_buckets, max_distance, bidirectional):
    ranges = relative.t5_bucket_ranges(bidirectional, num_buckets, max_distance)
    assert [r.bucket for r in ranges] == sorted({r.bucket for r in ranges})
    rel = torch.arange(-3 * max_distance, 3 * max_distance + 1)
    buckets = relative.t5_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    by_bucket = {r.bucket: r for r in ranges}
    for value, bucket in zip(rel.tolist(), buckets.tolist(), strict=True):
        assert by_bucket[bucket].min_rel <= value <= by_bucket[bucket].max_rel
    spans = sorted((r.min_rel, r.max_rel) for r in ranges)  # disjoint and covering: each starts after the last
    assert spans[0][0] == -math.inf and spans[-1][1] == math.inf
    for (_, high), (low, _) in itertools.pairwise(spans):
        assert low == high + 1


def test_t5_bidirectional_middle_bucket_is_never_used():
    buckets = [r.bucket for r in relative.t5_bucket_ranges(True, 32, 128)]
    assert 16 not in buckets and len(buckets) == 31
    assert [r.bucket for r in relative.t5_bucket_ranges(False, 32, 128)] == list(range(32))


@pytest.mark.parametrize("function", [relative.shaw_index, relative.t5_bucket_matrix, relative.relative_positions])
def test_sampled_positions_equal_slicing(device, function):
    args = (40, 300, 4) if function is relative.shaw_index else (40, 300)
    full = function(*args, device=device)
    queries, keys = [0, 39, 7, 7], torch.tensor([299, 0, 150])
    got = function(*args, query_positions=queries, key_positions=keys, device=device)
    assert torch.equal(got, full[queries][:, keys.tolist()])


def test_relative_positions_are_key_minus_query(device):
    rel = relative.relative_positions(2, 4, device=device)
    assert rel.tolist() == [[-2, -1, 0, 1], [-3, -2, -1, 0]]
    assert torch.equal(relative.relative_positions(3, device=device), relative.relative_positions(3, 3, device=device))


def test_long_context_sampling_stays_small(device):
    positions = torch.linspace(0, 1_000_000 - 1, 64).round().to(torch.int64)
    got = relative.t5_bucket_matrix(1_000_000, query_positions=positions, key_positions=positions, device=device)
    assert got.shape == (64, 64)
    assert got[0, -1].item() == 31 and got[-1, 0].item() == 15 and bool((got.diagonal() == 0).all())


# ---------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: relative.shaw_index(-1, 4, 2), "q_len"),
        (lambda: relative.shaw_index(0, 4, 2), "q_len"),
        (lambda: relative.shaw_index(5, 4, 2), "k_len"),
        (lambda: relative.shaw_index(4, 4, 0), "max_distance"),
        (lambda: relative.shaw_index(4, 4, 1.5), "max_distance"),
        (lambda: relative.shaw_index(4, 4, 2, query_positions=[4]), "query_positions"),
        (lambda: relative.shaw_index(4, 4, 2, key_positions=torch.tensor([-1])), "key_positions"),
        (lambda: relative.t5_bucket(0, num_buckets=3), "num_buckets"),
        (lambda: relative.t5_bucket(0, num_buckets=1, bidirectional=False), "num_buckets"),
        (lambda: relative.t5_bucket(0, max_distance=8), "max_distance"),  # max_exact is 8 for 32 buckets
        (lambda: relative.t5_bucket(0, num_buckets=32, max_distance=16, bidirectional=False), "max_distance"),
        (lambda: relative.t5_bucket(0, bidirectional="yes"), "bidirectional"),
        (lambda: relative.t5_bucket(torch.tensor([0.5])), "relative_position"),
        (lambda: relative.t5_bucket([1, 2.5]), "relative_position"),
        (lambda: relative.t5_bucket("12"), "relative_position"),
        (lambda: relative.t5_bucket(True), "relative_position"),
        (lambda: relative.t5_bucket_matrix(4, 2), "k_len"),
        (lambda: relative.t5_bucket_matrix(4, num_buckets=math.inf), "num_buckets"),
        (lambda: relative.t5_bucket_ranges(True, 2, 128), "num_buckets"),
        (lambda: relative.relative_positions(3, key_positions=torch.tensor([True])), "key_positions"),
    ],
)
def test_bad_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
