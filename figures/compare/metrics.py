"""The Compare page's table: each scheme's metrics (similarity at 1 and at L - 1, half distance, distances
between unit rows, longest wavelength, distinct signals)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from figures.compare.curves import distinct_buckets, learned_table_of, rope_frequencies, similarity, work_device_dtype
from figures.compare.schemes import Scheme, parse_schemes
from figures.registry import FigureResult
from posenc_core import metrics, rope, sinusoidal

TABLE_ROWS = 256  # positions the distance metrics of sinusoidal and RoPE are measured on (a learned table: all rows)


EXACT_SEARCH = 1024  # "first k with similarity < 0.5" is searched over every k below this, then on the samples


FAR = 50  # the distance metric ‖u(50) − u(0)‖


METRICS = {
    "similarity_at_1": "similarity at k = 1",
    "half_distance": "first k with similarity < 0.5",
    "similarity_at_last": "similarity at k = L − 1",
    "adjacent_mean": "mean ‖u(p+1) − u(p)‖",
    "adjacent_std": "std ‖u(p+1) − u(p)‖",
    "far_distance": f"‖u({FAR}) − u(0)‖",
    "longest_wavelength": "longest wavelength (tokens)",
    "wavelength_over_length": "longest wavelength ÷ L",
    "distinct_signals": "distinct signals over 0..L−1",
}


def measure(s: Scheme, ks: torch.Tensor, p: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor, dict[str, float]]:
    """(distances drawn, curve there, metrics by METRICS key) of one item; one core evaluation per item."""
    length = p["seq_len"]
    if s.kind == "t5":
        return (
            ks,
            distinct_buckets(s, ks),
            {"distinct_signals": float(distinct_buckets(s, ks.new_tensor([length - 1]))[0])},
        )
    exact = torch.arange(1, min(length, EXACT_SEARCH))  # every distance: the first drop below 0.5 is exact here
    kept, values = similarity(s, torch.unique(torch.cat([exact, ks, ks.new_tensor([length - 1])])), p)
    below = kept[values < 0.5]
    result = {
        "similarity_at_1": _at(kept, values, 1),
        "similarity_at_last": _at(kept, values, length - 1),
        "half_distance": math.nan if below.numel() == 0 else float(below[0]) * (1 if below[0] < EXACT_SEARCH else -1),
        "distinct_signals": float(min(length, learned_table_of(s, p).shape[0]) if s.kind == "learned" else length),
    }
    if s.kind != "alibi":
        result.update(_table_metrics(s, p))
    shown = torch.isin(kept, ks)
    return kept[shown], values[shown], result


def _at(kept: torch.Tensor, values: torch.Tensor, k: int) -> float:
    hit = torch.nonzero(kept == k).flatten()
    return float(values[hit[0]]) if hit.numel() else math.nan


def _table_metrics(s: Scheme, p: Mapping[str, Any]) -> dict[str, float]:
    """Distances between unit rows u(p) = T[p]/‖T[p]‖ of the first positions: the PE table, or R(p)·1 for RoPE."""
    device, work = work_device_dtype(p)
    count = min(p["seq_len"], TABLE_ROWS)
    if s.kind == "sinusoidal":
        table = sinusoidal.encoding(count, s.size, device=device, dtype=work)
        longest = float(sinusoidal.wavelengths(s.size, device=device, dtype=work).max())
    elif s.kind == "learned":
        table, longest = learned_table_of(s, p)[: p["seq_len"]].to(device), math.nan  # every row up to L, float32
    else:
        inv, factor, head_dim = rope_frequencies(s, p)
        ones = torch.ones(count, head_dim, device=device, dtype=work)
        table = rope.apply(ones, torch.arange(count, device=device), inv, attention_factor=factor)
        longest = float(rope.wavelengths(inv).max())
    unit = table / torch.linalg.vector_norm(table, dim=1, keepdim=True).clamp(min=1e-30)
    mean, std = metrics.adjacent_distance_stats(unit)  # seq_len >= 2 and tables have >= 2 rows
    return {
        "adjacent_mean": mean,
        "adjacent_std": std,
        "far_distance": metrics.distance(unit, 0, min(FAR, unit.shape[0] - 1)),
        "longest_wavelength": longest,
        "wavelength_over_length": longest / p["seq_len"],
    }


def comparison_rows(result: FigureResult, p: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The metrics of ``compare-similarity`` as table rows (one per scheme) for ``st.dataframe``."""
    schemes = parse_schemes(p["schemes"], p)
    rows = []
    for i, s in enumerate(schemes):
        row: dict[str, Any] = {"scheme": s.label}
        for key, title in METRICS.items():
            value = float(result.data[f"metric_{key}"][i])
            if math.isnan(value):
                row[title] = "—"
            elif key == "half_distance":
                row[title] = f"≤ {-value:,.0f} (sampled)" if value < 0 else f"{value:,.0f}"
            elif key == "distinct_signals":
                row[title] = f"{value:,.0f}"
            else:
                row[title] = "≈ 0" if abs(value) < 1e-9 else f"{value:.4g}"
        rows.append(row)
    return rows
