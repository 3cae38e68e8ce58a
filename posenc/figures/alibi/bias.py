"""ALiBi bias matrices -m·(i - j), one panel per head drawn, each on its own colour range or on one shared scale."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from plotly.subplots import make_subplots

from posenc.drawing.common import as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.shown import shown_positions
from posenc.drawing.theme import SEQUENTIAL_SCALE
from posenc.figures.alibi.params import chosen_heads, describe, head_slopes, reference_span
from posenc.i18n import N_, _
from posenc_core import sampling
from posenc_core.encodings import alibi

BIAS_CELLS = sampling.MAX_CELLS_PER_AXIS * sampling.MAX_CELLS_PER_AXIS  # cells of all shown heads together
SPAN_MASS = 0.9  # the share of attention the aliasing note speaks of


def panel_grid(count: int) -> tuple[int, int, int]:
    """(rows, columns, pixel height of a row) for ``count`` panels: 2 columns up to 4 panels, 3 up to 9, then 4
    (narrow enough for a phone to keep every panel's title apart)."""
    cols = count if count <= 2 else 2 if count <= 4 else 3 if count <= 9 else 4
    return math.ceil(count / cols), cols, {1: 420, 2: 420, 3: 330, 4: 290}[cols]


@register(
    "alibi-bias",
    title=N_("ALiBi bias matrices"),
    page="alibi",
    params=("n_heads", "alibi_bias_max", "heads", "mode", "shared_scale", "seq_len", "view", "start"),
)
def bias_figure(p: Mapping[str, Any]) -> FigureResult:
    heads = chosen_heads(p)
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
    lowest = [float(np.nanmin(panel)) for panel in shown]  # each panel's most negative bias (0 for one position)
    floors = [min(lowest)] * len(heads) if p["shared_scale"] else lowest
    floors = [floor if floor < 0 else -1.0 for floor in floors]  # a range, even when every bias is 0
    rows, cols, row_height = panel_grid(len(heads))
    height = row_height * rows + 190
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[
            _("head {head}<br>m = {slope}").format(head=h, slope=slope_text(float(slopes[h]))) for h in heads
        ],
        horizontal_spacing=0.07 if cols > 2 else 0.06,
        vertical_spacing=min(0.3, 80 / (height - 190)) if rows > 1 else 0.0,
        shared_yaxes=True,  # every head is drawn at the same positions
        x_title=_("key j (tokens)"),
        y_title=_("query i (tokens)"),
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
            colorscale=SEQUENTIAL_SCALE,
            zmin=floors[k],
            zmax=0.0,
            showscale=k == 0,
            colorbar=_colorbar(p["shared_scale"], floors[0], int(positions[-1] - positions[0])),
            hoverongaps=False,
            hovertemplate=_("head {head}<br>query i: %{{y}}<br>key j: %{{x}}<br>bias: %{{z:.6g}}").format(head=head)
            + "<extra></extra>",
        )
        fig.update_yaxes(autorange="reversed", tickformat="~s", row=row + 1, col=col + 1)
        fig.update_xaxes(tickformat="~s", row=row + 1, col=col + 1)  # 1k, 512k: short enough for narrow panels
    formula = "−m·(i−j), j ≤ i" if p["mode"] == "causal" else "−m·|i−j|"
    fig.update_layout(
        title=_("ALiBi bias {formula}, {describe}, L={length:,}").format(
            formula=formula, describe=describe(p), length=p["seq_len"]
        ),
        height=height,
        margin={"t": 110, "b": 150},
    )
    notes = (position_note,)
    if p["mode"] == "causal":
        notes += (_("blank cells: keys after the query, masked (−∞) in causal attention"),)
    notes += tuple(note for note in (_hidden_note(p, positions, heads, slopes),) if note)
    data = {"bias": values, "positions": as_array(positions), "heads": np.asarray(heads, dtype=np.float32)}
    data["lowest"] = np.asarray(lowest, dtype=np.float32)  # each panel's most negative bias
    return FigureResult(fig, data, notes)


def slope_text(slope: float) -> str:
    """2<sup>−3</sup> for a whole power of two (every slope of 8 heads), else 3 significant digits."""
    exponent = math.log2(slope)
    return f"2<sup>−{-exponent:g}</sup>" if exponent == round(exponent) and exponent < 0 else f"{slope:.3g}"


def _colorbar(shared: bool, floor: float, distance: int) -> dict[str, Any]:
    """A horizontal colour bar under the panels: the bias on one scale, or what light and dark mean per panel."""
    bar = {"orientation": "h", "x": 0.5, "xanchor": "center", "len": 0.6, "thickness": 12}
    bar |= {"yref": "container", "y": 0.0, "yanchor": "bottom"}  # under the x-axis title, in the bottom margin
    if shared:
        return bar | {"title": {"text": _("bias"), "side": "bottom"}}
    return bar | {
        "title": {"text": _("bias, each head on its own range"), "side": "bottom"},
        "tickvals": [floor, 0.0],
        "ticktext": [_("−m·{distance:,} (the farthest key)").format(distance=distance), "0"],
    }


def _hidden_note(p: Mapping[str, Any], positions, heads: list[int], slopes) -> str | None:
    """In an overview with one cell every s positions, the heads whose attention lies within s tokens."""
    if p["view"] == "window" or positions.numel() < 2:
        return None
    stride = int(positions[1] - positions[0])
    spans = {h: reference_span(float(slopes[h]), SPAN_MASS) for h in heads}
    hidden = [h for h in heads if spans[h] < stride]
    if stride < 2 or not hidden:
        return None
    spans_text = ", ".join(_("{head} ({span:,} tokens)").format(head=h, span=spans[h]) for h in hidden)
    if len(hidden) == 1:
        message = _(
            "sampling hides the nearest keys: one cell every {stride:,} positions, and head {heads} keeps {mass:.0%} "
            "of the attention within fewer tokens than that, all inside the diagonal cells here; the window view "
            "draws every position"
        )
    else:
        message = _(
            "sampling hides the nearest keys: one cell every {stride:,} positions, and heads {heads} keep {mass:.0%} "
            "of the attention within fewer tokens than that, all inside the diagonal cells here; the window view "
            "draws every position"
        )
    return message.format(stride=stride, heads=spans_text, mass=SPAN_MASS)
