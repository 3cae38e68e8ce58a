"""What the Compare page compares: items of the ``schemes`` parameter, and the registry of Compare curves.

Each family package says how its scheme appears in Compare, in its own ``compare_item`` module: the syntax of
its item, how an item is parsed, its curve against the relative distance k, and (optionally) the table its
distance metrics are measured on and its RoPE frequencies (for the decay bound). The Compare figures and the
page's help read this registry, so a new scheme appears in Compare by registering its curve; items are listed
in the order of :data:`posenc_core.schemes.SCHEMES`.

Items: ``kind[:argument][@head]``; 2 to 4 of them, comma-separated. Errors name the bad item and what is allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from posenc.i18n import _
from posenc_core.device import resolve_device
from posenc_core.models import presets
from posenc_core.models.presets import ModelPreset
from posenc_core.schemes import SCHEMES

EXAMPLE = "sinusoidal,rope:llama-3.1-8b,alibi:bloom-176b,t5:t5-base"


@dataclass(frozen=True)
class CompareItem:
    """One parsed item of ``schemes``. ``size``: d_model (sinusoidal), rows (learned), heads (alibi), num_buckets
    (t5)."""

    kind: str
    label: str
    preset: ModelPreset | None = None
    size: int = 0
    head: int = 0  # alibi
    table: str | None = None  # learned: a built-in trained table
    max_distance: int = 0  # t5
    value: float = 0.0  # a scheme's own real-valued setting (e.g. a rate)


Parser = Callable[[str, str, str | None, Mapping[str, Any]], CompareItem]  # (where, argument, @head, values) -> item
Curve = Callable[[CompareItem, torch.Tensor, Mapping[str, Any]], tuple[torch.Tensor, torch.Tensor]]


@dataclass(frozen=True)
class CompareCurve:
    """How scheme ``kind`` appears in Compare.

    ``curve(item, distances, p)`` returns (distances kept, values there). With ``panel="similarity"`` the values
    are the similarity at each distance, and ``distances`` start with 0 (the value there normalises the curve);
    with ``panel="signals"`` they are the number of distinct position signals among the distances 0..k.
    ``table(item, p, rows)`` gives (the first rows of the scheme's table, its longest wavelength or NaN) for the
    distance metrics; ``inv_freq(item, p)`` gives (inv_freq, attention_factor, head_dim) for the decay bound.
    ``takes_head``: the item accepts ``@head``. ``signals(item, p)``: how many positions the scheme tells apart
    over 0..L-1 (default L). ``note(item)``: a sentence under the figure when the item is drawn (or "").
    """

    kind: str
    syntax: str | Callable[[], str]  # a callable when it lists what is installed now
    parse: Parser
    curve: Curve
    panel: str = "similarity"
    dash: str = "solid"
    table: Callable[[CompareItem, Mapping[str, Any], int], tuple[torch.Tensor, float]] | None = None
    inv_freq: Callable[[CompareItem, Mapping[str, Any]], tuple[torch.Tensor, float, int]] | None = None
    takes_head: bool = False
    signals: Callable[[CompareItem, Mapping[str, Any]], float] | None = None
    note: Callable[[CompareItem], str] | None = None


COMPARE_CURVES: dict[str, CompareCurve] = {}


def register_compare_curve(curve: CompareCurve) -> CompareCurve:
    """Add ``curve`` to :data:`COMPARE_CURVES`; its kind must be a registered scheme (posenc_core.schemes)."""
    if curve.kind not in SCHEMES:
        raise ValueError(f"compare curve {curve.kind!r} is not a registered scheme ({', '.join(SCHEMES)})")
    if curve.panel not in ("similarity", "signals"):
        raise ValueError(f"panel must be 'similarity' or 'signals' (got {curve.panel!r})")
    COMPARE_CURVES[curve.kind] = curve
    return curve


def kinds() -> list[str]:
    """The kinds Compare accepts, in the order of the scheme registry."""
    return [key for key in SCHEMES if key in COMPARE_CURVES]


def syntax_help() -> str:
    """What ``schemes`` accepts, item by item (for the page's caption)."""
    return " · ".join(_text(COMPARE_CURVES[kind].syntax) for kind in kinds())


def parse_schemes(text: str, p: Mapping[str, Any]) -> list[CompareItem]:
    """The items of ``text`` (2 to 4), or a ValueError naming the bad item and what is allowed."""
    items = [item.strip() for item in str(text).split(",") if item.strip()]
    if not 2 <= len(items) <= 4:
        raise ValueError(
            _("schemes must list 2 to 4 items separated by commas, e.g. {example} (got {count})").format(
                example=EXAMPLE, count=len(items)
            )
        )
    parsed = [
        _parse_item(_("schemes item {number} ({item})").format(number=i, item=repr(item)), item.lower(), p)
        for i, item in enumerate(items, 1)
    ]
    labels = [item.label for item in parsed]
    if len(set(labels)) < len(labels):
        raise ValueError(_("schemes lists the same scheme twice ({labels})").format(labels=", ".join(labels)))
    return parsed


def _parse_item(where: str, item: str, p: Mapping[str, Any]) -> CompareItem:
    body, at, head = item.partition("@")
    kind, _colon, argument = (part.strip() for part in body.partition(":"))
    if kind not in COMPARE_CURVES:
        raise ValueError(_("{where}: the scheme must be one of {kinds}").format(where=where, kinds=", ".join(kinds())))
    curve = COMPARE_CURVES[kind]
    if at and not curve.takes_head:
        takers = ", ".join(k for k in kinds() if COMPARE_CURVES[k].takes_head)
        raise ValueError(_("{where}: only {kinds} takes @head").format(where=where, kinds=takers))
    return curve.parse(where, argument, head if at else None, p)


def parse_integer(where: str, text: str, name: str, low: int, high: int) -> int:
    """``text`` as a whole number in [low, high], or a ValueError naming ``name`` and the range."""
    if not text.strip().isdigit() or not low <= int(text) <= high:
        raise ValueError(
            _("{where}: {name} must be a whole number from {low} to {high:,} (got {text})").format(
                where=where, name=name, low=low, high=high, text=repr(text)
            )
        )
    return int(text)


def preset_of(where: str, key: str, *schemes: str) -> ModelPreset:
    """The preset ``key`` if its scheme is one of ``schemes``, else a ValueError listing those presets."""
    matching = preset_keys(*schemes)
    if key not in matching:
        raise ValueError(
            _("{where}: {key} is not a {scheme} preset; those are {presets}").format(
                where=where, key=repr(key), scheme=schemes[0], presets=", ".join(matching)
            )
        )
    return presets.PRESETS[key]


def preset_keys(*schemes: str) -> list[str]:
    """The keys of the presets whose scheme is one of ``schemes``."""
    return [key for key, preset in presets.PRESETS.items() if preset.scheme in schemes]


def work_device_dtype(p: Mapping[str, Any]) -> tuple[torch.device, torch.dtype]:
    """The device of the page's ``device`` value and float64 there (float32 on mps, which has no float64)."""
    device = resolve_device(p["device"])
    return device, torch.float32 if device.type == "mps" else torch.float64


def _text(syntax: str | Callable[[], str]) -> str:
    return syntax() if callable(syntax) else syntax
