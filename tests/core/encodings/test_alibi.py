"""posenc_core.encodings.alibi: reference numbers (docs/REFERENCE_NUMBERS.md §4), slow oracles written from the paper
and the
reference code, and HF BLOOM itself.

Properties live in test_alibi_properties.py, attention to the past and the effective span in
test_alibi_attention_to_past.py, bad arguments in test_alibi_arguments.py.
"""

from __future__ import annotations

import math

import pytest
import torch

from posenc_core.encodings import alibi
from tests.core.alibi_helpers import loop_bias, mpt_gen_slopes, press_get_slopes

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
