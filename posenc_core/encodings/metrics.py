"""Similarity and distance statistics of any (L, d) position table: sinusoidal, learned, RoPE-rotated.

sim(p, q) = table[p]·table[q] ("dot") or the same over unit rows ("cosine"; an all-zero row has cosine 0
with everything). A table that encodes relative position well has sim(p, p+k) depending on k only: its
offset profile has a small std over p. Sums are accumulated in float64 (float32 on mps, which has no float64);
results come back in the table's dtype on its device.

Ref: Vaswani et al. 2017 §3.5 (PE(p+k) is a linear function of PE(p)); Wang & Chen 2020, arXiv 2010.04903
("What do position embeddings learn?", the offset-similarity and adjacent-distance views of learned tables).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from posenc_core._checks import check_choice, check_int, check_vector
from posenc_core.device import work_dtype

KINDS = ("dot", "cosine")
_BLOCK_ELEMENTS = 2**22  # entries of one block of products in offset_similarity (32 MiB in float64)


def similarity_matrix(table: Any, *, kind: str = "dot", rows: Any = None, cols: Any = None) -> torch.Tensor:
    """S[r, c] = sim(table[rows[r]], table[cols[c]]). Shape (R, C) (all rows/cols by default: (L, L))."""
    table = _as_table(table)
    kind = check_choice("kind", kind, KINDS)
    x = _unit_rows(table) if kind == "cosine" else table
    left = x if rows is None else x[_indices("rows", rows, table)]
    right = x if cols is None else x[_indices("cols", cols, table)]
    return left @ right.T


def offset_similarity(
    table: Any, offsets: Any = None, *, kind: str = "dot"
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """For each offset k: mean and std over p of sim(table[p], table[p+k]), p = 0 .. L-1-k.

    Returns (offsets (K,) int64, mean (K,), std (K,)); offsets default to 0 .. L-1; std is the population std
    (0 for k = L-1, which has one pair). No loop over p or k: rows are taken in blocks of B positions, all
    their products with partners p+k are formed at once, and each block's (count, mean, M2) is merged into the
    running totals (Chan et al.'s parallel variance, exact up to rounding). When the offsets fill most of their
    range one matmul per block gives table[p]·table[q] for q in p+kmin .. p+B+kmax and the wanted diagonals are
    gathered; for a few scattered offsets the partner rows are gathered and multiplied directly.
    """
    table = _as_table(table)
    kind = check_choice("kind", kind, KINDS)
    length, width = table.shape
    device, work = table.device, work_dtype(table.device)
    if offsets is None:
        ks = torch.arange(length, device=device)
    else:
        ks = check_vector("offsets", offsets, device=device, integer=True, minimum=0, maximum=length - 1)
    x = table.to(work)
    x = _unit_rows(x) if kind == "cosine" else x
    count, mean, m2 = (torch.zeros(ks.numel(), device=device, dtype=work) for _ in range(3))
    if ks.numel() == 0:
        return ks, mean.to(table.dtype), m2.to(table.dtype)
    k_min, k_max = int(ks.min()), int(ks.max())
    span = k_max - k_min + 1
    dense = ks.numel() >= 64 and span <= 4 * ks.numel()
    if dense:  # block * (block + span) <= budget, and at most 8x more products than needed
        block = (math.isqrt(span * span + 4 * _BLOCK_ELEMENTS) - span) // 2
        block = max(1, min(block, 8 * ks.numel() - span))
    else:
        block = max(1, _BLOCK_ELEMENTS // (ks.numel() * width))
    for start in range(0, length - k_min, block):
        p = torch.arange(start, min(start + block, length - k_min), device=device)
        q = p[:, None] + ks  # (B, K) partner rows
        valid = q < length
        if dense:
            low, high = start + k_min, min(length, int(p[-1]) + k_max + 1)
            products = x[p] @ x[low:high].T  # (B, high - low)
            values = products.gather(1, (q - low).clamp(max=high - low - 1))
        else:
            values = torch.einsum("bd,bkd->bk", x[p], x[q.clamp(max=length - 1)])
        n_block = valid.sum(0)
        mean_block = torch.where(valid, values, 0).sum(0) / n_block.clamp(min=1)
        m2_block = torch.where(valid, (values - mean_block) ** 2, 0).sum(0)
        total = count + n_block
        delta = mean_block - mean
        mean = mean + delta * n_block / total.clamp(min=1)
        m2 = m2 + m2_block + delta**2 * count * n_block / total.clamp(min=1)
        count = total
    return ks, mean.to(table.dtype), (m2 / count).sqrt().to(table.dtype)


def offset_profile(table: Any, *, kind: str = "dot") -> torch.Tensor:
    """mean over p of sim(table[p], table[p+k]) for every offset k = 0 .. L-1 at once. Shape (L,).

    Σ_p table[p]·table[p+k] is each channel's autocorrelation summed over channels: zero-pad the columns to 2L
    (so nothing wraps around), r = irfft(Σ_channels |rfft(column)|²), then divide r[k] by its L - k pairs.
    O(d·L log L) instead of O(d·L²); equal to ``offset_similarity(table, kind=kind)[1]`` up to rounding (the
    FFT's error is about 1e-16 times Σ table², in float64; float32 on mps). Table's dtype, on its device.
    Ref: Wiener-Khinchin theorem; Wang & Chen 2020, arXiv 2010.04903 (offset similarity of learned tables).
    """
    table = _as_table(table)
    kind = check_choice("kind", kind, KINDS)
    if not bool(torch.isfinite(table).all()):
        raise ValueError("table must hold finite numbers (got NaN or inf)")
    length, width = table.shape
    work = work_dtype(table.device)
    x = table.to(work)
    x = _unit_rows(x) if kind == "cosine" else x
    size = 2 * length  # >= 2L - 1 terms of the linear autocorrelation
    power = torch.zeros(size // 2 + 1, device=table.device, dtype=work)
    columns = max(1, _BLOCK_ELEMENTS // size)
    for start in range(0, width, columns):
        spectrum = torch.fft.rfft(x[:, start : start + columns], n=size, dim=0)  # (L + 1, columns)
        power += (spectrum.real**2 + spectrum.imag**2).sum(dim=1)
    sums = torch.fft.irfft(power, n=size)[:length]  # Σ_p x[p]·x[p+k], k = 0 .. L-1
    pairs = torch.arange(length, 0, -1, device=table.device, dtype=work)  # L - k
    return (sums / pairs).to(table.dtype)


def adjacent_distance_stats(table: Any) -> tuple[float, float]:
    """Mean and population std over p of ||table[p+1] - table[p]|| (needs L >= 2)."""
    table = _as_table(table)
    if table.shape[0] < 2:
        raise ValueError(f"table must have at least 2 rows for adjacent distances (got {table.shape[0]})")
    x = table.to(work_dtype(table.device))
    steps = torch.linalg.vector_norm(x[1:] - x[:-1], dim=1)
    return float(steps.mean()), float(steps.std(correction=0))


def distance(table: Any, i: int, j: int) -> float:
    """||table[i] - table[j]|| (Euclidean)."""
    table = _as_table(table)
    i = check_int("i", i, minimum=0, maximum=table.shape[0] - 1)
    j = check_int("j", j, minimum=0, maximum=table.shape[0] - 1)
    x = table.to(work_dtype(table.device))
    return float(torch.linalg.vector_norm(x[i] - x[j]))


def distance_profile(table: Any, anchor: int = 0, positions: Any = None) -> torch.Tensor:
    """||table[q] - table[anchor]|| for q in ``positions`` (default every row). Shape (P,), table's dtype."""
    table = _as_table(table)
    anchor = check_int("anchor", anchor, minimum=0, maximum=table.shape[0] - 1)
    x = table.to(work_dtype(table.device))
    rows = x if positions is None else x[_indices("positions", positions, table)]
    return torch.linalg.vector_norm(rows - x[anchor], dim=1).to(table.dtype)


def compare_schemes(tables: dict[str, Any], *, anchor: int = 0, other: int = 50) -> dict[str, dict[str, float]]:
    """{name: {"adjacent_mean", "adjacent_std", "distance"}} with distance = ||table[other] - table[anchor]||.

    Pass an all-zeros table for "no position encoding": every value is then 0.
    """
    if not isinstance(tables, dict) or not tables:
        raise ValueError(f"tables must be a non-empty dict of name -> (L, d) table (got {type(tables).__name__})")
    anchor = check_int("anchor", anchor, minimum=0)
    other = check_int("other", other, minimum=0)
    result = {}
    for name, table in tables.items():
        table = _as_table(table, name=f"tables[{name!r}]")
        if max(anchor, other) >= table.shape[0]:
            raise ValueError(
                f"anchor and other must be < the length of tables[{name!r}] ({table.shape[0]}) "
                f"(got anchor={anchor}, other={other})"
            )
        adjacent_mean, adjacent_std = adjacent_distance_stats(table)
        result[name] = {
            "adjacent_mean": adjacent_mean,
            "adjacent_std": adjacent_std,
            "distance": distance(table, anchor, other),
        }
    return result


def _as_table(table: Any, name: str = "table") -> torch.Tensor:
    """A non-empty 2-D floating tensor (integers become float32), or a ValueError naming ``name``."""
    try:
        table = torch.as_tensor(table)
    except (TypeError, ValueError, RuntimeError) as error:
        raise ValueError(f"{name} must be a 2-D (L, d) tensor (got {type(table).__name__})") from error
    if table.dim() != 2 or 0 in table.shape:
        raise ValueError(f"{name} must be a non-empty 2-D (L, d) tensor (got shape {tuple(table.shape)})")
    if table.dtype == torch.bool or table.is_complex():
        raise ValueError(f"{name} must be real numbers (got dtype {table.dtype})")
    return table if table.is_floating_point() else table.to(torch.float32)


def _unit_rows(x: torch.Tensor) -> torch.Tensor:
    """Rows scaled to unit length; all-zero rows stay zero (their cosine with anything is 0)."""
    norms = torch.linalg.vector_norm(x, dim=1, keepdim=True)
    return x / torch.where(norms > 0, norms, 1)


def _indices(name: str, values: Any, table: torch.Tensor) -> torch.Tensor:
    return check_vector(name, values, device=table.device, integer=True, minimum=0, maximum=table.shape[0] - 1)
