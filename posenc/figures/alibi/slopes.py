"""ALiBi's slope per head (Press et al.'s geometric sequence, non-powers of two included)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.common import as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY
from posenc.figures.alibi.params import describe, head_slopes
from posenc.i18n import N_, _


def _series_groups(n_heads: int) -> tuple[int, str | None]:
    """How many heads take the power-of-two series, and a sentence on the others (None for a power of two)."""
    power = 1 << (n_heads.bit_length() - 1)  # 2^floor(log2 n)
    if power == n_heads:
        return n_heads, None
    return power, _(
        "n_heads={n} is not a power of two: heads 0-{last} take the {power}-head slopes, heads {power}-{n_last} "
        "every other slope of the {double}-head series (they fall between the others)"
    ).format(n=n_heads, last=power - 1, power=power, n_last=n_heads - 1, double=2 * power)


def power_of_two_ticks(values: np.ndarray, most: int = 10) -> dict[str, Any]:
    """Log-axis ticks at whole powers of two (2⁻¹, 2⁻², …), at most ``most`` of them."""
    low, high = math.floor(math.log2(values.min())), math.ceil(math.log2(values.max()))
    exponents = list(range(high, low - 1, -max(1, math.ceil((high - low + 1) / most))))
    return {"tickvals": [2.0**e for e in exponents], "ticktext": [f"2<sup>{e}</sup>" for e in exponents]}


@register("alibi-slopes", title=N_("ALiBi slope per head"), page="alibi", params=("n_heads", "alibi_bias_max"))
def slopes_figure(p: Mapping[str, Any]) -> FigureResult:
    slopes = as_array(head_slopes(p))
    heads = np.arange(p["n_heads"])
    power, note = _series_groups(p["n_heads"])
    fig = go.Figure()
    groups = [(_("power-of-two series"), heads < power, COLORWAY[0])]
    if note:
        groups.append(
            (_("interleaved from the {double}-head series").format(double=2 * power), heads >= power, COLORWAY[1])
        )
    for name, chosen, color in groups:
        fig.add_bar(
            x=heads[chosen],
            y=slopes[chosen],
            name=name,
            marker_color=color,
            customdata=np.log2(slopes[chosen]),
            hovertemplate=_("head %{x}<br>slope m = %{y:.6g}<br>log₂ m = %{customdata:.4g}")
            + "<extra>"
            + name
            + "</extra>",
        )
    fig.update_layout(
        title=_("ALiBi slopes m_h, {describe}").format(describe=describe(p)),
        xaxis_title=_("head h"),
        yaxis_title=_("slope m (log scale)"),
        yaxis={"type": "log", **power_of_two_ticks(slopes)},
        bargap=0.15,
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 1, "xanchor": "right"},
        height=360,
    )
    notes = (note,) if note else ()
    return FigureResult(fig, {"head": heads.astype(np.float32), "slope": slopes}, notes)
