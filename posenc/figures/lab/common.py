"""What the length lab's figures share: one colour per scheme, the length axis in powers of two with the trained
length L marked, and the frame shown while the lab has no results yet."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.common import LEGEND_BELOW
from posenc.drawing.common import mark as _mark
from posenc.drawing.theme import COLORWAY
from posenc.figures.lab.seeds import Spread
from posenc.figures.lab.source import SCHEME_ORDER, missing_message
from posenc.i18n import N_, _

SCHEME_COLORS = dict(zip(SCHEME_ORDER, COLORWAY, strict=False))
SCHEME_NAMES = {  # English, shown translated (the names NoPE, ALiBi and RoPE stay as they are)
    "nope": N_("NoPE"),
    "sinusoidal": N_("sinusoidal"),
    "learned": N_("learned"),
    "t5": N_("T5 bias"),
    "alibi": "ALiBi",
    "rope": "RoPE",
}


def scheme_name(scheme: str) -> str:
    """The scheme as readers meet it (NoPE, ALiBi, RoPE; "sinusoidal" and "learned" translated)."""
    return _(SCHEME_NAMES.get(scheme, scheme))


def length_axis(fig: go.Figure, lengths: Sequence[int], train_length: int, *, row=None, col=None) -> None:
    """The x axis at log2(length), labelled with the lengths themselves, "(L)" at the trained one."""
    ticks = sorted({*lengths, train_length})
    fig.update_xaxes(  # the lengths alone, upright: a phone's plot has room for 3-digit labels, not multiples
        tickvals=[math.log2(n) for n in ticks],
        ticktext=[str(n) for n in ticks],
        tickangle=0,
        title_text=_("evaluation length (tokens, log₂ scale)"),
        row=row,
        col=col,
    )


def mark(fig: go.Figure, where: float, label: str) -> None:
    """A dashed vertical line at ``where`` (the x axis's own units), labelled."""
    _mark(fig, where, label, dash="dash")


def mark_trained(fig: go.Figure, train_length: int, *, log2: bool = True) -> None:
    """A dashed vertical line at the trained length, labelled."""
    where = math.log2(train_length) if log2 else train_length
    _mark(fig, where, _("trained length L = {L}").format(L=train_length), dash="dash")


def finish(fig: go.Figure, title: str, y_title: str, *, height: int = 420) -> go.Figure:
    fig.update_layout(title=title, yaxis_title=y_title, legend=LEGEND_BELOW, height=height, hovermode="x unified")
    return fig


def missing(title: str) -> go.Figure:
    """The figure while the lab has no results: its title and how to make them, no data."""
    fig = go.Figure(layout={"title": {"text": title}, "height": 300})
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    text = _("The lab has no results yet: {why}").format(why=missing_message())
    fig.add_annotation(text=text, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    return fig


def absent(title: str, table: str) -> go.Figure:
    """The figure while the results hold no ``table`` (results made before it was added): its title and why."""
    fig = missing(title)
    text = _("These results hold no {table} table yet: posenc lab train --all makes it.").format(table=table)
    fig.update_annotations(text=text)
    return fig


def add_spread(
    fig: go.Figure,
    spread: Spread,
    name: str,
    color: str,
    *,
    dash: str = "solid",
    log_y: bool = False,
    x: np.ndarray | None = None,
    hover: str | None = None,
    label_below: bool = False,
) -> None:
    """The seeds' mean as a line at x = log2(length) (or ``x``) and, with two seeds or more, a band of the same
    colour from the lowest seed to the highest (where every seed has a value); toggled together from the legend.
    Where the curve stops (a learned table has no row past L), an annotation says why: above the curve's end, or
    below it with ``label_below`` (a curve that ends at the top of its axis, as an accuracy of 100%)."""
    x = np.log2(spread.x) if x is None else np.asarray(x, dtype=np.float64)
    kind = np.float64 if x.size <= 64 else np.float32  # a curve per position: half the bytes, none of the shape lost
    finite = np.flatnonzero(np.isfinite(spread.mean))
    if len(spread.seeds) > 1 and finite.size:
        band_x = np.concatenate([x[finite], x[finite][::-1]])
        band_y = np.concatenate([spread.high[finite], spread.low[finite][::-1]]).astype(kind)
        fig.add_scatter(
            x=band_x,
            y=band_y,
            fill="toself",
            fillcolor=color,
            opacity=0.18,
            line={"width": 0},
            mode="lines",
            name=name,
            legendgroup=name,
            showlegend=False,
            hoverinfo="skip",
        )
    where = _("{n} tokens").format(n="%{customdata[0]:.0f}") if hover is None else hover
    band = " (" + _("seeds") + " %{customdata[1]:.4g}–%{customdata[2]:.4g})" if len(spread.seeds) > 1 else ""
    fig.add_scatter(
        x=x,
        y=spread.mean.astype(kind),
        customdata=np.column_stack([spread.x, spread.low, spread.high]).astype(kind),
        name=name,
        legendgroup=name,
        mode="lines+markers" if x.size <= 64 else "lines",
        line={"color": color, "dash": dash},
        hovertemplate=where + ": %{y:.4g}" + band + "<extra>" + name + "</extra>",
    )
    if finite.size and finite[-1] < len(spread.mean) - 1 and any(row.get("past_table") for row in spread.rows):
        last = finite[-1]
        fig.add_annotation(
            x=x[last],
            y=np.log10(spread.mean[last]) if log_y else spread.mean[last],  # annotations on a log axis sit at log10
            text=_("{name}: no row past L").format(name=name),
            font={"color": color},
            showarrow=True,
            arrowhead=0,
            ax=40,
            ay=30 if label_below else -30,
        )
