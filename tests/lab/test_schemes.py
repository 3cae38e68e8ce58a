"""The lab's position schemes: six in one registry; a learned table says when it is asked past its last row; every
rope_type the core knows applies to the RoPE model at evaluation (a finite loss at 4x the trained length), and
dynamic NTK leaves it unchanged within the trained length."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_core.rope.methods import example_scaling
from posenc_core.rope.scaling import ROPE_SCALING_FUNCTIONS
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.schemes import SCHEMES, PastTheTable

TRAINED = 16  # the models' trained length L


def _model(scheme: str) -> LabModel:
    torch.manual_seed(0)
    return LabModel(LabConfig(scheme=scheme, max_len=TRAINED))


def _tokens(length: int) -> torch.Tensor:
    return torch.randint(0, 256, (1, length), generator=torch.Generator().manual_seed(5))


def test_the_six_schemes():
    assert list(SCHEMES) == ["nope", "sinusoidal", "learned", "t5", "alibi", "rope"]


def test_a_learned_table_asked_past_its_last_row_says_so():
    model = _model("learned")
    with torch.no_grad():
        assert torch.isfinite(model.loss(_tokens(TRAINED + 1))).item()  # positions 0..L-1 are read: L + 1 tokens
        with pytest.raises(PastTheTable, match=f"learned: position {TRAINED} is past the table of {TRAINED} positions"):
            model.loss(_tokens(TRAINED + 2))


@pytest.mark.parametrize("scheme", ["nope", "sinusoidal", "t5", "alibi", "rope"])
def test_the_other_schemes_run_past_the_trained_length(scheme):
    with torch.no_grad():
        assert torch.isfinite(_model(scheme).loss(_tokens(4 * TRAINED))).item()


@pytest.mark.parametrize("rope_type", list(ROPE_SCALING_FUNCTIONS))
def test_every_rope_type_applies_at_evaluation(rope_type):
    model = _model("rope")
    head_dim = model.config.head_dim
    model.scheme.scaling = example_scaling(
        rope_type, rotary_dim=head_dim, factor=4.0, original_max_position_embeddings=TRAINED
    )
    with torch.no_grad():
        loss = float(model.loss(_tokens(4 * TRAINED)))
    assert math.isfinite(loss)


def test_dynamic_ntk_equals_no_scaling_within_the_trained_length():
    model = _model("rope")
    tokens = _tokens(TRAINED)
    with torch.no_grad():
        plain = model(tokens)
        model.scheme.scaling = {"rope_type": "dynamic", "factor": 4.0}
        dynamic = model(tokens)
        longer = _tokens(4 * TRAINED)
        dynamic_past = model(longer)
        model.scheme.scaling = None
        plain_past = model(longer)
    torch.testing.assert_close(dynamic, plain)
    assert not torch.allclose(dynamic_past, plain_past), "dynamic NTK changed nothing past the trained length"
