"""posenc.serve.allocator: ``posenc app`` caps glibc's arenas and fixes its mmap threshold, unless the operator set
the allocator in the environment (the memory bound of docs/SESSION_COST.md is measured with these settings)."""

from __future__ import annotations

import platform

import pytest

from bench.soak import bound_mb
from posenc.serve import allocator


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_on_glibc_two_arenas_and_a_fixed_mmap_threshold_are_set():
    assert allocator.settle({}) == {"arena_max": 2, "mmap_threshold": 2**20}


@pytest.mark.parametrize("name", allocator.OPERATOR_SETTINGS)
def test_the_operators_own_allocator_settings_are_left_alone(name, monkeypatch):
    monkeypatch.setattr(allocator, "_mallopt", lambda: pytest.fail("mallopt called"))
    assert allocator.settle({name: "4"}) == {}


def test_without_mallopt_nothing_is_set(monkeypatch):
    monkeypatch.setattr(allocator, "_mallopt", lambda: None)
    assert allocator.settle({}) == {}


def test_the_bound_is_the_warmed_server_plus_the_figure_budget_and_the_small_caches():
    assert bound_mb(500.0, 256 * 2**20) == pytest.approx(500 + 1.5 * 268.435456 + 64)
