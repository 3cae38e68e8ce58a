"""Argument validation shared by the core: every public function rejects bad input with a
``ValueError`` that names the argument, shows the value and says what is allowed."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import torch


def check_int(name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise ``ValueError`` naming ``name`` and the allowed range."""
    if not _is_integral(value):
        raise ValueError(f"{name} must be an integer{_range_text(minimum, maximum)} (got {shown(value)})")
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be an integer{_range_text(minimum, maximum)} (got {shown(value)})")
    return value


def check_float(
    name: str,
    value: Any,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    greater_than: float | None = None,
) -> float:
    """Return ``value`` as a finite float, or raise ``ValueError`` naming ``name`` and the allowed range."""
    allowed = _range_text(minimum, maximum, greater_than)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a finite number{allowed} (got {shown(value)})")
    if isinstance(value, numbers.Integral) and abs(int(value)).bit_length() > 1000:  # float() would overflow
        raise ValueError(f"{name} must be a finite number{allowed} (got {shown(value)})")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number{allowed} (got {value})")
    if (
        (minimum is not None and value < minimum)
        or (maximum is not None and value > maximum)
        or (greater_than is not None and value <= greater_than)
    ):
        raise ValueError(f"{name} must be a finite number{allowed} (got {value:g})")
    return value


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ``ValueError`` listing them."""
    choices = tuple(choices)
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))} (got {shown(value)})")
    return value


def check_float_dtype(dtype: Any) -> torch.dtype:
    """Positional math is done in float32 or float64 (half precision loses whole radians at 32k positions)."""
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64 (got {dtype!r})")
    return dtype


def check_vector(
    name: str,
    values: Any,
    *,
    device: torch.device,
    dtype: torch.dtype | None = None,
    integer: bool = False,
    minimum: int | None = None,
    maximum: int | None = None,
) -> torch.Tensor:
    """``values`` as a 1-D tensor on ``device`` (int64 if ``integer``), or a ValueError naming ``name``."""
    kind = "integers" if integer else "finite numbers"
    try:
        vector = torch.as_tensor(values)
    except (TypeError, ValueError, RuntimeError) as error:
        raise ValueError(f"{name} must be a 1-D sequence of {kind} (got {type(values).__name__})") from error
    if vector.dim() != 1:
        raise ValueError(f"{name} must be 1-D (got shape {tuple(vector.shape)})")
    if vector.numel() == 0:
        return torch.empty(0, device=device, dtype=torch.int64 if integer else dtype)
    if vector.dtype == torch.bool or vector.is_complex() or (integer and vector.is_floating_point()):
        raise ValueError(f"{name} must hold {kind} (got dtype {vector.dtype})")
    if vector.is_floating_point() and not bool(torch.isfinite(vector).all()):
        raise ValueError(f"{name} must hold finite numbers (got NaN or inf)")
    low, high = vector.min().item(), vector.max().item()
    if (minimum is not None and low < minimum) or (maximum is not None and high > maximum):
        allowed = " and ".join(f"{op} {bound}" for op, bound in ((">=", minimum), ("<=", maximum)) if bound is not None)
        raise ValueError(f"{name} must all be {allowed} (got values from {low} to {high})")
    return vector.to(device=device, dtype=torch.int64 if integer else dtype)


def check_indices(name: str, values: Any, length: int, device: torch.device) -> torch.Tensor:
    """``values`` (default: all of 0..length-1) as a 1-D int64 tensor on ``device``, each in 0..length-1."""
    if values is None:
        return torch.arange(length, dtype=torch.int64, device=device)
    if isinstance(values, torch.Tensor):
        if values.is_floating_point() or values.is_complex() or values.dtype == torch.bool:
            raise ValueError(f"{name} must hold integers in 0..{length - 1} (got dtype {values.dtype})")
        index = values.to(device=device, dtype=torch.int64).reshape(-1)
    else:
        checked = [check_int(name, value, minimum=0, maximum=length - 1) for value in values]
        index = torch.tensor(checked, dtype=torch.int64, device=device)
    if index.numel() and (bool((index < 0).any()) or bool((index >= length).any())):
        bad = index[(index < 0) | (index >= length)][0].item()
        raise ValueError(f"{name} must hold integers in 0..{length - 1} (got {bad})")
    return index


def shown(value: Any, limit: int = 60) -> str:
    """``value`` as a message shows it: its repr, shortened to about ``limit`` characters (a whole number with
    more digits is named by its digit count), so a hostile value cannot make a message megabytes long."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and abs(int(value)).bit_length() > 64:
        sign = "-" if value < 0 else ""
        digits = len(str(abs(int(value)))) if abs(int(value)).bit_length() < 12000 else "more than 3600"
        return f"{sign}a {digits}-digit number"
    if isinstance(value, list | tuple | dict | str | bytes) and len(value) > limit:  # no repr of 2M items
        head = dict(list(value.items())[:limit]) if isinstance(value, dict) else value[:limit]
        return f"{repr(head)[:limit]}… ({len(value):,} {'characters' if isinstance(value, str | bytes) else 'items'})"
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}…"


def _is_integral(value: Any) -> bool:
    """Ints (Python, numpy) and floats holding a whole number count as integers; bools do not."""
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Integral):
        return True
    return isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer()


def _range_text(minimum=None, maximum=None, greater_than=None) -> str:
    parts = []
    for op, bound in ((">", greater_than), (">=", minimum), ("<=", maximum)):
        if bound is not None:  # whole numbers in full (1,073,741,824), others short (1e+18)
            parts.append(f"{op} {bound:,}" if isinstance(bound, int) and abs(bound) >= 10**6 else f"{op} {bound:g}")
    return f" {' and '.join(parts)}" if parts else ""
