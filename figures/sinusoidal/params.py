"""The sinusoidal family's parameters (channel layout, channels to draw, offset, token scale) and its titles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from figures.common_params import MAX_D_MODEL, MAX_SEQ_LEN
from figures.params import ParamSpec, index_below, register_param
from posenc_core import sinusoidal

register_param(
    ParamSpec(
        "layout",
        "choice",
        "interleaved",
        "Channel layout",
        choices=sinusoidal.LAYOUTS,
        help="Where the sin and cos channel of each frequency pair sit, and how the frequencies are spaced.",
        choice_labels={
            "interleaved": "interleaved: sin, cos, sin, cos… (Vaswani)",
            "half": "half: all sin, then all cos (Marian)",
            "t2t": "t2t: timescales 1..base (tensor2tensor, fairseq)",
        },
    )
)


def describe(p: Mapping[str, Any], *, length: bool = True) -> str:
    """'layout=interleaved, d_model=128, base=10000, L=1024' for titles."""
    text = f"layout={p['layout']}, d_model={p['d_model']}, base={p['base']:g}"
    return text + (f", L={p['seq_len']:,}" if length else "")


register_param(
    ParamSpec(
        "dims",
        "ints",
        (0, 1, 16, 64),
        "Channels to draw",
        0,
        MAX_D_MODEL - 1,
        max_items=6,
        help="Channel indices j (0-based) whose wave PE[p, j] is drawn.",
        limits=index_below("d_model", "d_model is {n}"),
    )
)


register_param(ParamSpec("offset", "int", 8, "Offset k (tokens)", 0, MAX_SEQ_LEN, help="M_k moves PE(p) to PE(p+k)."))


register_param(
    ParamSpec(
        "token_scale",
        "float",
        1.0,
        "Token embedding norm (× ‖PE‖)",
        0.01,
        100.0,
        log=True,
        help="‖e‖ as a multiple of ‖PE(p)‖ = √(d_model/2).",
    )
)
