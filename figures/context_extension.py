"""Context extension (the page ``pages/context_extension.py``): its parameters and the shared helpers.

The parameters of the YaRN / Llama-3 blocks are registered here under HF's ``rope_scaling`` key names, and the
helpers turn the page's values into the core's scaling dict for each variant. The figures: per-pair inverse
frequency and wavelength in :mod:`figures.context_frequencies`, the ramps, the attention temperature and
dynamic NTK's base in :mod:`figures.context_yarn`, the rotation angles past the trained length in
:mod:`figures.context_angles`, the base calculator in :mod:`figures.context_base`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go
import torch

from figures.common_params import MAX_SEQ_LEN
from figures.params import ParamSpec, register_param
from figures.theme import COLORWAY
from posenc_core import presets, rope_scaling

PAGE = "context_extension"
register_param(
    ParamSpec(
        "beta_fast",
        "float",
        32.0,
        "YaRN β_fast (turns)",
        0.01,
        4096.0,
        log=True,
        help="Pairs that turn more than β_fast times inside the original context are kept as they are.",
    )
)
register_param(
    ParamSpec(
        "beta_slow",
        "float",
        1.0,
        "YaRN β_slow (turns)",
        0.01,
        4096.0,
        log=True,
        help="Pairs that turn fewer than β_slow times inside the original context are divided by the factor.",
    )
)
register_param(
    ParamSpec(
        "mscale",
        "float",
        0.0,
        "YaRN mscale (DeepSeek)",
        0.0,
        16.0,
        help="0 = unset. With mscale_all_dim set too, cos/sin are multiplied by "
        "mscale(s, mscale) / mscale(s, mscale_all_dim).",
    )
)
register_param(
    ParamSpec(
        "mscale_all_dim",
        "float",
        0.0,
        "YaRN mscale_all_dim (DeepSeek)",
        0.0,
        16.0,
        help="0 = unset. DeepSeek also multiplies the softmax scale by mscale(s, mscale_all_dim)².",
    )
)
register_param(
    ParamSpec(
        "truncate",
        "bool",
        True,
        "YaRN: round the correction range (floor / ceil)",
        help="HF's truncate (default true since ~v4.56): floor the low and ceil the high correction pair.",
    )
)
register_param(
    ParamSpec(
        "low_freq_factor",
        "float",
        1.0,
        "Llama-3 low_freq_factor",
        0.01,
        1024.0,
        log=True,
        help="Wavelengths above L / low_freq_factor are divided by the factor.",
    )
)
register_param(
    ParamSpec(
        "high_freq_factor",
        "float",
        4.0,
        "Llama-3 high_freq_factor",
        0.01,
        1024.0,
        log=True,
        help="Wavelengths below L / high_freq_factor are kept.",
    )
)
register_param(
    ParamSpec(
        "target_context",
        "int",
        32768,
        "Target context (base calculator)",
        16,
        MAX_SEQ_LEN,
        help="The context length the smallest sufficient base is computed for.",
    )
)

SCALING_PARAMS = (
    "head_dim",
    "base",
    "partial_rotary_factor",
    "rope_type",
    "factor",
    "original_max_position_embeddings",
    "seq_len",
    "beta_fast",
    "beta_slow",
    "mscale",
    "mscale_all_dim",
    "truncate",
    "low_freq_factor",
    "high_freq_factor",
)
VARIANTS = ("linear", "ntk", "dynamic", "yarn", "llama3", "longrope")
VARIANT_LABELS = {
    "default": "original (no scaling)",
    "linear": "linear (PI)",
    "ntk": "NTK-aware (static)",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3.1",
    "longrope": "LongRoPE",
}
VARIANT_COLOURS = dict(zip(VARIANTS, COLORWAY[1:], strict=False)) | {"default": "#555555"}
LONGROPE_PRESET = "phi-3-mini-128k"  # the only real LongRoPE factor lists the app holds
DIMMED = 0.45  # opacity of the variants that are not the page's rope_type
LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.25}  # under the x-axis title


def describe(p: Mapping[str, Any]) -> str:
    """'head_dim=128, base=10000, s=4, L=4,096' for titles (plus the rotary fraction when partial)."""
    text = f"head_dim={p['head_dim']}, base={p['base']:g}"
    if p["partial_rotary_factor"] != 1.0:
        text += f", partial={p['partial_rotary_factor']:g}"
    return text + f", s={p['factor']:g}, L={p['original_max_position_embeddings']:,}"


def extended_context(p: Mapping[str, Any]) -> int:
    """s·L: the context the factor is meant to reach."""
    return max(1, round(p["factor"] * p["original_max_position_embeddings"]))


def mark(
    fig: go.Figure,
    value: float,
    text: str,
    *,
    axis: str = "x",
    log: bool = False,
    dash: str = "dash",
    anchor: str = "left",
) -> None:
    """A labelled vertical (axis "x") or horizontal (axis "y") line at ``value``. Plotly places shapes in data
    units but annotations on a log axis at log10(value), hence the separate label."""
    line = {"color": "#333333", "dash": dash, "width": 1}
    where = math.log10(value) if log else value
    label = {"text": text, "showarrow": False, "xanchor": anchor, "bgcolor": "rgba(255,255,255,0.7)"}
    if axis == "x":
        fig.add_vline(x=value, line=line)
        fig.add_annotation(x=where, xref="x", y=1, yref="paper", yanchor="top", **label)
    else:
        fig.add_hline(y=value, line=line)
        fig.add_annotation(x=0 if anchor == "left" else 1, xref="paper", y=where, yref="y", yanchor="bottom", **label)


def longrope_lists(n_pairs: int) -> dict[str, Any] | None:
    """Phi-3-mini-128k's short/long factor lists when the rotary dim has as many pairs (48), else None."""
    scaling = presets.PRESETS[LONGROPE_PRESET].rope_scaling
    if len(scaling["short_factor"]) != n_pairs:
        return None
    return {key: list(scaling[key]) for key in ("short_factor", "long_factor")}


def longrope_note(n_pairs: int) -> str:
    """Which LongRoPE lists are drawn, or why LongRoPE is left out."""
    name = presets.PRESETS[LONGROPE_PRESET].name
    if longrope_lists(n_pairs) is not None:
        return (
            f"LongRoPE uses {name}'s short/long factor lists (its April 2024 config.json): LongRoPE's factors "
            "are searched per model, so these are that model's numbers, not a formula of s."
        )
    return (
        f"LongRoPE is left out: its per-pair factors are searched per model, and the only lists the app holds "
        f"({name}'s) have 48 pairs, not {n_pairs}. Choose the {name} preset (head_dim 96) to see them."
    )


def scaling(variant: str, p: Mapping[str, Any], n_pairs: int) -> dict[str, Any] | None:
    """The core's ``rope_scaling`` dict for ``variant`` with the page's values (None for 'default')."""
    if variant == "default":
        return None
    block: dict[str, Any] = {"rope_type": variant, "factor": p["factor"]}
    original = {"original_max_position_embeddings": p["original_max_position_embeddings"]}
    if variant == "yarn":
        block |= original | {key: p[key] for key in ("beta_fast", "beta_slow", "truncate")}
        block |= {key: p[key] for key in ("mscale", "mscale_all_dim") if p[key]}
    elif variant == "llama3":
        block |= original | {key: p[key] for key in ("low_freq_factor", "high_freq_factor")}
    elif variant == "longrope":
        lists = longrope_lists(n_pairs)
        if lists is None:
            raise ValueError(longrope_note(n_pairs))
        block |= original | lists
    return block


def original_frequencies(p: Mapping[str, Any]) -> torch.Tensor:
    """The unscaled inv_freq (d/2,) of the page's head_dim, base and partial rotary factor."""
    inv, _ = rope_scaling.inv_freq(
        p["head_dim"], p["base"], None, partial_rotary_factor=p["partial_rotary_factor"], device=p["device"]
    )
    return inv


def variant_frequencies(variant: str, p: Mapping[str, Any], n_pairs: int) -> tuple[torch.Tensor, float]:
    """(inv_freq, attention_factor) of ``variant`` from the core. Dynamic NTK and LongRoPE read seq_len;
    max_position_embeddings is the original length L (a dynamic model's config holds its trained length)."""
    return rope_scaling.inv_freq(
        p["head_dim"],
        p["base"],
        scaling(variant, p, n_pairs),
        seq_len=p["seq_len"],
        partial_rotary_factor=p["partial_rotary_factor"],
        max_position_embeddings=p["original_max_position_embeddings"],
        device=p["device"],
    )


def all_frequencies(p: Mapping[str, Any]) -> tuple[torch.Tensor, dict[str, tuple[torch.Tensor, float]], str]:
    """The original inv_freq, every drawable variant's (inv_freq, attention_factor), and the LongRoPE note."""
    original = original_frequencies(p)
    n_pairs = original.numel()
    drawn = [v for v in VARIANTS if v != "longrope" or longrope_lists(n_pairs) is not None]
    return original, {v: variant_frequencies(v, p, n_pairs) for v in drawn}, longrope_note(n_pairs)
