"""ALiBi bias matrices -m·(i - j), one panel per head drawn."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from plotly.subplots import make_subplots

from figures.alibi.params import chosen_heads, describe, format_number, head_slopes
from figures.common import as_array
from figures.registry import FigureResult, register
from figures.shown import shown_positions
from figures.theme import SEQUENTIAL_SCALE
from posenc_core import alibi, sampling

BIAS_CELLS = sampling.MAX_CELLS_PER_AXIS * sampling.MAX_CELLS_PER_AXIS  # cells of all shown heads together


@register(
    "alibi-bias",
    title="ALiBi bias matrices",
    page="alibi",
    params=("n_heads", "alibi_bias_max", "heads", "mode", "seq_len", "view", "start"),
)
def bias_figure(p: Mapping[str, Any]) -> FigureResult:
    heads, heads_note = chosen_heads(p)
    side = min(sampling.MAX_CELLS_PER_AXIS, int(math.sqrt(BIAS_CELLS / len(heads))))
    positions, position_note = shown_positions(p, p["seq_len"], side)
    slopes = head_slopes(p)
    bias = alibi.bias(
        slopes,
        p["seq_len"],
        mode=p["mode"],
        heads=heads,
        query_positions=positions,
        key_positions=positions,
        device=p["device"],
    )  # (len(heads), Q, K)
    values = as_array(bias)
    shown = np.where(np.isfinite(values), values, np.nan)  # the causal mask (−inf) is left blank
    cols = min(len(heads), 2)
    rows = math.ceil(len(heads) / cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[
            f"head {h}: m={float(slopes[h]):.4g}, min {format_number(np.nanmin(shown[k]))}" for k, h in enumerate(heads)
        ],
        horizontal_spacing=0.06,
        shared_yaxes=True,  # every head is drawn at the same positions
        vertical_spacing=0.12 if rows > 1 else 0.0,
    )
    axis = as_array(positions).astype(np.int64)
    for k, head in enumerate(heads):
        row, col = divmod(k, cols)
        fig.add_heatmap(
            z=shown[k],
            x=axis,
            y=axis,
            row=row + 1,
            col=col + 1,
            coloraxis="coloraxis",
            hoverongaps=False,
            hovertemplate=f"head {head}<br>query i: %{{y}}<br>key j: %{{x}}<br>bias: %{{z:.6g}}<extra></extra>",
        )
        fig.update_yaxes(
            autorange="reversed", title_text="query i (tokens)" if col == 0 else None, row=row + 1, col=col + 1
        )
        fig.update_xaxes(title_text="key j (tokens)", row=row + 1, col=col + 1)
    formula = "−m·(i−j), j ≤ i" if p["mode"] == "causal" else "−m·|i−j|"
    fig.update_layout(
        title=f"ALiBi bias {formula}, {describe(p)}, L={p['seq_len']:,}",
        coloraxis={"colorscale": SEQUENTIAL_SCALE, "cmax": 0, "colorbar": {"title": {"text": "bias"}}},
        height=440 * rows + 80,
        margin={"t": 100},
    )
    notes = (position_note,)
    if p["mode"] == "causal":
        notes += ("blank cells: keys after the query, masked (−∞) in causal attention",)
    if heads_note:
        notes += (heads_note,)
    data = {"bias": values, "positions": as_array(positions), "heads": np.asarray(heads, dtype=np.float32)}
    return FigureResult(fig, data, notes)
