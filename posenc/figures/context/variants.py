"""The RoPE scaling variants drawn side by side: the core's scaling dict of each for the page's values, and
their frequencies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from posenc.i18n import N_, _
from posenc_core.models import presets
from posenc_core.rope import scaling as rope_scaling
from posenc_core.rope.scaling_keys import SCALING_KEYS, keys_of

VARIANTS = ("linear", "ntk", "dynamic", "yarn", "llama3", "longrope")


VARIANT_LABELS = {
    "default": N_("original (no scaling)"),
    "linear": N_("linear (PI)"),
    "ntk": N_("NTK-aware (static)"),
    "dynamic": N_("dynamic NTK"),
    "yarn": "YaRN",
    "llama3": "Llama 3.1",
    "longrope": "LongRoPE",
}
"""Each variant's name in English (the data keys and the code use it): show it with :func:`variant_label`."""


def variant_label(variant: str) -> str:
    """``variant``'s name in the reader's language (the method names themselves stay as they are)."""
    label = VARIANT_LABELS[variant]
    return _(label) if variant in ("default", "linear", "ntk", "dynamic") else label


LONGROPE_PRESET = "phi-3-mini-128k"  # the only real LongRoPE factor lists the app holds


def describe(p: Mapping[str, Any]) -> str:
    """'head_dim=128, base=10000, s=4, L=4,096' for titles (plus the rotary fraction when partial)."""
    text = f"head_dim={p['head_dim']}, base={p['base']:g}"
    if p["partial_rotary_factor"] != 1.0:
        text += f", partial={p['partial_rotary_factor']:g}"
    return text + f", s={p['factor']:g}, L={p['original_max_position_embeddings']:,}"


def extended_context(p: Mapping[str, Any]) -> int:
    """s·L: the context the factor is meant to reach."""
    return max(1, round(p["factor"] * p["original_max_position_embeddings"]))


def longrope_lists(p: Mapping[str, Any], n_pairs: int) -> dict[str, Any] | None:
    """The LongRoPE short/long factor lists drawn: the model's own (``p``'s, from its preset or config.json) when
    they cover the ``n_pairs`` pairs, else Phi-3-mini-128k's when the rotary dim has as many pairs (48), else None."""
    own = {key: list(p.get(key) or ()) for key in ("short_factor", "long_factor")}
    if all(len(values) == n_pairs for values in own.values()):
        return own
    scaling = presets.PRESETS[LONGROPE_PRESET].rope_scaling
    if len(scaling["short_factor"]) != n_pairs:
        return None
    return {key: list(scaling[key]) for key in ("short_factor", "long_factor")}


def longrope_note(p: Mapping[str, Any], n_pairs: int) -> str:
    """Which LongRoPE lists are drawn, or why LongRoPE is left out."""
    name = presets.PRESETS[LONGROPE_PRESET].name
    given = [len(p.get(key) or ()) for key in ("short_factor", "long_factor")]
    lists = longrope_lists(p, n_pairs)
    if lists is not None and given == [n_pairs, n_pairs]:
        return _(
            "LongRoPE uses the model's own short/long factor lists (from its preset or config.json): LongRoPE's "
            "factors are searched per model, so these are that model's numbers, not a formula of s."
        )
    mismatch = (
        _(" (the model's lists cover {short} and {long} pairs)").format(short=given[0], long=given[1])
        if any(given)
        else ""
    )
    if lists is not None:
        return _(
            "LongRoPE uses {name}'s short/long factor lists (its April 2024 config.json){mismatch}: LongRoPE's "
            "factors are searched per model, so these are that model's numbers, not a formula of s."
        ).format(name=name, mismatch=mismatch)
    return _(
        "LongRoPE is left out: its per-pair factors are searched per model, and no lists for {pairs} pairs are "
        "at hand{mismatch}; the app's own ({name}'s) have 48. Choose the {name} preset (head_dim 96), or a "
        "config.json with LongRoPE lists, to see them."
    ).format(pairs=n_pairs, mismatch=mismatch, name=name)


ARGUMENT_KEYS = ("rope_theta", "partial_rotary_factor")  # given to the core as arguments (base, partial rotary)


def scaling(variant: str, p: Mapping[str, Any], n_pairs: int) -> dict[str, Any] | None:
    """The core's ``rope_scaling`` dict for ``variant`` with the page's values (None for 'default'): every key the
    variant reads (posenc_core.rope.scaling_keys) that the page has a value for; 0 leaves an optional key unset."""
    if variant == "default":
        return None
    block: dict[str, Any] = {"rope_type": variant}
    for name in keys_of(variant):
        kind = SCALING_KEYS[name].kind
        if kind == "floats":
            lists = longrope_lists(p, n_pairs)
            if lists is None:
                raise ValueError(longrope_note(p, n_pairs))
            block[name] = lists[name]
        elif name in p and name not in ARGUMENT_KEYS and (kind == "bool" or p[name]):
            block[name] = p[name]
    return block


def original_frequencies(p: Mapping[str, Any]) -> torch.Tensor:
    """The unscaled inv_freq (d/2,) of the page's head_dim, base and partial rotary factor."""
    inv, _factor = rope_scaling.inv_freq(
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
    drawn = [v for v in VARIANTS if v != "longrope" or longrope_lists(p, n_pairs) is not None]
    return original, {v: variant_frequencies(v, p, n_pairs) for v in drawn}, longrope_note(p, n_pairs)
