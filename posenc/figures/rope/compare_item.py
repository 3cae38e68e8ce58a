"""RoPE in Compare: ``rope[:preset]``; its curve is the score (R(m)q)·(R(n)k) of q = k = all-ones at m - n = k."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from posenc.figures.compare.items import (
    CompareCurve,
    CompareItem,
    preset_keys,
    preset_of,
    register_compare_curve,
    work_device_dtype,
)
from posenc.i18n import _
from posenc_core import rope
from posenc_core.models import presets

PRESET_SCHEMES = ("rope", "mrope")
EXAMPLE_PRESET = "llama-3.1-8b"


def _parse(where: str, argument: str, head: str | None, p: Mapping[str, Any]) -> CompareItem:
    if not argument:
        return CompareItem("rope", f"RoPE head_dim={p['head_dim']}, base={p['base']:g}")
    if argument.isdigit():
        raise ValueError(
            _("{where}: rope takes a preset name after the colon, e.g. rope:{example}").format(
                where=where, example=EXAMPLE_PRESET
            )
        )
    preset = preset_of(where, argument, *PRESET_SCHEMES)
    scaling = preset.rope_scaling or {}
    extra = f" ({scaling['rope_type']} ×{scaling['factor']:g})" if scaling.get("factor") else ""
    return CompareItem("rope", f"RoPE {preset.name}{extra}", preset)


def frequencies(item: CompareItem, p: Mapping[str, Any]) -> tuple[torch.Tensor, float, int]:
    """(inv_freq, attention_factor, head_dim) of a RoPE item: the page's head_dim and base, or the preset's."""
    device, work = work_device_dtype(p)
    if item.preset is None:
        inv, factor = rope.inv_freq(p["head_dim"], p["base"], device=device, dtype=work)
        return inv, factor, p["head_dim"]
    inputs = presets.rope_inputs(item.preset, seq_len=p["seq_len"])
    inv, factor = rope.inv_freq(**inputs, device=device, dtype=work)
    return inv, factor, item.preset.rope_head_dim


def _curve(item: CompareItem, distances: torch.Tensor, p: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
    inv, factor, head_dim = frequencies(item, p)
    ones = torch.ones(head_dim, device=inv.device, dtype=inv.dtype)
    scores = rope.relative_scores(
        ones, ones, distances.to(inv.device), inv, key_positions=[0], attention_factor=factor
    )  # (K, 1)
    return distances, scores[:, 0]


def _table(item: CompareItem, p: Mapping[str, Any], rows: int) -> tuple[torch.Tensor, float]:
    """R(p)·1 for the first ``rows`` positions: the all-ones vector turned to each position."""
    inv, factor, head_dim = frequencies(item, p)
    ones = torch.ones(rows, head_dim, device=inv.device, dtype=inv.dtype)
    table = rope.apply(ones, torch.arange(rows, device=inv.device), inv, attention_factor=factor)
    return table, float(rope.wavelengths(inv).max())


def _note(item: CompareItem) -> str:
    return _(
        "RoPE: q = k = all-ones over head_dim, so the curve is Σ_i cos(kθ_i)/(d/2) (plus a constant from channels "
        "that do not rotate); angles in float64"
    )


register_compare_curve(
    CompareCurve(
        "rope",
        lambda: f"`rope[:preset]` ({', '.join(preset_keys(*PRESET_SCHEMES))})",
        _parse,
        _curve,
        table=_table,
        inv_freq=frequencies,
        note=_note,
    )
)
