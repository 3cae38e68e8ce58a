"""The lab's model: for each scheme, the first layer's attention logits on a small input equal a computation
written out by hand, position by position, from the core's own functions (the sinusoidal table, T5's buckets,
ALiBi's slopes, RoPE's frequencies and attention factor); and the model's shapes, mask and loss."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn import functional as F

from posenc_core.encodings import alibi, relative, sinusoidal
from posenc_core.rope import scaling as rope_scaling
from posenc_lab.limits import MAX_PARAMETERS, SIZE_BOUNDS
from posenc_lab.model import LabConfig, LabModel, parameter_count
from posenc_lab.schemes import SCHEMES

LENGTH = 24  # tokens in the small input: T5 puts distances from 16 on in logarithmic buckets


def _model(scheme: str, seed: int = 0, **overrides) -> LabModel:
    torch.manual_seed(seed)
    model = LabModel(LabConfig(scheme=scheme, max_len=32, **overrides))
    with torch.no_grad():  # T5's bias starts at zero: give it values, so that it shows in the logits
        for parameter in model.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.05)
    return model


def _turned(vector: torch.Tensor, position: int, inv_freq: torch.Tensor, factor: float) -> torch.Tensor:
    """RoPE by hand, half layout (Llama): pair (i, i + d/2) turned by position·θ_i, both scaled by the factor."""
    half = vector.numel() // 2
    out = torch.empty_like(vector)
    for i in range(half):
        angle = position * float(inv_freq[i])
        x, y = float(vector[i]), float(vector[i + half])
        out[i] = factor * (x * math.cos(angle) - y * math.sin(angle))
        out[i + half] = factor * (y * math.cos(angle) + x * math.sin(angle))
    return out


def _by_hand(model: LabModel, tokens: torch.Tensor) -> torch.Tensor:
    """The first block's attention logits (H, T, T) for one sequence, one query and key at a time."""
    config, block = model.config, model.blocks[0]
    length, heads, head_dim = tokens.numel(), config.n_heads, config.head_dim
    x = model.embed.weight[tokens] * math.sqrt(config.d_model)  # (T, d)
    if config.scheme == "sinusoidal":
        x = x + sinusoidal.encoding(length, config.d_model)
    if config.scheme == "learned":
        x = x + model.scheme.table[:length]
    norm = block.norm_attention
    h = F.layer_norm(x, (config.d_model,), norm.weight, norm.bias, norm.eps)
    q_all, k_all, _ = (h @ block.attention.qkv.weight.T).chunk(3, dim=-1)
    inv_freq, factor = rope_scaling.inv_freq(
        head_dim,
        config.rope_base,
        model.scheme.scaling if config.scheme == "rope" else None,
        seq_len=length,
        max_position_embeddings=config.max_len,
    )
    slopes = alibi.slopes(heads)
    logits = torch.full((heads, length, length), -math.inf)
    for head in range(heads):
        channels = slice(head * head_dim, (head + 1) * head_dim)
        for i in range(length):
            for j in range(i + 1):
                q, k = q_all[i, channels], k_all[j, channels]
                if config.scheme == "rope":
                    q, k = _turned(q, i, inv_freq, factor), _turned(k, j, inv_freq, factor)
                score = float(q @ k) / math.sqrt(head_dim)
                if config.scheme == "alibi":
                    score -= float(slopes[head]) * (i - j)
                if config.scheme == "t5":
                    bucket = int(
                        relative.t5_bucket(
                            j - i,
                            bidirectional=False,
                            num_buckets=config.t5_buckets,
                            max_distance=config.t5_max_distance,
                        )
                    )
                    score += float(model.scheme.buckets.weight[bucket, head])
                logits[head, i, j] = score
    return logits


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_the_attention_logits_equal_the_cores_formulas_written_out(scheme):
    model = _model(scheme)
    tokens = torch.randint(0, 256, (LENGTH,), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        x = model.blocks[0].norm_attention(model.residual_input(tokens[None]))
        logits, _ = model.blocks[0].attention.logits(x, torch.arange(LENGTH))
        expected = _by_hand(model, tokens)
    torch.testing.assert_close(logits[0], expected, atol=2e-5, rtol=1e-5)


@pytest.mark.parametrize(
    "scaling",
    [
        {"rope_type": "linear", "factor": 4.0},
        {
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 32,
            "beta_fast": 32.0,
            "beta_slow": 1.0,
        },
        {
            "rope_type": "llama3",
            "factor": 4.0,
            "original_max_position_embeddings": 32,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
        },
    ],
    ids=lambda scaling: scaling["rope_type"],
)
def test_rope_scaling_at_evaluation_turns_q_and_k_as_the_core_says(scaling):
    model = _model("rope")
    model.scheme.scaling = scaling
    tokens = torch.randint(0, 256, (LENGTH,), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        x = model.blocks[0].norm_attention(model.residual_input(tokens[None]))
        logits, _ = model.blocks[0].attention.logits(x, torch.arange(LENGTH))
        expected = _by_hand(model, tokens)
        model.scheme.scaling = None
        plain, _ = model.blocks[0].attention.logits(x, torch.arange(LENGTH))
    torch.testing.assert_close(logits[0], expected, atol=2e-5, rtol=1e-5)
    assert not torch.allclose(logits, plain), "the scaling changed nothing"


def test_a_token_never_sees_the_tokens_after_it():
    model = _model("nope")
    tokens = torch.randint(0, 256, (1, LENGTH), generator=torch.Generator().manual_seed(3))
    changed = tokens.clone()
    changed[0, -1] = (changed[0, -1] + 1) % 256
    with torch.no_grad():
        before, after = model(tokens), model(changed)
    torch.testing.assert_close(before[0, :-1], after[0, :-1])
    assert not torch.allclose(before[0, -1], after[0, -1])


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_an_untrained_model_starts_near_uniform_whatever_its_scheme(scheme):
    """Tied embeddings scaled by √d_model make an untrained model lean to repeating its input token, so it starts
    somewhat above uniform (ln 256), never far from it: no scheme starts out knowing or wrecking anything."""
    torch.manual_seed(0)
    model = LabModel(LabConfig(scheme=scheme, max_len=32))
    tokens = torch.randint(0, 256, (4, 24), generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        loss = float(model.loss(tokens))
    assert math.log(256) - 0.5 < loss < math.log(256) + 3.0, loss


def test_only_position_differs_between_the_schemes():
    sizes = {scheme: sum(p.numel() for p in LabModel(LabConfig(scheme=scheme)).parameters()) for scheme in SCHEMES}
    config = LabConfig()
    assert sizes["learned"] - sizes["nope"] == config.max_len * config.d_model
    assert sizes["t5"] - sizes["nope"] == config.t5_buckets * config.n_heads
    assert sizes["sinusoidal"] == sizes["alibi"] == sizes["rope"] == sizes["nope"]


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"scheme": "wavelet"}, "scheme must be one of nope, sinusoidal, learned, t5, alibi, rope"),
        ({"d_model": 60, "n_heads": 8}, "d_model must be a multiple of n_heads"),
        ({"n_layers": 0}, "n_layers must be a whole number from 1 to 8"),
        ({"max_len": 2.5}, "max_len must be a whole number"),
    ],
)
def test_a_bad_config_names_the_setting(overrides, words):
    with pytest.raises(ValueError, match=words):
        LabModel(LabConfig(**overrides))


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_the_fused_forward_equals_the_written_out_softmax(scheme):
    model = _model(scheme)
    attention, x = model.blocks[0].attention, torch.randn(2, 20, model.config.d_model)
    positions = model.positions(20, x.device)
    with torch.no_grad():
        logits, v = attention.logits(x, positions)
        by_hand = attention.out((logits.softmax(dim=-1) @ v).transpose(1, 2).reshape(x.shape))
        assert torch.allclose(attention(x, positions), by_hand, atol=1e-5)


@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("sizes", [{}, {"d_model": 32, "n_heads": 2, "n_layers": 3, "d_ff": 48, "max_len": 40}])
def test_the_parameter_count_from_the_sizes_is_the_models(scheme, sizes):
    config = LabConfig(scheme=scheme, **sizes)
    assert parameter_count(config) == sum(p.numel() for p in LabModel(config).parameters())


def test_every_size_at_its_bound_fits_the_parameter_budget_and_one_past_it_is_refused():
    largest = LabConfig(scheme="learned", **{name: most for name, (_, most) in SIZE_BOUNDS.items()})
    assert parameter_count(largest) <= MAX_PARAMETERS
    for name, (least, most) in SIZE_BOUNDS.items():
        for value in (least - 1, most + 1, float(most), math.inf):
            with pytest.raises(ValueError, match=f"{name} must be a whole number from {least:,} to {most:,}"):
                LabConfig(**{name: value})
    with pytest.raises(ValueError, match="rope_base must be a finite number"):
        LabConfig(rope_base=math.nan)
