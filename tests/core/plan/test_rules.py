"""posenc_core.plan.rules: each base rule against its formula written out, the numbers the papers and the issue
state, and the lowest B against a plain loop over every distance."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_core.plan import rules
from posenc_core.rope.bounds import base_bound
from posenc_core.rope.scaling import default_inv_freq, dynamic_ntk_base


def test_share_rule_gives_the_llama_3_number():
    """Llama-3-8B's 500000 from 8k to 16k: 1,776,948 (the issue's number)."""
    assert rules.share_base(500000.0, 8192, 16384) == pytest.approx(1776948, abs=1)


def test_share_rule_keeps_the_share_of_pairs_longer_than_the_context():
    """Pair i is longer than L when 2i/d > ln(L/2π)/ln b: the new base moves that threshold to T exactly."""
    base, original, target = 1e4, 4096, 65536
    new = rules.share_base(base, original, target)
    before = math.log(original / (2 * math.pi)) / math.log(base)
    after = math.log(target / (2 * math.pi)) / math.log(new)
    assert after == pytest.approx(before, rel=1e-12)
    assert new > base


def test_ntk_base_divides_the_slowest_pair_by_the_factor():
    d, base, factor = 128, 1e4, 8.0
    new = rules.ntk_base(d, base, factor)
    assert new == pytest.approx(base * factor ** (d / (d - 2)))
    slowest = default_inv_freq(d, base, dtype=torch.float64)[-1] / default_inv_freq(d, new, dtype=torch.float64)[-1]
    assert float(slowest) == pytest.approx(factor, rel=1e-9)
    assert float(default_inv_freq(d, new, dtype=torch.float64)[0]) == 1.0  # pair 0 kept


@pytest.mark.parametrize("seq_len", [100, 4096, 4097, 16384, 65536])
def test_dynamic_base_equals_the_core_dynamic_ntk_base(seq_len):
    expected = dynamic_ntk_base(1e4, 128, 4.0, seq_len, 4096)
    assert rules.dynamic_base(128, 1e4, 4.0, 4096, seq_len) == pytest.approx(expected, rel=1e-12)
    if seq_len <= 4096:
        assert rules.dynamic_base(128, 1e4, 4.0, 4096, seq_len) == 1e4  # the default below the original length


def test_critical_dim_is_92_for_llama_2():
    """Liu et al. 2023: d 128, base 10000, 4k tokens -> d_extra 92."""
    assert rules.critical_dim(128, 1e4, 4096) == 92


@pytest.mark.parametrize(
    ("d", "base", "length"), [(128, 1e4, 4096), (128, 5e5, 8192), (64, 1e4, 2048), (96, 1e4, 4096)]
)
def test_critical_dim_counts_the_pairs_that_turn_within_the_context(d, base, length):
    """The critical pair c = d_extra/2 is the first whose wavelength 2π·b^(2c/d) exceeds L (a loop over pairs)."""
    first_long = next((i for i in range(d // 2) if 2 * math.pi * base ** (2 * i / d) > length), d // 2)
    assert rules.critical_dim(d, base, length) == 2 * first_long


def test_extrapolation_bound_and_liu_base_invert_each_other():
    d, critical = 128, 92
    base = rules.liu_base(d, critical, 131072)
    assert rules.extrapolation_bound(d, base, critical) == pytest.approx(131072, rel=1e-9)
    assert rules.liu_base(d, 0, 131072) is None


def test_lowest_bound_matches_every_distance():
    theta = default_inv_freq(64, 1e4, dtype=torch.float64) / torch.linspace(1, 3, 32, dtype=torch.float64)
    length = 5000
    values = [sum(math.cos(m * t) for t in theta.tolist()) for m in range(length)]
    m, lowest = rules.lowest_bound(theta, length)
    assert lowest == pytest.approx(min(values), abs=1e-9)
    assert values[m] == pytest.approx(lowest, abs=1e-9)


def test_lowest_bound_agrees_with_the_base_bound_at_a_plain_base():
    m, lowest = rules.lowest_bound(default_inv_freq(128, 1e4, dtype=torch.float64), 40000)
    assert float(base_bound([m], 128, 1e4, dtype=torch.float64)[0]) == pytest.approx(lowest, abs=1e-9)
    assert lowest < 0  # Llama 2's base is below Men et al.'s bound for 40k tokens


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: rules.ntk_base(3, 1e4, 2.0), "rotary_dim"),
        (lambda: rules.ntk_base(6, 1.0, 2.0), "base"),
        (lambda: rules.ntk_base(128, 1e4, 0.0), "factor"),
        (lambda: rules.share_base(1e4, 4096, 1024), "target"),
        (lambda: rules.critical_dim(128, 1e4, 4), "original"),
        (lambda: rules.extrapolation_bound(128, 1e4, 200), "critical"),
        (lambda: rules.lowest_bound([1.0, -1.0], 10), "inv_freq"),
        (lambda: rules.lowest_bound([1.0], 0), "context_len"),
    ],
)
def test_bad_arguments_name_themselves(call, name):
    with pytest.raises(ValueError, match=name):
        call()
