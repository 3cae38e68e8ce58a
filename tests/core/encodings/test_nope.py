"""NoPE: the causal-mask position signal (measured against its law and a loop over the softmax), and Llama 4's
NoPE layers and temperature (against HF transformers' Llama4TextAttention / Llama4TextConfig)."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_core.encodings import nope

POSITIONS = [0, 1, 2, 3, 7, 15, 31, 63, 127, 255, 511, 1023]


def test_causal_mean_norms_follow_one_over_sqrt_i_plus_one(device):
    dim, n_sequences = 64, 64
    measured = nope.causal_mean_output_norms(POSITIONS, dim=dim, n_sequences=n_sequences, seed=3, device=device)
    law = nope.causal_mean_norm_law(POSITIONS, device=device)
    assert measured.device.type == device.type and measured.shape == (len(POSITIONS),)
    ratio = (measured / law).cpu().double()
    spread = 1 / math.sqrt(2 * dim * n_sequences)  # relative standard deviation of an RMS of chi-square terms
    assert bool(((ratio - 1).abs() < 5 * spread).all()), ratio
    assert float((ratio - 1).abs().max()) > 1e-6  # measured, not the law written back
    assert float(measured[0]) > 5 * float(measured[-1])  # the length falls ~32x from position 0 to 1023


def test_causal_mean_norms_equal_a_loop_over_the_masked_softmax():
    """Oracle: draw the same values, then for each query i a softmax of equal scores with -inf past i."""
    positions, dim, n_sequences, seed = [0, 4, 9, 30], 8, 5, 11
    got = nope.causal_mean_output_norms(positions, dim=dim, n_sequences=n_sequences, seed=seed, dtype=torch.float64)
    values = torch.randn(n_sequences, 31, dim, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    values = values / math.sqrt(dim)
    for index, i in enumerate(positions):
        squared = 0.0
        for s in range(n_sequences):
            scores = torch.tensor([0.0 if j <= i else -math.inf for j in range(31)], dtype=torch.float64)
            weights = torch.softmax(scores, dim=0)
            output = sum(weights[j] * values[s, j] for j in range(31))
            squared += float(output.square().sum())
        assert got[index].item() == pytest.approx(math.sqrt(squared / n_sequences), rel=1e-12)


def test_positions_past_one_key_chunk_still_follow_the_law():
    positions = [2047, 2048, 5000]
    measured = nope.causal_mean_output_norms(positions, dim=32, n_sequences=32, seed=1, dtype=torch.float64)
    law = nope.causal_mean_norm_law(positions, dtype=torch.float64)
    assert torch.allclose(measured, law, rtol=5 / math.sqrt(2 * 32 * 32))


def test_a_later_layer_can_read_the_position_off_the_norm():
    measured = nope.causal_mean_output_norms(POSITIONS, dim=128, n_sequences=128, seed=0, dtype=torch.float64)
    read = nope.position_from_norm(measured, dtype=torch.float64)
    exact = nope.position_from_norm(nope.causal_mean_norm_law(POSITIONS, dtype=torch.float64), dtype=torch.float64)
    assert torch.allclose(exact, torch.tensor(POSITIONS, dtype=torch.float64), atol=1e-9)
    relative = (read + 1) / (torch.tensor(POSITIONS, dtype=torch.float64) + 1)
    assert bool(((relative - 1).abs() < 0.05).all()), relative  # i + 1 to within 5 %


def test_the_same_seed_gives_the_same_numbers_and_another_seed_others():
    first = nope.causal_mean_output_norms([5, 50], seed=7)
    assert torch.equal(first, nope.causal_mean_output_norms([5, 50], seed=7))
    assert not torch.equal(first, nope.causal_mean_output_norms([5, 50], seed=8))
    assert nope.causal_mean_output_norms([]).shape == (0,)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"positions": [-1, 2]}, "positions"),
        ({"positions": [0.5]}, "positions"),
        ({"positions": [3], "dim": 0}, "dim"),
        ({"positions": [3], "n_sequences": 0}, "n_sequences"),
        ({"positions": [3], "seed": -2}, "seed"),
        ({"positions": [3], "dtype": torch.int32}, "dtype"),
    ],
)
def test_causal_mean_rejects_bad_arguments_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        nope.causal_mean_output_norms(**kwargs)


def test_position_from_norm_rejects_zero_norms():
    with pytest.raises(ValueError, match="norms"):
        nope.position_from_norm([0.5, 0.0])


@pytest.mark.parametrize(("floor_scale", "attn_scale"), [(8192, 0.1), (100, 0.5), (1, 0.0)])
def test_llama4_scale_equals_a_loop_over_the_formula(device, floor_scale, attn_scale):
    positions = [0, 1, 98, 99, 100, 8190, 8191, 8192, 16383, 10_485_759]
    got = nope.llama4_attention_scale(
        positions, floor_scale=floor_scale, attn_scale=attn_scale, device=device, dtype=torch.float64
    ).cpu()
    for index, p in enumerate(positions):
        expected = math.log(math.floor((p + 1) / floor_scale) + 1) * attn_scale + 1
        assert got[index].item() == pytest.approx(expected, rel=1e-15)


def test_llama4_scale_is_one_before_the_first_step_and_grows_by_steps():
    scale = nope.llama4_attention_scale(range(0, 40000), dtype=torch.float64)
    assert bool((scale[:8191] == 1).all()) and scale[8191].item() > 1  # the first step at p + 1 = 8192
    steps = torch.nonzero(scale.diff()).flatten() + 1
    assert steps.tolist() == [8191, 16383, 24575, 32767]
    assert bool((scale.diff() >= 0).all())


def _hf_query_scale(past: int, new: int, floor_scale: int, attn_scale: float) -> torch.Tensor:
    """The factor HF's Llama4TextAttention multiplies a NoPE layer's query by, for ``new`` tokens after ``past``
    cached ones: the query reaching the attention function, with q_proj the identity and an all-ones input."""
    transformers = pytest.importorskip("transformers")
    from transformers.cache_utils import DynamicCache
    from transformers.models.llama4 import modeling_llama4

    captured = {}

    def capture(module, query, key, value, attention_mask, **kwargs):
        captured["query"] = query.detach().clone()  # (batch, heads, new, head_dim)
        return torch.zeros(query.shape[0], query.shape[2], query.shape[1], query.shape[3]), None

    transformers.AttentionInterface.register("posenc_capture_query", capture)
    config = transformers.Llama4TextConfig(
        hidden_size=4, num_attention_heads=1, num_key_value_heads=1, head_dim=4, num_hidden_layers=4,
        intermediate_size=8, intermediate_size_mlp=8, vocab_size=16, floor_scale=floor_scale, attn_scale=attn_scale,
    )  # fmt: skip
    config._attn_implementation = "posenc_capture_query"
    attention = modeling_llama4.Llama4TextAttention(config, layer_idx=3)  # layer 3: NoPE by default
    assert not attention.use_rope
    with torch.no_grad():
        attention.q_proj.weight.copy_(torch.eye(4))
    cache = DynamicCache(config=config)
    if past:
        empty = torch.zeros(1, 1, past, 4)
        cache.update(empty, empty, 3)
    attention(torch.ones(1, new, 4), position_embeddings=None, attention_mask=None, past_key_values=cache)
    return captured["query"][0, 0, :, 0]


@pytest.mark.parametrize(
    ("past", "new", "floor_scale", "attn_scale"),
    [(0, 6, 8192, 0.1), (8188, 6, 8192, 0.1), (16380, 6, 8192, 0.1), (1_000_000, 3, 8192, 0.1), (95, 10, 50, 0.7)],
)
def test_llama4_scale_equals_hf_llama4_attention(past, new, floor_scale, attn_scale):
    hf = _hf_query_scale(past, new, floor_scale, attn_scale)
    ours = nope.llama4_attention_scale(range(past, past + new), floor_scale=floor_scale, attn_scale=attn_scale)
    torch.testing.assert_close(ours, hf, rtol=1e-6, atol=0)
    if past == 8188:
        assert hf[:3].tolist() == [1.0, 1.0, 1.0] and hf[3].item() > 1.0  # token 8191 is the first scaled one


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"positions": [-3]}, "positions"),
        ({"positions": [1], "floor_scale": 0}, "floor_scale"),
        ({"positions": [1], "floor_scale": 2.5}, "floor_scale"),
        ({"positions": [1], "attn_scale": -0.1}, "attn_scale"),
        ({"positions": [1], "attn_scale": math.nan}, "attn_scale"),
    ],
)
def test_llama4_scale_rejects_bad_arguments_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        nope.llama4_attention_scale(**kwargs)


@pytest.mark.parametrize(("layers", "interval"), [(48, 4), (48, 1), (10, 3), (7, 8), (12, 2)])
def test_llama4_rope_layers_default_equals_hf_config(layers, interval):
    transformers = pytest.importorskip("transformers")
    config = transformers.Llama4TextConfig(num_hidden_layers=layers, no_rope_layer_interval=interval)
    assert nope.llama4_rope_layers(layers, no_rope_layer_interval=interval) == [bool(f) for f in config.no_rope_layers]


def test_llama4_scout_default_has_12_nope_layers_every_fourth():
    flags = nope.llama4_rope_layers(48)
    assert [layer for layer, rope in enumerate(flags) if not rope] == list(range(3, 48, 4))


def test_an_explicit_no_rope_list_is_read_as_hf_reads_it():
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama4 import modeling_llama4

    flags = [0, 1, 1, 0, 1, 0, 1, 1]
    config = transformers.Llama4TextConfig(
        hidden_size=8, num_attention_heads=2, num_key_value_heads=1, head_dim=4, num_hidden_layers=8,
        no_rope_layers=flags,
    )  # fmt: skip
    hf = [bool(modeling_llama4.Llama4TextAttention(config, layer).use_rope) for layer in range(8)]
    assert nope.llama4_rope_layers(8, no_rope_layers=flags) == hf == [bool(f) for f in flags]
    assert nope.llama4_rope_layers(8, no_rope_layers=[*flags, 1]) == hf  # an entry past the last layer is unused
    assert nope.llama4_rope_layers(8, no_rope_layers=[]) == nope.llama4_rope_layers(8)  # empty: HF's default


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"num_hidden_layers": 0}, "num_hidden_layers"),
        ({"num_hidden_layers": 4, "no_rope_layer_interval": 0}, "no_rope_layer_interval"),
        ({"num_hidden_layers": 4, "no_rope_layers": [1, 0]}, "no_rope_layers"),
        ({"num_hidden_layers": 2, "no_rope_layers": [1, 2]}, "no_rope_layers"),
        ({"num_hidden_layers": 2, "no_rope_layers": [1.0, 0.0]}, "no_rope_layers"),
        ({"num_hidden_layers": 2, "no_rope_layers": "10"}, "no_rope_layers"),
    ],
)
def test_llama4_rope_layers_reject_bad_arguments_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        nope.llama4_rope_layers(**kwargs)
