"""posenc_core.encodings.alibi bad arguments: every public function raises a ValueError naming the argument."""

from __future__ import annotations

import math

import pytest
import torch

from posenc_core.encodings import alibi


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: alibi.slopes(0), "n_heads"),
        (lambda: alibi.slopes(alibi.MAX_HEADS + 1), "n_heads"),
        (lambda: alibi.slopes(True), "n_heads"),
        (lambda: alibi.slopes(2.5), "n_heads"),
        (lambda: alibi.slopes(8, dtype=torch.float16), "dtype"),
        (lambda: alibi.mpt_slopes(0), "n_heads"),
        (lambda: alibi.mpt_slopes(8, 0.0), "alibi_bias_max"),
        (lambda: alibi.mpt_slopes(8, math.nan), "alibi_bias_max"),
        (lambda: alibi.bias(8, -1), "q_len"),
        (lambda: alibi.bias(8, 0), "q_len"),
        (lambda: alibi.bias(8, 4, 3), "k_len"),
        (lambda: alibi.bias(0, 4), "n_heads"),
        (lambda: alibi.bias(8, 4, mode="bidirectional"), "mode"),
        (lambda: alibi.bias(8, 4, heads=[8]), "heads"),
        (lambda: alibi.bias(8, 4, heads=[-1]), "heads"),
        (lambda: alibi.bias(8, 4, query_positions=[4]), "query_positions"),
        (lambda: alibi.bias(8, 4, 6, key_positions=torch.tensor([6])), "key_positions"),
        (lambda: alibi.bias(8, 4, key_positions=torch.tensor([0.5])), "key_positions"),
        (lambda: alibi.bias([0.5, 0.0], 4), "n_heads"),
        (lambda: alibi.bias(torch.tensor([0.5, math.nan]), 4), "n_heads"),
        (lambda: alibi.bias([], 4), "n_heads"),
        (lambda: alibi.bias(["a"], 4), "n_heads"),
        (lambda: alibi.reference_bias(8, 4, dtype=torch.int64), "dtype"),
        (lambda: alibi.reference_bias(8, 4, 2), "k_len"),
        (lambda: alibi.attention_to_past(8, -1), "query_position"),
        (lambda: alibi.attention_to_past(8, 3, distances=[4]), "distances"),
        (lambda: alibi.attention_to_past(-0.5, 3), "n_heads"),
        (lambda: alibi.effective_span(8, 0.0), "mass"),
        (lambda: alibi.effective_span(8, 1.0), "mass"),
        (lambda: alibi.effective_span(8, query_position=-2), "query_position"),
    ],
)
def test_bad_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
