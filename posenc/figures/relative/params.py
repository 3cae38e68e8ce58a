"""The relative family's parameters (Shaw's clip distance, T5's buckets) and the T5 arguments they make."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.common_params import MAX_SEQ_LEN
from posenc.drawing.params import ParamSpec, register_param
from posenc.i18n import N_, _

register_param(
    ParamSpec(
        "clip_distance",
        "int",
        16,
        N_("Shaw clip distance k"),
        1,
        MAX_SEQ_LEN,
        help=N_("Offsets j − i beyond ±k share the index of ±k (the core's max_distance)."),
    )
)


register_param(
    ParamSpec(
        "num_buckets",
        "int",
        32,
        N_("T5 num_buckets"),
        4,
        1024,
        help=N_("relative_attention_num_buckets (T5: 32)."),
    )
)


register_param(
    ParamSpec(
        "max_distance",
        "int",
        128,
        N_("T5 max_distance"),
        2,
        MAX_SEQ_LEN,
        help=N_("relative_attention_max_distance (T5: 128): offsets this far or further share the last bucket."),
    )
)


register_param(
    ParamSpec(
        "bidirectional",
        "bool",
        True,
        N_("Bidirectional (encoder)"),
        help=N_("On: encoder self-attention, half the buckets for each side. Off: causal decoder, past offsets only."),
    )
)


def t5_args(p: Mapping[str, Any], bidirectional: bool | None = None) -> dict[str, Any]:
    chosen = p["bidirectional"] if bidirectional is None else bidirectional
    return {"bidirectional": chosen, "num_buckets": p["num_buckets"], "max_distance": p["max_distance"]}


def t5_describe(p: Mapping[str, Any]) -> str:
    side = _("bidirectional") if p["bidirectional"] else _("causal")
    return f"{side}, num_buckets={p['num_buckets']}, max_distance={p['max_distance']:,}"
