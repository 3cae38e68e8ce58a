"""Building blocks shared by the figure builders: heatmaps and curves at display resolution.

Values are sent as float32 (Plotly encodes numpy arrays as typed binary), so a 512 x 512 heatmap is about
1.7 MB of figure JSON. Hover always shows the true value at the true position.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.theme import REFERENCE_INK, SEQUENTIAL_SCALE
from posenc.i18n import N_, _

# A legend under the plot: at the bottom of the figure, where Plotly makes the bottom margin hold the x axis (its
# tick labels and title) and then the legend's rows, whatever the width and the type size (a place given as a
# fraction of the plot's height runs into the axis title once the text is larger, as on a slide).
LEGEND_BELOW = {"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0, "x": 0}
CATEGORY_TICKS = 12  # labels on an ordered category axis (hover names every cell)
# What an overview samples (``sampled_note``'s ``what``), shown translated: a caller passes the English word.
SAMPLED_THINGS = (N_("positions"), N_("distances"), N_("tokens"), N_("channels"), N_("grid cells"))


def as_array(values) -> np.ndarray:
    """A float32 numpy array from a torch tensor, numpy array or sequence."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    return np.asarray(values, dtype=np.float32)


def heatmap(
    z,
    x,
    y,
    *,
    title: str,
    x_title: str,
    y_title: str,
    value_name: str | None = None,
    colorscale: str = SEQUENTIAL_SCALE,
    zmid: float | None = None,
    zmin: float | None = None,
    zmax: float | None = None,
    reversed_y: bool = False,
) -> go.Figure:
    """A heatmap of ``z`` (len(y), len(x)) with its true coordinates in the hover.

    An axis whose coordinates are not evenly spaced (e.g. the sin and cos channels of sampled frequency pairs)
    becomes an ordered category axis: Plotly draws a heatmap on evenly spaced axes as one scaled image, but
    paints every cell of an uneven one separately, which is several times slower in the browser.
    ``value_name`` (the colour bar's title): "value" in the reader's language when not given.
    """
    value_name = _("value") if value_name is None else value_name
    z = as_array(z)
    x, y = np.asarray(x), np.asarray(y)
    if z.shape != (len(y), len(x)):
        raise ValueError(f"z must have shape (len(y), len(x)) = ({len(y)}, {len(x)}) (got {z.shape})")
    trace = go.Heatmap(
        z=z,
        x=x,
        y=y,
        colorscale=colorscale,
        zmid=zmid,
        zmin=zmin,
        zmax=zmax,
        colorbar={"title": {"text": value_name}},
        hovertemplate=f"{x_title}: %{{x}}<br>{y_title}: %{{y}}<br>{value_name}: %{{z:.6g}}<extra></extra>",
    )
    fig = go.Figure(trace)
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title)
    if reversed_y:
        fig.update_yaxes(autorange="reversed")
    if not evenly_spaced(x):
        fig.update_xaxes(type="category", nticks=CATEGORY_TICKS)
    if not evenly_spaced(y):
        fig.update_yaxes(type="category", nticks=CATEGORY_TICKS)
    return fig


def evenly_spaced(coordinates) -> bool:
    """True when consecutive coordinates all differ by the same step (as Plotly needs to draw one image).
    Names (strings) are categories, evenly spaced by construction."""
    coordinates = np.asarray(coordinates)
    if not np.issubdtype(coordinates.dtype, np.number):
        return True
    steps = np.diff(coordinates.astype(np.float64))
    if steps.size < 2:
        return True
    return bool(np.allclose(steps, steps[0], rtol=1e-9, atol=0.0))


def lines(
    x,
    series: Mapping[str, Sequence[float]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    log_x: bool = False,
    log_y: bool = False,
    mode: str = "lines",
    x_by_series: Mapping[str, Sequence[float]] | None = None,
) -> go.Figure:
    """One or more curves on shared axes; ``x_by_series`` gives a series its own x values."""
    fig = go.Figure()
    for name, values in series.items():
        xs = as_array(x_by_series[name]) if x_by_series and name in x_by_series else as_array(x)
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=as_array(values),
                mode=mode,
                name=name,
                hovertemplate=f"{name}<br>{x_title}: %{{x:.6g}}<br>{y_title}: %{{y:.6g}}<extra></extra>",
            )
        )
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, hovermode="closest")
    if log_x:
        fig.update_xaxes(type="log")
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def band(fig: go.Figure, x, low, high, *, name: str, color: str = "rgba(31,119,180,0.2)") -> go.Figure:
    """Shade the area between ``low`` and ``high`` (a spread or an envelope) under the existing traces."""
    x, low, high = as_array(x), as_array(low), as_array(high)
    fig.add_trace(
        go.Scatter(
            x=np.concatenate([x, x[::-1]]),
            y=np.concatenate([high, low[::-1]]),
            fill="toself",
            fillcolor=color,
            mode="none",
            name=name,
            hoverinfo="skip",
        )
    )
    fig.data = (fig.data[-1], *fig.data[:-1])
    return fig


def sampled_note(shown: int, total: int, what: str = "positions", *, stride: int | None = None) -> str:
    """The label for an overview: 'sampled: 384 of 1,048,576 positions, one every 2,731 (exact values …)', in the
    reader's language (``what``: one of :data:`SAMPLED_THINGS`, in English)."""
    things = _(what)
    if shown >= total:
        return _("all {total:,} {what}").format(total=total, what=things)
    if stride:
        message = _("sampled: {shown:,} of {total:,} {what}, one every {stride:,} (exact values at those {what})")
    else:
        message = _("sampled: {shown:,} of {total:,} {what}, evenly spaced (exact values at those {what})")
    return message.format(shown=shown, total=total, what=things, stride=stride)


def placeholder(title: str, *, height: int = 450) -> go.Figure:
    """The frame a figure takes while its numbers are computed: its title and "Computing…", no data.

    Sent first, it lets the browser load and start plotly.js while the server computes (see ``ui.show``).
    """
    fig = go.Figure(layout={"title": {"text": title}, "height": height, "template": "posenc"})
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    computing = _("Computing {title}…").format(title=title)
    fig.add_annotation(text=computing, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    return fig


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
    line = {"color": REFERENCE_INK, "dash": dash, "width": 1}
    where = math.log10(value) if log else value
    label = {"text": text, "showarrow": False, "xanchor": anchor, "bgcolor": "rgba(255,255,255,0.7)"}
    if axis == "x":
        fig.add_vline(x=value, line=line)
        fig.add_annotation(x=where, xref="x", y=1, yref="paper", yanchor="top", **label)
    else:
        fig.add_hline(y=value, line=line)
        fig.add_annotation(x=0 if anchor == "left" else 1, xref="paper", y=where, yref="y", yanchor="bottom", **label)
