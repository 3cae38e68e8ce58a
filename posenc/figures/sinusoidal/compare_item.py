"""Sinusoidal PE in Compare: ``sinusoidal[:d_model]``, the mean of PE(p)·PE(p+k) over p (Σ_i cos(kω_i))."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from posenc.drawing.common_params import MAX_D_MODEL
from posenc.figures.compare.items import (
    CompareCurve,
    CompareItem,
    parse_integer,
    register_compare_curve,
    work_device_dtype,
)
from posenc.figures.compare.wording import SINUSOIDAL_LABEL
from posenc.i18n import _
from posenc_core.encodings import sinusoidal


def _parse(where: str, argument: str, head: str | None, p: Mapping[str, Any]) -> CompareItem:
    d_model = parse_integer(where, argument, "d_model", 2, MAX_D_MODEL) if argument else p["d_model"]
    return CompareItem("sinusoidal", _(SINUSOIDAL_LABEL).format(d_model=d_model), size=d_model)


def _curve(item: CompareItem, distances: torch.Tensor, p: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
    device, work = work_device_dtype(p)
    return distances, sinusoidal.relative_similarity(distances.to(device), item.size, device=device, dtype=work)


def _table(item: CompareItem, p: Mapping[str, Any], rows: int) -> tuple[torch.Tensor, float]:
    device, work = work_device_dtype(p)
    longest = float(sinusoidal.wavelengths(item.size, device=device, dtype=work).max())
    return sinusoidal.encoding(rows, item.size, device=device, dtype=work), longest


register_compare_curve(CompareCurve("sinusoidal", "`sinusoidal[:d_model]`", _parse, _curve, dash="dash", table=_table))
