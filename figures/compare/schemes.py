"""The ``schemes`` parameter of the Compare page: its syntax, parsing and the parsed :class:`Scheme`.

Items: ``sinusoidal[:d_model]``, ``learned[:rows | table]``, ``rope[:preset]``, ``alibi[:preset|heads][@head]``,
``t5[:preset]``; 2 to 4 of them, comma-separated. Errors name the bad item and what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

from figures.common_params import MAX_D_MODEL, MAX_HEADS
from posenc_core import alibi, learned, presets
from posenc_core.presets import ModelPreset

KINDS = ("sinusoidal", "learned", "rope", "alibi", "t5")


EXAMPLE = "sinusoidal,rope:llama-3.1-8b,alibi:bloom-176b,t5:t5-base"


LEARNED_ROWS = 1024  # rows of plain "learned": GPT-2's table length (fewer when seq_len is shorter)


MAX_LEARNED_ROWS = 2048  # the Gram matrix of the offset profile stays at most 2048 x 2048


LEARNED_ELEMENTS = 2**21  # most values of a random learned table here (256 rows at d_model 8192): drawn in ~0.1 s


ALIBI_HEADS = 8  # plain "alibi": Press et al.'s 8-head example


def syntax_help() -> str:
    """What ``schemes`` accepts, with the preset keys of each kind (for the page's caption)."""
    keys = {kind: [k for k, v in presets.PRESETS.items() if v.scheme in kinds] for kind, kinds in _PRESET_KINDS.items()}
    tables = ", ".join(name.lower() for name in learned.builtin_tables()) or "none installed"
    return (
        f"`sinusoidal[:d_model]` · `learned[:rows]` or `learned:<table>` ({tables}) · `rope[:preset]` "
        f"({', '.join(keys['rope'])}) · `alibi[:preset or heads][@head]` ({', '.join(keys['alibi'])}; head "
        f"0-based, default the flattest) · `t5[:preset]` ({', '.join(keys['t5'])})"
    )


_PRESET_KINDS = {"rope": ("rope", "mrope"), "alibi": ("alibi",), "t5": ("t5",)}


_EXAMPLE_PRESET = {"rope": "llama-3.1-8b", "t5": "t5-base"}


@dataclass(frozen=True)
class Scheme:
    """One parsed item of ``schemes``. ``size``: d_model (sinusoidal), rows (learned), heads (alibi), num_buckets
    (t5)."""

    kind: str
    label: str
    preset: ModelPreset | None = None
    size: int = 0
    head: int = 0  # alibi
    table: str | None = None  # learned: a built-in trained table
    max_distance: int = 0  # t5


def parse_schemes(text: str, p: Mapping[str, Any]) -> list[Scheme]:
    """The items of ``text`` (2 to 4), or a ValueError naming the bad item and what is allowed."""
    items = [item.strip() for item in str(text).split(",") if item.strip()]
    if not 2 <= len(items) <= 4:
        raise ValueError(f"schemes must list 2 to 4 items separated by commas, e.g. {EXAMPLE} (got {len(items)})")
    schemes = [_parse_item(f"schemes item {i} ({item!r})", item.lower(), p) for i, item in enumerate(items, 1)]
    labels = [s.label for s in schemes]
    if len(set(labels)) < len(labels):
        raise ValueError(f"schemes lists the same scheme twice ({', '.join(labels)})")
    return schemes


def _parse_item(where: str, item: str, p: Mapping[str, Any]) -> Scheme:
    body, at, head = item.partition("@")
    kind, _, arg = (part.strip() for part in body.partition(":"))
    if kind not in KINDS:
        raise ValueError(f"{where}: the scheme must be one of {', '.join(KINDS)}")
    if at and kind != "alibi":
        raise ValueError(f"{where}: only alibi takes @head")
    if kind == "sinusoidal":
        d_model = _integer(where, arg, "d_model", 2, MAX_D_MODEL) if arg else p["d_model"]
        return Scheme(kind, f"sinusoidal d_model={d_model}", size=d_model)
    if kind == "learned":
        return _learned(where, arg, p)
    preset = _preset(where, arg, *_PRESET_KINDS[kind]) if arg and not arg.isdigit() else None
    if arg and preset is None and kind != "alibi":
        raise ValueError(f"{where}: {kind} takes a preset name after the colon, e.g. {kind}:{_EXAMPLE_PRESET[kind]}")
    if kind == "rope":
        if preset is None:
            return Scheme(kind, f"RoPE head_dim={p['head_dim']}, base={p['base']:g}")
        scaling = preset.rope_scaling or {}
        extra = f" ({scaling['rope_type']} ×{scaling['factor']:g})" if scaling.get("factor") else ""
        return Scheme(kind, f"RoPE {preset.name}{extra}", preset)
    if kind == "t5":
        buckets, reach = (preset.t5_num_buckets, preset.t5_max_distance) if preset else (32, 128)
        name = f"T5 {preset.name}" if preset else "T5"
        return Scheme(kind, f"{name} ({buckets} buckets, max_distance {reach})", preset, buckets, max_distance=reach)
    n_heads = preset.n_heads if preset else (_integer(where, arg, "heads", 1, MAX_HEADS) if arg else ALIBI_HEADS)
    slopes = scheme_slopes(Scheme(kind, "", preset, n_heads))
    chosen = _integer(where, head, "@head", 0, n_heads - 1) if at else int(slopes.argmin())
    name = preset.name if preset else f"{n_heads} heads"
    return Scheme(kind, f"ALiBi {name}, head {chosen} (m={float(slopes[chosen]):.4g})", preset, n_heads, chosen)


def _learned(where: str, arg: str, p: Mapping[str, Any]) -> Scheme:
    builtins = {name.lower(): name for name in learned.builtin_tables()}
    if arg in builtins:
        return Scheme("learned", f"learned {builtins[arg]} (trained)", table=builtins[arg])
    most = min(MAX_LEARNED_ROWS, LEARNED_ELEMENTS // p["d_model"])
    if arg and not arg.isdigit():
        known = ", ".join(builtins.values()) or "none installed"
        raise ValueError(f"{where}: learned takes a row count (2 to {most:,}) or a built-in table ({known})")
    rows = _integer(where, arg, "rows", 2, most) if arg else min(p["seq_len"], LEARNED_ROWS, most)
    return Scheme("learned", f"learned random N(0, 0.02²) {rows:,}×{p['d_model']}", size=max(rows, 2))


def _integer(where: str, text: str, name: str, low: int, high: int) -> int:
    if not text.strip().isdigit() or not low <= int(text) <= high:
        raise ValueError(f"{where}: {name} must be a whole number from {low} to {high:,} (got {text!r})")
    return int(text)


def _preset(where: str, key: str, *schemes: str) -> ModelPreset:
    matching = [k for k, preset in presets.PRESETS.items() if preset.scheme in schemes]
    if key not in matching:
        raise ValueError(f"{where}: {key!r} is not a {schemes[0]} preset; those are {', '.join(matching)}")
    return presets.PRESETS[key]


def scheme_slopes(s: Scheme) -> torch.Tensor:
    """The ALiBi slopes of an alibi scheme (MPT's when its preset sets alibi_bias_max), float64 on the CPU."""
    if s.preset is not None and s.preset.alibi_bias_max is not None:
        return alibi.mpt_slopes(s.size, s.preset.alibi_bias_max, device="cpu", dtype=torch.float64)
    return alibi.slopes(s.size, device="cpu", dtype=torch.float64)
