"""The sinusoidal family's parameters (channel layout, window length, channels to draw, offset, token scale), the
positions its figures draw, and its titles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from posenc.drawing.common_params import MAX_D_MODEL, MAX_SEQ_LEN
from posenc.drawing.params import ParamSpec, index_below, register_param
from posenc.drawing.shown import shown_positions
from posenc.i18n import N_, _
from posenc_core import sampling
from posenc_core.encodings import sinusoidal

register_param(
    ParamSpec(
        "layout",
        "choice",
        "interleaved",
        N_("Channel layout"),
        choices=sinusoidal.LAYOUTS,
        help=N_(
            "Where the sin and cos channel of each frequency pair sit, and how the frequencies are spaced. "
            "interleaved (Vaswani; HF DistilBERT): sin, cos, sin, cos…, ω_i = base^(−2i/d). half (Marian): all sin "
            "channels, then all cos, same ω_i. t2t (tensor2tensor, fairseq): sin first too, ω_i = base^(−i/(d/2−1)), "
            "so the timescales run from 1 to exactly base."
        ),
        choice_labels={
            "interleaved": N_("interleaved: sin, cos, sin, cos… (Vaswani)"),
            "half": N_("half: all sin, then all cos (Marian)"),
            "t2t": N_("t2t: timescales 1..base (tensor2tensor, fairseq)"),
        },
    )
)


def _window_limits(values: Mapping[str, Any]) -> tuple[int, int, str] | None:
    """A window holds 1 .. seq_len positions."""
    if "seq_len" not in values:
        return None
    length = int(values["seq_len"])
    return 1, length, _("the sequence has {length:,} positions").format(length=length)


WINDOW = register_param(
    ParamSpec(
        "window",
        "int",
        100,
        N_("Window length (positions)"),
        1,
        sampling.MAX_CELLS_PER_AXIS,
        help=N_("How many consecutive positions the window view draws, from the window start."),
        limits=_window_limits,
    )
)


def shown(p: Mapping[str, Any], most: int) -> tuple[torch.Tensor, str]:
    """The positions a figure draws (at most ``most``) and their note: every position of the window
    start .. start + window - 1, or the overview of 0 .. seq_len - 1. A window longer than this figure can draw is
    cut, and the note says so."""
    if p["view"] != "window":
        return shown_positions(p, p["seq_len"], most)
    positions, note = shown_positions(p, p["seq_len"], min(p["window"], most))
    asked = min(p["window"], p["seq_len"] - p["start"])
    if positions.numel() < asked:
        note += _(" (the first {shown:,} of the window's {asked:,}: this figure draws at most {most:,})").format(
            shown=positions.numel(), asked=asked, most=most
        )
    return positions, note


def describe(p: Mapping[str, Any], *, length: bool = True) -> str:
    """'layout=interleaved, d_model=128, base=10000, L=1024' for titles."""
    text = f"layout={p['layout']}, d_model={p['d_model']}, base={p['base']:g}"
    return text + (f", L={p['seq_len']:,}" if length else "")


register_param(
    ParamSpec(
        "dims",
        "ints",
        (4, 16, 40),  # λ = 8.4, 20 and 112 tokens at d_model=128: ~12, 5 and 1 periods in the first 100 positions
        N_("Channels to draw"),
        0,
        MAX_D_MODEL - 1,
        max_items=6,
        help=N_("Channel indices j (0-based) whose wave PE[p, j] is drawn."),
        limits=index_below("d_model", N_("d_model is {n}")),
    )
)


register_param(
    ParamSpec("offset", "int", 8, N_("Offset k (tokens)"), 0, MAX_SEQ_LEN, help=N_("M_k moves PE(p) to PE(p+k)."))
)


register_param(
    ParamSpec(
        "token_scale",
        "float",
        1.0,
        N_("Token embedding norm (× ‖PE‖)"),
        0.01,
        100.0,
        log=True,
        help=N_("‖e‖ as a multiple of ‖PE(p)‖ = √(d_model/2)."),
    )
)
