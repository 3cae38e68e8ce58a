"""How the context-extension figures look: one colour per variant, the legend under the axis, marked lines."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from figures.context.variants import VARIANTS
from figures.theme import COLORWAY

VARIANT_COLOURS = dict(zip(VARIANTS, COLORWAY[1:], strict=False)) | {"default": "#555555"}


DIMMED = 0.45  # opacity of the variants that are not the page's rope_type


LEGEND_BELOW = {"orientation": "h", "yanchor": "top", "y": -0.25}  # under the x-axis title


def mark(
    fig: go.Figure,
    value: float,
    text: str,
    *,
    axis: str = "x",
    log: bool = False,
    dash: str = "dash",
    anchor: str = "left",
) -> None:
    """A labelled vertical (axis "x") or horizontal (axis "y") line at ``value``. Plotly places shapes in data
    units but annotations on a log axis at log10(value), hence the separate label."""
    line = {"color": "#333333", "dash": dash, "width": 1}
    where = math.log10(value) if log else value
    label = {"text": text, "showarrow": False, "xanchor": anchor, "bgcolor": "rgba(255,255,255,0.7)"}
    if axis == "x":
        fig.add_vline(x=value, line=line)
        fig.add_annotation(x=where, xref="x", y=1, yref="paper", yanchor="top", **label)
    else:
        fig.add_hline(y=value, line=line)
        fig.add_annotation(x=0 if anchor == "left" else 1, xref="paper", y=where, yref="y", yanchor="bottom", **label)
