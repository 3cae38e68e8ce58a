"""Compare two to four schemes on one footing: the similarity of each against the relative distance k (1 at
k = 0, so schemes of any width compare), with schemes that have no similarity curve (T5) in a second panel that
counts distinct position signals. What each curve is: the ``compare_item`` module of the scheme's family.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from plotly.subplots import make_subplots

from posenc.drawing.common import LEGEND_BELOW, as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY
from posenc.figures.compare.curves import distances, notes
from posenc.figures.compare.items import COMPARE_CURVES, parse_schemes
from posenc.figures.compare.metrics import METRICS, measure
from posenc.figures.compare.params import COMPARE_PARAMS
from posenc.i18n import N_, _


@register(
    "compare-similarity",
    title=N_("Similarity against relative distance k, several schemes"),
    page="compare",
    params=COMPARE_PARAMS,
)
def similarity_curves(p: Mapping[str, Any]) -> FigureResult:
    schemes, (ks, note) = parse_schemes(p["schemes"], p), distances(p)
    signals = [s for s in schemes if COMPARE_CURVES[s.kind].panel == "signals"]
    log_x = p["distance_axis"] == "log"
    fig = make_subplots(
        rows=1,
        cols=2 if signals else 1,
        column_widths=[0.62, 0.38] if signals else None,
        horizontal_spacing=0.1,
        subplot_titles=(
            (_("similarity"), _("{kinds}: distinct signals in 0..k").format(kinds=_kinds(signals))) if signals else None
        ),
    )
    data: dict[str, np.ndarray] = {}
    table: dict[str, list[float]] = {key: [] for key in METRICS}
    for i, s in reversed(list(enumerate(schemes))):  # drawn last to first: the first item lies on top
        x, y, measured = measure(s, ks, p)
        curve = COMPARE_CURVES[s.kind]
        col, what = (2, "distinct buckets") if curve.panel == "signals" else (1, "similarity")  # data key
        hover = (
            _("distance k %{x:,}<br>distinct buckets %{y:.6g}")
            if curve.panel == "signals"
            else _("distance k %{x:,}<br>similarity %{y:.6g}")
        )
        fig.add_scatter(
            x=as_array(x),
            y=as_array(y),
            mode="lines",
            name=s.label,
            legendrank=i,
            line={
                "color": COLORWAY[i % len(COLORWAY)],
                "shape": "hv" if curve.panel == "signals" else "linear",
                "dash": curve.dash,  # absolute tables dashed: visible where curves coincide
            },
            hovertemplate=f"{s.label}<br>{hover}<extra></extra>",
            row=1,
            col=col,
        )
        data[f"distance_{i}"], data[f"{what.replace(' ', '_')}_{i}"] = as_array(x), as_array(y)
        for key in METRICS:
            table[key].insert(0, measured.get(key, math.nan))
    if signals:
        fig.add_scatter(
            x=as_array(ks),
            y=as_array(ks + 1),
            mode="lines",
            name=_("every distance its own signal (the other schemes)"),
            line={"color": "#888888", "dash": "dot"},
            hovertemplate=_("distance k %{x:,}<br>distinct signals %{y:,}") + "<extra></extra>",
            row=1,
            col=2,
        )
        fig.update_yaxes(type="log" if log_x else "linear", title_text=_("distinct signals"), row=1, col=2)
    axis_type = "log" if log_x else "linear"
    fig.update_xaxes(type=axis_type, title_text=_("distance k (log)") if log_x else _("distance k"))
    fig.update_yaxes(title_text=_("similarity (1 at k = 0)"), row=1, col=1)
    fig.update_layout(
        title=_("Similarity against relative distance k, L={length:,}").format(length=p["seq_len"]),
        height=480,
        legend=LEGEND_BELOW,
    )
    data.update({f"metric_{key}": np.asarray(column, dtype=np.float64) for key, column in table.items()})
    return FigureResult(fig, data, (note, *notes(schemes)))


def _kinds(items: list) -> str:
    """'T5' for the panel title: the first word of each item's label, once each."""
    return "/".join(dict.fromkeys(item.label.split()[0] for item in items))
