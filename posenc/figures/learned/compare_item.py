"""A learned table in Compare: ``learned[:rows]`` (random) or ``learned:<table>`` (built-in, trained); its curve is
the mean of T[p]·T[p+k] over p, for every k below its length."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import torch

from posenc.figures.compare.items import (
    CompareCurve,
    CompareItem,
    parse_integer,
    register_compare_curve,
    work_device_dtype,
)
from posenc.i18n import _
from posenc_core.encodings import learned, metrics

LEARNED_ROWS = 1024  # rows of plain "learned": GPT-2's table length (fewer when seq_len is shorter)
MAX_LEARNED_ROWS = 2048  # a learned item's table (and its offset profile) stays at most 2048 rows
LEARNED_ELEMENTS = 2**21  # most values of a random learned table here (256 rows at d_model 8192): drawn in ~0.1 s


@lru_cache(maxsize=4)
def _table_rows(rows: int, d_model: int, builtin: str | None) -> torch.Tensor:
    """A learned table on the CPU (shared read-only): a built-in trained one, or a random N(0, 0.02²) one."""
    if builtin is not None:
        return learned.load_builtin(builtin, device="cpu")
    return learned.random_table(rows, d_model, device="cpu")


@lru_cache(maxsize=4)
def _profile(rows: int, d_model: int, builtin: str | None) -> torch.Tensor:
    """mean over p of T[p]·T[p+k] for every k < rows (the core's offset profile), float64."""
    return metrics.offset_profile(_table_rows(rows, d_model, builtin).to(torch.float64))


def _parse(where: str, argument: str, head: str | None, p: Mapping[str, Any]) -> CompareItem:
    builtins = {name.lower(): name for name in learned.builtin_tables()}
    if argument in builtins:
        label = _("learned {table} (trained)").format(table=builtins[argument])
        return CompareItem("learned", label, table=builtins[argument])
    most = min(MAX_LEARNED_ROWS, LEARNED_ELEMENTS // p["d_model"])
    if argument and not argument.isdigit():
        known = ", ".join(builtins.values()) or _("none installed")
        raise ValueError(
            _("{where}: learned takes a row count (2 to {most:,}) or a built-in table ({known})").format(
                where=where, most=most, known=known
            )
        )
    rows = parse_integer(where, argument, "rows", 2, most) if argument else min(p["seq_len"], LEARNED_ROWS, most)
    label = _("learned random N(0, 0.02²) {rows:,}×{d_model}").format(rows=rows, d_model=p["d_model"])
    return CompareItem("learned", label, size=max(rows, 2))


def _curve(item: CompareItem, distances: torch.Tensor, p: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
    profile = _profile(item.size, p["d_model"], item.table)  # (rows,)
    kept = distances[distances < profile.numel()].cpu()  # a table has no row past its length
    return kept, profile[kept]


def _table(item: CompareItem, p: Mapping[str, Any], rows: int) -> tuple[torch.Tensor, float]:
    device, _ = work_device_dtype(p)
    return _table_rows(item.size, p["d_model"], item.table)[: p["seq_len"]].to(device), math.nan  # every row to L


def _signals(item: CompareItem, p: Mapping[str, Any]) -> float:
    return float(min(p["seq_len"], _table_rows(item.size, p["d_model"], item.table).shape[0]))


def _note(item: CompareItem) -> str:
    if item.table is not None:
        return ""
    return _(
        "learned, random: an untrained table; its rows are unrelated, so the similarity drops to noise at k = 1; "
        "a table has no row past its length, so its curve stops there"
    )


def _syntax() -> str:
    tables = ", ".join(name.lower() for name in learned.builtin_tables()) or _("none installed")
    return _("`learned[:rows]` or `learned:<table>` ({tables})").format(tables=tables)


register_compare_curve(
    CompareCurve("learned", _syntax, _parse, _curve, dash="dash", table=_table, signals=_signals, note=_note)
)
