"""Display-resolution views: compute only what a screen can show.

A screen shows about 1000 x 1000 cells and a few thousand points per curve, so views of long contexts
are either a *window* (every position in ``start .. start + size``) or an *overview* (evenly spaced exact
positions over the whole range, labelled as sampled). Where sampling would alias a fast wave, an
*envelope* (min and max of every value in each pixel column) stands in for the samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from posenc_core._checks import check_int

MAX_CELLS_PER_AXIS = 512
"""Most rows or columns of a heatmap sent to the browser (512 x 512 float32 cells is about 1.7 MB of
figure JSON, which keeps a page under its 3 MB budget)."""
MAX_CURVE_POINTS = 4096
"""Most points of one curve sent to the browser."""


def sampled_positions(length: int, max_points: int = MAX_CELLS_PER_AXIS, *, start: int = 0) -> torch.Tensor:
    """Evenly spaced exact integer positions covering ``start .. length - 1``, first and last included.

    Returns every position when they fit in ``max_points``; otherwise ``round(linspace(start, length-1, n))``.
    Shape (n,), int64, strictly increasing, n <= max_points.
    """
    length = check_int("length", length, minimum=1)
    max_points = check_int("max_points", max_points, minimum=2)
    start = check_int("start", start, minimum=0, maximum=length - 1)
    count = length - start
    if count <= max_points:
        return torch.arange(start, length, dtype=torch.int64)
    spaced = torch.linspace(start, length - 1, max_points, dtype=torch.float64).round().to(torch.int64)
    return torch.unique_consecutive(spaced)


def strided_positions(length: int, max_points: int = MAX_CELLS_PER_AXIS, *, start: int = 0) -> torch.Tensor:
    """Every s-th position ``start, start + s, …`` below ``length``, s = ceil((length - start) / max_points).

    A constant stride, unlike :func:`sampled_positions`: a heatmap over these positions is an evenly spaced grid
    (which the browser draws as one scaled image), and each diagonal of a position x position matrix holds a single
    distance. The last position is within s of ``length - 1``. Shape (n,), int64, n <= max_points.
    """
    length = check_int("length", length, minimum=1)
    max_points = check_int("max_points", max_points, minimum=1)
    start = check_int("start", start, minimum=0, maximum=length - 1)
    stride = math.ceil((length - start) / max_points)
    return torch.arange(start, length, stride, dtype=torch.int64)


def window_positions(start: int, size: int, length: int) -> torch.Tensor:
    """Every position of the window ``start .. min(start + size, length) - 1``. Shape (n,), int64."""
    length = check_int("length", length, minimum=1)
    start = check_int("start", start, minimum=0, maximum=length - 1)
    size = check_int("size", size, minimum=1)
    return torch.arange(start, min(start + size, length), dtype=torch.int64)


def is_sampled(positions: torch.Tensor) -> bool:
    """True when ``positions`` skip some integers (an overview rather than a full window)."""
    return positions.numel() > 1 and bool((positions.diff() > 1).any())


def sampling_stride(positions: torch.Tensor) -> float:
    """The largest gap between consecutive positions (1.0 for a full window)."""
    return float(positions.diff().max()) if positions.numel() > 1 else 1.0


def aliases(stride: float, wavelength: float) -> bool:
    """Sampling every ``stride`` positions aliases a wave of this wavelength (Nyquist: stride > λ/2)."""
    return stride > wavelength / 2.0


@dataclass(frozen=True)
class Envelope:
    """Min and max of a curve over each pixel column. All tensors have shape (n_columns,)."""

    first: torch.Tensor  # first position of each column
    last: torch.Tensor  # last position of each column
    low: torch.Tensor
    high: torch.Tensor


def envelope(values: torch.Tensor, n_columns: int = MAX_CURVE_POINTS // 2, *, start: int = 0) -> Envelope:
    """Min/max of ``values`` (N,) in ``n_columns`` contiguous columns; position of values[k] is start + k.

    Every value lies in [low, high] of its column, so fast waves drawn over long ranges keep their true extent
    instead of the moire pattern plain sampling gives.
    """
    if values.dim() != 1 or values.numel() == 0:
        raise ValueError(f"values must be a non-empty 1-D tensor (got shape {tuple(values.shape)})")
    n_columns = check_int("n_columns", n_columns, minimum=1)
    total = values.numel()
    n_columns = min(n_columns, total)
    per_column = math.ceil(total / n_columns)
    n_columns = math.ceil(total / per_column)
    padded = torch.nn.functional.pad(values, (0, n_columns * per_column - total), value=float("nan"))
    columns = padded.view(n_columns, per_column)
    first = start + torch.arange(n_columns, dtype=torch.int64) * per_column
    last = torch.clamp(first + per_column - 1, max=start + total - 1)
    return Envelope(
        first=first,
        last=last,
        low=torch.nan_to_num(columns, nan=float("inf")).amin(dim=1),
        high=torch.nan_to_num(columns, nan=float("-inf")).amax(dim=1),
    )
