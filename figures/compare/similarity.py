"""Compare two to four schemes on one footing: similarity against relative distance k, RoPE's decay bound and a
table of metrics.

What each curve is (every curve is 1 at k = 0, so schemes of any width compare):
- sinusoidal, learned (absolute tables): the mean over p of PE(p)·PE(p+k), divided by its value at k = 0;
- RoPE: the score (R(m)q)·(R(n)k) with q = k = all-ones over head_dim and m - n = k, divided by its value at 0:
  Σ_i cos(kθ_i)/(d/2) when every channel rotates (a scaling's attention_factor scales all scores alike);
- ALiBi: exp(-m·k), the attention to a key k tokens back over the attention to the current token, equal content
  logits, one head of slope m;
- T5: its bias is one learned scalar per bucket, so without trained weights there is no curve; its panel counts
  the distinct position signals (buckets) among the distances 0..k instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from plotly.subplots import make_subplots

from figures.common import as_array
from figures.compare.curves import distances
from figures.compare.metrics import METRICS, measure
from figures.compare.params import COMPARE_PARAMS
from figures.compare.schemes import Scheme, parse_schemes
from figures.registry import FigureResult, register
from figures.theme import COLORWAY


@register(
    "compare-similarity",
    title="Similarity against relative distance k, several schemes",
    page="compare",
    params=COMPARE_PARAMS,
)
def similarity_curves(p: Mapping[str, Any]) -> FigureResult:
    schemes, (ks, note) = parse_schemes(p["schemes"], p), distances(p)
    t5 = [s for s in schemes if s.kind == "t5"]
    log_x = p["distance_axis"] == "log"
    fig = make_subplots(
        rows=1,
        cols=2 if t5 else 1,
        column_widths=[0.62, 0.38] if t5 else None,
        horizontal_spacing=0.1,
        subplot_titles=("similarity (1 at k = 0)", "T5: distinct signals among distances 0..k") if t5 else None,
    )
    data: dict[str, np.ndarray] = {}
    table: dict[str, list[float]] = {key: [] for key in METRICS}
    for i, s in reversed(list(enumerate(schemes))):  # drawn last to first: the first item lies on top
        x, y, measured = measure(s, ks, p)
        col, what = (2, "distinct buckets") if s.kind == "t5" else (1, "similarity")
        fig.add_scatter(
            x=as_array(x),
            y=as_array(y),
            mode="lines",
            name=s.label,
            legendrank=i,
            line={
                "color": COLORWAY[i % len(COLORWAY)],
                "shape": "hv" if s.kind == "t5" else "linear",
                "dash": "dash" if s.kind in ("sinusoidal", "learned") else "solid",  # visible where curves coincide
            },
            hovertemplate=f"{s.label}<br>distance k %{{x:,}}<br>{what} %{{y:.6g}}<extra></extra>",
            row=1,
            col=col,
        )
        data[f"distance_{i}"], data[f"{what.replace(' ', '_')}_{i}"] = as_array(x), as_array(y)
        for key in METRICS:
            table[key].insert(0, measured.get(key, math.nan))
    if t5:
        fig.add_scatter(
            x=as_array(ks),
            y=as_array(ks + 1),
            mode="lines",
            name="every distance its own signal (sinusoidal, RoPE, ALiBi)",
            line={"color": "#888888", "dash": "dot"},
            hovertemplate="distance k %{x:,}<br>distinct signals %{y:,}<extra></extra>",
            row=1,
            col=2,
        )
        fig.update_yaxes(type="log" if log_x else "linear", title_text="distinct signals", row=1, col=2)
    axis_type = "log" if log_x else "linear"
    fig.update_xaxes(type=axis_type, title_text="relative distance k (tokens" + (", log)" if log_x else ")"))
    fig.update_yaxes(title_text="similarity (1 at k = 0)", row=1, col=1)
    fig.update_layout(
        title=f"Similarity against relative distance k, L={p['seq_len']:,}",
        height=480,
        legend={"orientation": "h", "y": -0.2},
    )
    data.update({f"metric_{key}": np.asarray(column, dtype=np.float64) for key, column in table.items()})
    notes = [note, *_notes(schemes)]
    return FigureResult(fig, data, tuple(notes))


def _notes(schemes: list[Scheme]) -> list[str]:
    notes = []
    if any(s.kind == "rope" for s in schemes):
        notes.append(
            "RoPE: q = k = all-ones over head_dim, so the curve is Σ_i cos(kθ_i)/(d/2) (plus a constant "
            "from channels that do not rotate); angles in float64"
        )
    if any(s.kind == "learned" and s.table is None for s in schemes):
        notes.append(
            "learned, random: an untrained table; its rows are unrelated, so the similarity drops to "
            "noise at k = 1; a table has no row past its length, so its curve stops there"
        )
    if any(s.kind == "alibi" for s in schemes):
        notes.append(
            "ALiBi: exp(−m·k) = attention to the key k tokens back ÷ attention to the current token, "
            "equal content logits"
        )
    if any(s.kind == "t5" for s in schemes):
        notes.append(
            "T5: keys k tokens back, bidirectional buckets; every distance from max_distance on shares "
            "one bucket, so T5 cannot tell those distances apart"
        )
    return notes
