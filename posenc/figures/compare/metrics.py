"""The Compare page's table: each scheme's metrics (similarity at 1 and at L - 1, half distance, distances
between unit rows, longest wavelength, distinct signals)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from posenc.drawing.registry import FigureResult
from posenc.figures.compare.curves import curve_of
from posenc.figures.compare.items import COMPARE_CURVES, CompareItem, parse_schemes
from posenc.i18n import N_, _
from posenc_core.encodings import metrics

TABLE_ROWS = 256  # positions the distance metrics of sinusoidal and RoPE are measured on (a learned table: all rows)
EXACT_SEARCH = 1024  # "first k with similarity < 0.5" is searched over every k below this, then on the samples
FAR = 50  # the distance metric ‖u(50) − u(0)‖


METRICS = {
    "similarity_at_1": N_("similarity at k = 1"),
    "half_distance": N_("first k with similarity < 0.5"),
    "similarity_at_last": N_("similarity at k = L − 1"),
    "adjacent_mean": N_("mean ‖u(p+1) − u(p)‖"),
    "adjacent_std": N_("std ‖u(p+1) − u(p)‖"),
    "far_distance": f"‖u({FAR}) − u(0)‖",  # a formula: the same in every language
    "longest_wavelength": N_("longest wavelength (tokens)"),
    "wavelength_over_length": N_("longest wavelength ÷ L"),
    "distinct_signals": N_("distinct signals over 0..L−1"),
}
SAME_IN_EVERY_LANGUAGE = {"far_distance"}


def measure(item: CompareItem, ks: torch.Tensor, p: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor, dict]:
    """(distances drawn, curve there, metrics by METRICS key) of one item; one core evaluation per item."""
    length, curve = p["seq_len"], COMPARE_CURVES[item.kind]
    signals = float(curve.signals(item, p)) if curve.signals else float(length)
    if curve.panel == "signals":
        kept, values = curve_of(item, ks, p)
        return kept, values, {"distinct_signals": signals}
    exact = torch.arange(1, min(length, EXACT_SEARCH))  # every distance: the first drop below 0.5 is exact here
    kept, values = curve_of(item, torch.unique(torch.cat([exact, ks, ks.new_tensor([length - 1])])), p)
    below = kept[values < 0.5]
    result = {
        "similarity_at_1": _at(kept, values, 1),
        "similarity_at_last": _at(kept, values, length - 1),
        "half_distance": math.nan if below.numel() == 0 else float(below[0]) * (1 if below[0] < EXACT_SEARCH else -1),
        "distinct_signals": signals,
    }
    if curve.table is not None:
        result.update(_table_metrics(*curve.table(item, p, min(length, TABLE_ROWS)), length))
    shown = torch.isin(kept, ks)
    return kept[shown], values[shown], result


def _at(kept: torch.Tensor, values: torch.Tensor, k: int) -> float:
    hit = torch.nonzero(kept == k).flatten()
    return float(values[hit[0]]) if hit.numel() else math.nan


def _table_metrics(table: torch.Tensor, longest: float, length: int) -> dict[str, float]:
    """Distances between unit rows u(p) = T[p]/‖T[p]‖ of the first positions of a scheme's table."""
    unit = table / torch.linalg.vector_norm(table, dim=1, keepdim=True).clamp(min=1e-30)
    mean, std = metrics.adjacent_distance_stats(unit)  # seq_len >= 2 and tables have >= 2 rows
    return {
        "adjacent_mean": mean,
        "adjacent_std": std,
        "far_distance": metrics.distance(unit, 0, min(FAR, unit.shape[0] - 1)),
        "longest_wavelength": longest,
        "wavelength_over_length": longest / length,
    }


def comparison_rows(result: FigureResult, p: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The metrics of ``compare-similarity`` as table rows (one per scheme) for ``st.dataframe``, keyed by
    ``_("scheme")`` and the metrics' titles in the reader's language."""
    schemes = parse_schemes(p["schemes"], p)
    rows = []
    for i, s in enumerate(schemes):
        row: dict[str, Any] = {_("scheme"): s.label}
        for key, english in METRICS.items():
            title = english if key in SAME_IN_EVERY_LANGUAGE else _(english)
            value = float(result.data[f"metric_{key}"][i])
            if math.isnan(value):
                row[title] = "—"
            elif key == "half_distance":
                row[title] = _("≤ {k:,.0f} (sampled)").format(k=-value) if value < 0 else f"{value:,.0f}"
            elif key == "distinct_signals":
                row[title] = f"{value:,.0f}"
            else:
                row[title] = "≈ 0" if abs(value) < 1e-9 else f"{value:.4g}"
        rows.append(row)
    return rows
