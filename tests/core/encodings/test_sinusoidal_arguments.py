"""posenc_core.encodings.sinusoidal bad arguments: encoding and the other functions raise a ValueError naming the
argument."""

from __future__ import annotations

import pytest
import torch

from posenc_core.encodings.sinusoidal import (
    channel_pair_index,
    encoding,
    inv_freq,
    linear_map,
    relative_similarity,
    wavelengths,
)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"seq_len": -1}, "seq_len"),
        ({"seq_len": 2.5}, "seq_len"),
        ({"seq_len": None}, "seq_len"),
        ({"d_model": 0}, "d_model"),
        ({"d_model": True}, "d_model"),
        ({"base": 1.0}, "base"),
        ({"base": 0.5}, "base"),
        ({"base": float("nan")}, "base"),
        ({"base": float("inf")}, "base"),
        ({"layout": "rotate_half"}, "layout"),
        ({"layout": "t2t", "d_model": 2}, "d_model"),
        ({"layout": "t2t", "d_model": 3}, "d_model"),
        ({"dtype": torch.float16}, "dtype"),
        ({"positions": [[0, 1]]}, "positions"),
        ({"positions": [0.0, float("nan")]}, "positions"),
        ({"positions": [True, False]}, "positions"),
        ({"positions": "abc"}, "positions"),
        ({"channels": [0, 8]}, "channels"),
        ({"channels": [-1]}, "channels"),
        ({"channels": [0.0, 1.0]}, "channels"),
        ({"seq_len": 2**22, "d_model": 128}, "positions"),
        ({"device": "tpu"}, "device"),
    ],
)
def test_encoding_rejects_bad_arguments(kwargs, name):
    args = {"seq_len": 4, "d_model": 8, "device": "cpu", **kwargs}
    with pytest.raises(ValueError, match=name):
        encoding(args.pop("seq_len"), args.pop("d_model"), **args)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: inv_freq(0), "d_model"),
        (lambda: inv_freq(8, base=float("nan")), "base"),
        (lambda: inv_freq(8, layout="x"), "layout"),
        (lambda: wavelengths(8, base=-3), "base"),
        (lambda: channel_pair_index(8, "x"), "layout"),
        (lambda: relative_similarity([1.0, float("inf")], 8), "offsets"),
        (lambda: relative_similarity([1], 8, position=float("nan")), "position"),
        (lambda: linear_map(float("nan"), 8), "offset"),
        (lambda: linear_map(1, 8, layout="t2t", dtype=torch.int64), "dtype"),
    ],
)
def test_other_functions_reject_bad_arguments(call, name):
    with pytest.raises(ValueError, match=name):
        call()
