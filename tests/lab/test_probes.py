"""Probes: one layer's attention is the model's own softmax (rows sum to one, nothing above the diagonal), and the
RoPE pair norms are the norms of (x_i, x_{i+d/2}) of the queries and keys before they turn."""

from __future__ import annotations

import pytest
import torch

from posenc_lab import probes
from posenc_lab.model import LabConfig, LabModel

CONFIG = LabConfig(scheme="rope", d_model=16, n_heads=2, n_layers=2, d_ff=32, max_len=16)


def _model() -> LabModel:
    torch.manual_seed(2)
    return LabModel(CONFIG).eval()


def test_the_window_is_the_evaluation_text():
    assert probes.window(5, start=3).tolist() == [probes.evaluation_tokens()[3:8].tolist()]


@pytest.mark.parametrize("layer", [0, 1])
def test_attention_rows_are_causal_distributions(layer):
    weights = probes.attention(_model(), probes.window(12), layer)
    assert weights.shape == (2, 12, 12)
    assert torch.allclose(weights.sum(dim=-1), torch.ones(2, 12))
    assert (weights.triu(1) == 0).all()


def test_the_second_layers_attention_reads_the_first_layers_output():
    model, tokens = _model(), probes.window(10)
    with torch.no_grad():
        x = model.blocks[0](model.residual_input(tokens), model.positions(10, tokens.device))
        logits, _ = model.blocks[1].attention.logits(model.blocks[1].norm_attention(x), model.positions(10, x.device))
    assert torch.allclose(probes.attention(model, tokens, 1), logits.softmax(-1)[0], atol=1e-6)


def test_pair_norms_are_the_norms_of_each_rotation_pair_by_hand():
    model, tokens = _model(), probes.window(9)
    queries, keys = probes.pair_norms(model, tokens, 0)
    assert queries.shape == keys.shape == (2, 4)
    with torch.no_grad():
        h = model.blocks[0].norm_attention(model.residual_input(tokens))[0]  # (T, d)
        q = (h @ model.blocks[0].attention.qkv.weight.T)[:, :16].view(9, 2, 8)  # (T, H, head_dim)
    head, pair = 1, 3
    by_hand = torch.stack([torch.hypot(q[t, head, pair], q[t, head, pair + 4]) for t in range(9)]).mean()
    assert queries[head, pair] == pytest.approx(float(by_hand), rel=1e-5)


@pytest.mark.parametrize("layer", [-1, 2, 1.0, True])
def test_a_layer_outside_the_model_is_named(layer):
    with pytest.raises(ValueError, match="layer must be a whole number from 0 to 1"):
        probes.attention(_model(), probes.window(4), layer)
