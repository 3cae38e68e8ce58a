"""posenc_core.rope bad arguments: every public function raises a ValueError naming the argument."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_core.rope import (
    angles,
    apply,
    channel_pair_index,
    cos_sin,
    layout_permutation,
    relative_scores,
    rotate_every_two,
    rotate_half,
)
from tests.core.rope_helpers import F64, default_freq

FREQ = default_freq(4)
X = torch.zeros(2, 6, dtype=F64)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: apply(X, [0, 1], FREQ, rotary_dim=3), "rotary_dim"),
        (lambda: apply(X, [0, 1], FREQ, rotary_dim=8), "rotary_dim"),
        (lambda: apply(X, [0, 1], FREQ, rotary_dim=6), "rotary_dim"),  # != 2 * len(inv_freq)
        (lambda: apply(X, [0, 1], default_freq(8)), "rotary_dim"),  # 8 rotary channels > head_dim 6
        (lambda: apply(X, [0], FREQ), "positions"),
        (lambda: apply(X, [0, float("nan")], FREQ), "positions"),
        (lambda: apply(X, [[0, 1]], FREQ), "positions"),
        (lambda: apply(X, "ab", FREQ), "positions"),
        (lambda: apply(X, [0, 1], FREQ, layout="gptj"), "layout"),
        (lambda: apply(X, [0, 1], FREQ, attention_factor=0.0), "attention_factor"),
        (lambda: apply(X, [0, 1], FREQ, attention_factor=float("nan")), "attention_factor"),
        (lambda: apply(X.long(), [0, 1], FREQ), "x"),
        (lambda: apply([[0.0, 1.0]], [0], FREQ), "x"),
        (lambda: apply(X, [0, 1], torch.tensor([1.0, float("nan")])), "inv_freq"),
        (lambda: apply(X, [0, 1], torch.tensor([1, 2])), "inv_freq"),
        (lambda: apply(X, [0, 1], torch.tensor([])), "inv_freq"),
        (lambda: cos_sin([0], FREQ, dtype=torch.float16), "dtype"),
        (lambda: cos_sin([0], FREQ, device="tpu"), "device"),
        (lambda: angles([True, False], FREQ), "positions"),
        (lambda: rotate_half(torch.zeros(3)), "x"),
        (lambda: rotate_every_two(torch.zeros(2, 5)), "x"),
        (lambda: layout_permutation(3), "dim"),
        (lambda: channel_pair_index(0, "half"), "dim"),
        (lambda: channel_pair_index(4, "t2t"), "layout"),
        (lambda: relative_scores(torch.zeros(4), torch.zeros(6), [0], FREQ), "q and k"),
        (lambda: relative_scores(torch.zeros(2, 4), torch.zeros(2, 4), [0], FREQ), "q"),
        (lambda: relative_scores(torch.zeros(4), torch.zeros(4), [0], FREQ, key_positions=[math.inf]), "key_positions"),
    ],
)
def test_bad_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
