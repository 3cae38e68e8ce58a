"""ALiBi in Compare: ``alibi[:preset or heads][@head]``; its curve is exp(-m·k), the attention to the key k tokens
back over the attention to the current token, equal content logits, one head of slope m."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from posenc.drawing.common_params import MAX_HEADS
from posenc.figures.compare.items import (
    CompareCurve,
    CompareItem,
    parse_integer,
    preset_keys,
    preset_of,
    register_compare_curve,
    work_device_dtype,
)
from posenc.i18n import _
from posenc_core.encodings import alibi

DEFAULT_HEADS = 8  # plain "alibi": Press et al.'s 8-head example


def item_slopes(item: CompareItem) -> torch.Tensor:
    """The ALiBi slopes of an item (MPT's when its preset sets alibi_bias_max), float64 on the CPU."""
    if item.preset is not None and item.preset.alibi_bias_max is not None:
        return alibi.mpt_slopes(item.size, item.preset.alibi_bias_max, device="cpu", dtype=torch.float64)
    return alibi.slopes(item.size, device="cpu", dtype=torch.float64)


def _parse(where: str, argument: str, head: str | None, p: Mapping[str, Any]) -> CompareItem:
    preset = preset_of(where, argument, "alibi") if argument and not argument.isdigit() else None
    if preset is not None:
        n_heads = preset.n_heads
    else:
        n_heads = parse_integer(where, argument, "heads", 1, MAX_HEADS) if argument else DEFAULT_HEADS
    slopes = item_slopes(CompareItem("alibi", "", preset, n_heads))
    chosen = parse_integer(where, head, "@head", 0, n_heads - 1) if head is not None else int(slopes.argmin())
    name = preset.name if preset else _("{count} heads").format(count=n_heads)
    label = _("ALiBi {name}, head {head} (m={slope:.4g})").format(name=name, head=chosen, slope=float(slopes[chosen]))
    return CompareItem("alibi", label, preset, n_heads, chosen)


def _curve(item: CompareItem, distances: torch.Tensor, p: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
    device, work = work_device_dtype(p)
    slope = item_slopes(item)[item.head : item.head + 1]
    distances = distances.to(device)
    weights = alibi.attention_to_past(slope, int(distances.max()), distances=distances, device=device, dtype=work)
    return distances, weights[0]


def _note(item: CompareItem) -> str:
    return _(
        "ALiBi: exp(−m·k) = attention to the key k tokens back ÷ attention to the current token, equal content logits"
    )


register_compare_curve(
    CompareCurve(
        "alibi",
        lambda: _("`alibi[:preset or heads][@head]` ({presets}; head 0-based, default the flattest)").format(
            presets=", ".join(preset_keys("alibi"))
        ),
        _parse,
        _curve,
        takes_head=True,
        note=_note,
    )
)
