"""The figure cache: least recently used out, bounded in bytes, one build per key however many ask at once."""

from __future__ import annotations

import threading
import time

import numpy as np
import plotly.graph_objects as go
import pytest

from posenc.drawing.cache import BoundedCache, budget_from_environment, deep_nbytes, digest


def _sized(nbytes_by_value):
    return lambda value: nbytes_by_value[value]


def test_the_least_recently_used_entries_leave_first_when_the_budget_is_passed():
    cache = BoundedCache(100, size=lambda value: 40)
    for key in "abc":
        cache.get_or_build(key, lambda key=key: key.upper())
    assert "a" not in cache and "b" in cache and "c" in cache  # 3 x 40 > 100: the oldest left
    cache.get_or_build("b", lambda: pytest.fail("b is kept: it must not be built again"))
    cache.get_or_build("d", lambda: "D")
    assert "b" in cache and "c" not in cache  # b was used after c, so c left
    assert cache.nbytes == 80 <= cache.budget


def test_a_value_larger_than_the_whole_budget_is_returned_but_not_kept():
    cache = BoundedCache(100, size=len)
    assert cache.get_or_build("small", lambda: "x" * 10) == "x" * 10
    assert cache.get_or_build("huge", lambda: "y" * 101) == "y" * 101
    assert "huge" not in cache and "small" in cache and cache.nbytes == 10


def test_sessions_asking_at_once_for_one_new_figure_share_one_build():
    cache = BoundedCache(10**6, size=lambda value: 1)
    builds = []

    def slow_build():
        builds.append(1)
        time.sleep(0.2)
        return "figure"

    results = []
    threads = [threading.Thread(target=lambda: results.append(cache.get_or_build("k", slow_build))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == ["figure"] * 8 and len(builds) == 1


def test_a_build_that_raises_keeps_nothing_and_the_next_call_builds_again():
    cache = BoundedCache(100, size=lambda value: 1)
    with pytest.raises(ValueError, match="bad"):
        cache.get_or_build("k", lambda: (_ for _ in ()).throw(ValueError("bad")))
    assert "k" not in cache and cache.nbytes == 0
    assert cache.get_or_build("k", lambda: "ok") == "ok"


def test_pinned_values_stay_past_any_number_of_new_ones_within_the_budget():
    cache = BoundedCache(200, size=lambda value: 40)
    for key in "ab":
        cache.get_or_build(key, lambda key=key: key.upper())
    assert cache.pin() == 2
    assert cache.pinned_nbytes == cache.nbytes == 80
    for key in "cdefgh":  # six new values, 40 bytes each, through the 120 bytes the pinned two leave
        cache.get_or_build(key, lambda key=key: key.upper())
    assert "a" in cache and "b" in cache and len(cache) == 5  # the pinned two and the newest three
    assert cache.get_or_build("a", lambda: pytest.fail("a is pinned: it must not be built again")) == "A"
    assert "e" not in cache and all(key in cache for key in "fgh")
    assert cache.nbytes == 200 <= cache.budget
    cache.get_or_build("a", lambda: "again")  # a pinned key is never kept twice
    assert cache.nbytes == 200
    cache.clear()
    assert len(cache) == 0 and cache.nbytes == cache.pinned_nbytes == 0


def test_pinning_up_to_a_size_keeps_the_oldest_and_drops_the_rest():
    cache = BoundedCache(1000, size=lambda value: 40)
    for key in "abcde":
        cache.get_or_build(key, lambda key=key: key.upper())
    assert cache.pin(max_bytes=100) == 2
    assert [key in cache for key in "abcde"] == [True, True, False, False, False]
    assert cache.nbytes == cache.pinned_nbytes == 80


def test_a_value_larger_than_what_the_pinned_values_leave_is_returned_but_not_kept():
    cache = BoundedCache(100, size=len)
    cache.get_or_build("warmed", lambda: "w" * 70)
    cache.pin()
    assert cache.get_or_build("new", lambda: "n" * 40) == "n" * 40
    assert "new" not in cache and cache.nbytes == 70


def test_a_long_key_is_kept_as_a_short_digest():
    cache = BoundedCache(100, size=lambda value: 1)
    long_key = ("why-attention", "x" * 1_000_000)
    cache.get_or_build(long_key, lambda: "v")
    assert long_key in cache
    assert [len(name) for name in cache._entries] == [16] and digest(long_key) in cache._entries


def test_deep_nbytes_counts_arrays_by_their_buffers_and_shared_objects_once():
    values = np.zeros(1_000_000)  # 8 MB
    assert 8_000_000 <= deep_nbytes(values) < 8_100_000
    assert 8_000_000 <= deep_nbytes([values, values, values[:10]]) < 8_100_000  # one buffer, however reached
    assert deep_nbytes(["a" * 1000]) > 1000


def test_deep_nbytes_of_a_plotly_figure_counts_its_data():
    small = go.Figure(go.Scatter(y=np.zeros(10)))
    large = go.Figure(go.Scatter(y=np.zeros(1_000_000)))
    assert deep_nbytes(large) - deep_nbytes(small) >= 7_900_000


def test_the_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("POSENC_FIGURE_CACHE_MB", raising=False)
    default = budget_from_environment()
    monkeypatch.setenv("POSENC_FIGURE_CACHE_MB", "64")
    assert budget_from_environment() == 64 * 2**20 != default
    for bad in ("0", "-5", "lots", "1.5"):
        monkeypatch.setenv("POSENC_FIGURE_CACHE_MB", bad)
        with pytest.raises(ValueError, match="POSENC_FIGURE_CACHE_MB"):
            budget_from_environment()


def test_a_budget_below_one_byte_is_refused():
    with pytest.raises(ValueError, match="budget"):
        BoundedCache(0)
