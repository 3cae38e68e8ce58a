"""posenc_core.rope.scaling: the numbers of docs/REFERENCE_NUMBERS.md §1.1 and §2 (default, linear, dynamic NTK,
YaRN, LongRoPE, Llama 3.1), HF's test vectors among them.

Properties and the registry loop live in test_rope_scaling_properties.py, the reading of the scaling dict and bad
arguments in test_rope_scaling_arguments.py, the slow loop oracles in test_rope_scaling_oracles.py, the YaRN helpers
in test_rope_scaling_yarn.py and the comparison with the installed HF transformers in
test_rope_scaling_vs_transformers.py.
"""

from __future__ import annotations

import math

import pytest
import torch

from posenc_core.rope.scaling import default_inv_freq, dynamic_ntk_base, inv_freq
from posenc_core.rope.yarn import attention_logit_multiplier, yarn_correction_range
from tests.core.rope_scaling_helpers import LLAMA, LLAMA31, phi3_scaling, rope

# fmt: off
# [HF test] tests/utils/test_modeling_rope_utils.py EXPECTED_INV_FREQ (LlamaConfig defaults).
HF_DEFAULT = [
    1.0000e+00, 8.6596e-01, 7.4989e-01, 6.4938e-01, 5.6234e-01, 4.8697e-01, 4.2170e-01, 3.6517e-01,
    3.1623e-01, 2.7384e-01, 2.3714e-01, 2.0535e-01, 1.7783e-01, 1.5399e-01, 1.3335e-01, 1.1548e-01,
    1.0000e-01, 8.6596e-02, 7.4989e-02, 6.4938e-02, 5.6234e-02, 4.8697e-02, 4.2170e-02, 3.6517e-02,
    3.1623e-02, 2.7384e-02, 2.3714e-02, 2.0535e-02, 1.7783e-02, 1.5399e-02, 1.3335e-02, 1.1548e-02,
    1.0000e-02, 8.6596e-03, 7.4989e-03, 6.4938e-03, 5.6234e-03, 4.8697e-03, 4.2170e-03, 3.6517e-03,
    3.1623e-03, 2.7384e-03, 2.3714e-03, 2.0535e-03, 1.7783e-03, 1.5399e-03, 1.3335e-03, 1.1548e-03,
    1.0000e-03, 8.6596e-04, 7.4989e-04, 6.4938e-04, 5.6234e-04, 4.8697e-04, 4.2170e-04, 3.6517e-04,
    3.1623e-04, 2.7384e-04, 2.3714e-04, 2.0535e-04, 1.7783e-04, 1.5399e-04, 1.3335e-04, 1.1548e-04,
]
HF_DYNAMIC_F10_SEQ16384 = [
    1.0000e+00, 8.0931e-01, 6.5498e-01, 5.3008e-01, 4.2900e-01, 3.4720e-01, 2.8099e-01, 2.2741e-01,
    1.8404e-01, 1.4895e-01, 1.2055e-01, 9.7558e-02, 7.8955e-02, 6.3899e-02, 5.1714e-02, 4.1853e-02,
    3.3872e-02, 2.7413e-02, 2.2185e-02, 1.7955e-02, 1.4531e-02, 1.1760e-02, 9.5176e-03, 7.7027e-03,
    6.2339e-03, 5.0451e-03, 4.0831e-03, 3.3045e-03, 2.6744e-03, 2.1644e-03, 1.7517e-03, 1.4176e-03,
    1.1473e-03, 9.2852e-04, 7.5146e-04, 6.0817e-04, 4.9220e-04, 3.9834e-04, 3.2238e-04, 2.6091e-04,
    2.1115e-04, 1.7089e-04, 1.3830e-04, 1.1193e-04, 9.0585e-05, 7.3312e-05, 5.9332e-05, 4.8018e-05,
    3.8861e-05, 3.1451e-05, 2.5453e-05, 2.0600e-05, 1.6672e-05, 1.3492e-05, 1.0920e-05, 8.8374e-06,
    7.1522e-06, 5.7883e-06, 4.6845e-06, 3.7912e-06, 3.0683e-06, 2.4832e-06, 2.0097e-06, 1.6265e-06,
]
HF_YARN_F10 = HF_DEFAULT[:17] + [
    8.3479e-02, 6.9590e-02, 5.7925e-02, 4.8136e-02, 3.9931e-02, 3.3061e-02, 2.7315e-02,
    2.2515e-02, 1.8512e-02, 1.5177e-02, 1.2403e-02, 1.0101e-02, 8.1924e-03, 6.6143e-03, 5.3120e-03,
    4.2400e-03, 3.3599e-03, 2.6396e-03, 2.0520e-03, 1.5746e-03, 1.1882e-03, 8.7713e-04, 6.2810e-04,
    4.3007e-04,
] + [v / 10 for v in HF_DEFAULT[41:]]
HF_LLAMA3_F10 = HF_DEFAULT[:31] + [
    1.0730e-02, 7.7785e-03, 5.6009e-03, 3.9991e-03, 2.8248e-03, 1.9675e-03, 1.3449e-03, 8.9549e-04,
    5.7363e-04, 3.4539e-04,
] + [v / 10 for v in HF_DEFAULT[41:]]
# fmt: on


DEEPSEEK_V3 = {
    "rope_type": "yarn",
    "factor": 40.0,
    "beta_fast": 32,
    "beta_slow": 1,
    "mscale": 1.0,
    "mscale_all_dim": 1.0,
    "original_max_position_embeddings": 4096,
}


def assert_values(actual: torch.Tensor, expected, rtol: float = 1e-4) -> None:
    """Reference and HF-test numbers carry ~5 significant digits: compare relatively, never with an absolute slack."""
    expected = torch.as_tensor(expected, dtype=actual.dtype, device=actual.device)
    torch.testing.assert_close(actual, expected, rtol=rtol, atol=0)


# ---------------------------------------------------------------- numbers: default (§1.1) and linear (§2.1)


def test_default_matches_spec_and_hf(device):
    inv = default_inv_freq(128, 10000.0, device=device)
    assert inv.shape == (64,) and inv.dtype == torch.float32 and inv.device.type == device.type
    assert_values(inv, HF_DEFAULT)
    assert_values(inv[[0, 1, 16, 63]], [1.0, 0.86596, 0.1, 1.1548e-4])
    assert 2 * math.pi / inv[-1].item() == pytest.approx(54410.1, rel=1e-6)
    assert_values(default_inv_freq(128, 5e5, device=device)[63:], [2.45514e-6], rtol=1e-5)
    assert_values(default_inv_freq(128, 1e6, device=device)[63:], [1.24094e-6], rtol=1e-5)
    assert inv_freq(128, device=device)[1] == 1.0


@pytest.mark.parametrize("factor", [2.0, 10.0, 20.0])
def test_linear_is_default_over_factor(device, factor):
    inv, attention = rope({"rope_type": "linear", "factor": factor}, device=device)
    torch.testing.assert_close(inv, default_inv_freq(128, device=device) / factor, rtol=0, atol=0)
    assert attention == 1.0


# ---------------------------------------------------------------- numbers: dynamic NTK (§2.2)


def test_dynamic_matches_hf_test(device):
    assert dynamic_ntk_base(10000.0, 128, 10.0, 16384, 2048) == pytest.approx(759702.23, abs=0.01)
    inv, attention = rope({"rope_type": "dynamic", "factor": 10.0}, seq_len=16384, **LLAMA, device=device)
    assert_values(inv, HF_DYNAMIC_F10_SEQ16384)
    assert_values(inv[[1, 2, 63]], [0.80931, 0.65498, 1.6265e-6])
    assert attention == 1.0


def test_dynamic_factor2_spec_vector(device):
    assert dynamic_ntk_base(10000.0, 128, 2.0, 8192, 4096) == pytest.approx(30527.74, abs=0.01)
    inv, _ = rope({"rope_type": "dynamic", "factor": 2.0}, seq_len=8192, max_position_embeddings=4096, device=device)
    assert_values(inv[63:], [3.8493e-5])


@pytest.mark.parametrize("factor", [2.0, 10.0, 20.0])
@pytest.mark.parametrize("seq_len", [None, 0, 1, 2047, 2048])
def test_dynamic_is_default_up_to_max_position_embeddings(device, factor, seq_len):
    inv, _ = rope({"rope_type": "dynamic", "factor": factor}, seq_len=seq_len, **LLAMA, device=device)
    torch.testing.assert_close(inv, default_inv_freq(128, device=device), rtol=0, atol=0)
    assert dynamic_ntk_base(1e4, 128, factor, seq_len, 2048) == 1e4


def test_dynamic_is_not_linear(device):
    inv, _ = rope({"rope_type": "dynamic", "factor": 10.0}, seq_len=16384, **LLAMA, device=device)
    assert not torch.allclose(inv, default_inv_freq(128, device=device) / 10)


# ---------------------------------------------------------------- numbers: YaRN (§2.3, §2.4)


def test_yarn_llama_config_factor10(device):
    assert yarn_correction_range(128, 1e4, 2048, truncate=False) == pytest.approx((16.128, 40.210), abs=1e-3)
    assert yarn_correction_range(128, 1e4, 2048) == (16.0, 41.0)
    scaling = {"rope_type": "yarn", "factor": 10.0, "beta_fast": 32, "beta_slow": 1}
    inv, attention = rope(scaling, **LLAMA, device=device)
    assert_values(inv, HF_YARN_F10)
    assert_values(inv[[16, 17, 40, 41]], [0.1, 0.083479, 4.3007e-4, 2.7384e-4])
    assert attention == pytest.approx(1.230259, abs=1e-6)


@pytest.mark.parametrize("factor", [2.0, 10.0, 20.0])
def test_yarn_attention_factor_default_and_override(factor):
    _, attention = rope({"rope_type": "yarn", "factor": factor}, **LLAMA)
    assert attention == 0.1 * math.log(factor) + 1.0
    _, attention = rope({"rope_type": "yarn", "factor": factor, "attention_factor": 0.5}, seq_len=1, **LLAMA)
    assert attention == 0.5


def test_yarn_dim128_factor4_L4096(device):
    scaling = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
    assert yarn_correction_range(128, 1e4, 4096, truncate=False) == pytest.approx((20.94448, 45.02688), abs=1e-5)
    assert yarn_correction_range(128, 1e4, 4096) == (20.0, 46.0)
    inv, attention = rope(scaling, device=device)
    default = default_inv_freq(128, device=device)
    assert_values(inv[:2], [1.0, 0.86596435], rtol=1e-7)
    torch.testing.assert_close(inv[:21], default[:21], rtol=0, atol=0)
    torch.testing.assert_close(inv[46:], default[46:] / 4, rtol=1e-6, atol=0)
    assert_values(inv[63:], [2.8869548e-5], rtol=1e-7)
    assert_values((default / inv)[[21, 33, 45]], [1.0297, 1.6000, 3.5862])
    assert attention == pytest.approx(1.1386294, abs=1e-7)
    assert attention_logit_multiplier(attention) == pytest.approx(1.2964770, abs=1e-7)
    inv, _ = rope({**scaling, "truncate": False}, device=device)
    assert_values((default / inv)[[21, 37, 45]], [1.0017, 2.0001, 3.9867])


def test_yarn_qwen25(device):
    assert yarn_correction_range(128, 1e6, 32768, truncate=False) == pytest.approx((23.596, 39.651), abs=1e-3)
    assert yarn_correction_range(128, 1e6, 32768) == (23.0, 40.0)
    scaling = {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
    _, attention = rope(scaling, base=1e6, max_position_embeddings=131072, device=device)
    assert attention == pytest.approx(1.1386294, abs=1e-7)


@pytest.mark.parametrize("factor_key", ["given", "derived"])
def test_yarn_deepseek_v3(device, factor_key):
    """v5: a None factor is derived as max_position_embeddings / original (163840 / 4096 = 40)."""
    scaling = DEEPSEEK_V3 if factor_key == "given" else {**DEEPSEEK_V3, "factor": None}
    assert yarn_correction_range(64, 1e4, 4096, truncate=False) == pytest.approx((10.472, 22.513), abs=1e-3)
    assert yarn_correction_range(64, 1e4, 4096) == (10.0, 23.0)
    inv, attention = rope(scaling, head_dim=64, max_position_embeddings=163840, device=device)
    assert attention == 1.0  # get_mscale(40, 1) / get_mscale(40, 1)
    assert_values(inv[31:], [3.3338e-6])


def test_yarn_deepseek_v2_lite():
    scaling = {**DEEPSEEK_V3, "mscale": 0.707, "mscale_all_dim": 0.707}
    assert rope(scaling, head_dim=64, max_position_embeddings=163840)[1] == 1.0


@pytest.mark.parametrize("factor", [0.5, 1.0])
def test_yarn_factor_at_most_one_has_unit_attention(factor):
    """Newest HF: get_mscale returns 1 for factor <= 1 (the ef46806 revision gave 0.9307 for 0.5)."""
    assert rope({"rope_type": "yarn", "factor": factor}, **LLAMA)[1] == 1.0


# ---------------------------------------------------------------- numbers: LongRoPE (§2.5) and Llama 3.1 (§2.6)


def test_longrope_phi3_attention_factor():
    scaling = phi3_scaling(original_max_position_embeddings=4096)
    assert rope(scaling, head_dim=96, max_position_embeddings=131072)[1] == pytest.approx(1.1902381, abs=1e-7)
    assert rope({**scaling, "factor": 32.0}, head_dim=96)[1] == pytest.approx(1.1902381, abs=1e-7)
    assert rope({**scaling, "factor": 1.0}, head_dim=96)[1] == 1.0


@pytest.mark.parametrize("factor", [2.0, 10.0, 20.0])
def test_longrope_attention_like_hf_test(factor):
    """HF test: L falls back to max_position_embeddings (2048); attention_factor overrides."""
    scaling = {"rope_type": "longrope", "factor": factor, "short_factor": [2.0] * 64, "long_factor": [3.0] * 64}
    assert rope(scaling, **LLAMA)[1] == math.sqrt(1 + math.log(factor) / math.log(2048))
    assert rope({**scaling, "attention_factor": 0.5}, seq_len=1, **LLAMA)[1] == 0.5


def test_llama3_llama_config_factor10(device):
    scaling = {**LLAMA31, "factor": 10.0, "original_max_position_embeddings": 2048}
    inv, attention = rope(scaling, **LLAMA, device=device)
    assert_values(inv, HF_LLAMA3_F10)
    assert_values(inv[[30, 31, 40, 41]], [1.3335e-2, 1.0730e-2, 3.4539e-4, 2.7384e-4])
    assert attention == 1.0


def test_llama31_8b(device):
    inv, _ = rope(LLAMA31, base=5e5, max_position_embeddings=131072, device=device)
    default = default_inv_freq(128, 5e5, device=device)
    torch.testing.assert_close(inv[:29], default[:29], rtol=0, atol=0)
    torch.testing.assert_close(inv[35:], default[35:] / 8, rtol=1e-6, atol=0)
    assert_values((default / inv)[29:35], [1.2075, 1.5534, 2.0263, 2.6945, 3.6843, 5.2573])
    assert_values(inv[[1, 63]], [0.8146172, 3.0689e-7], rtol=1e-5)
    wavelen = 2 * math.pi / default.double()
    assert wavelen[28] == pytest.approx(1956.5, abs=0.1) and wavelen[35] == pytest.approx(8218.7, abs=0.1)


def test_llama3_high_freq_factor_huge_scales_everything(device):
    scaling = {**LLAMA31, "factor": 10.0, "original_max_position_embeddings": 2048, "high_freq_factor": 1000}
    inv, _ = rope(scaling, **LLAMA, device=device)
    assert bool((inv < default_inv_freq(128, device=device)).all())
