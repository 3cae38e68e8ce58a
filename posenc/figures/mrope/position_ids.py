"""M-RoPE's temporal, height and width position ids along the token sequence."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from plotly.subplots import make_subplots

from posenc.drawing.common import LEGEND_BELOW, as_array
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY
from posenc.figures.mrope.grid import integer_ticks
from posenc.figures.mrope.notes import vision_sentence
from posenc.figures.mrope.params import AXES, AXIS_NAMES
from posenc.figures.mrope.segments import core_segments, position_ids, segment_spans
from posenc.i18n import N_, _
from posenc_core.rope import mrope

SHADES = {"image": "rgba(31,119,180,0.10)", "video": "rgba(255,127,14,0.12)"}


@register(
    "mrope-position-ids",
    title=N_("M-RoPE position ids (T, H, W) of a text/image/video sequence"),
    page="mrope",
    params=("segments", "spatial_merge_size"),
)
def position_id_rows(p: Mapping[str, Any]) -> FigureResult:
    segments, ids = position_ids(p)
    delta = mrope.mrope_position_delta(core_segments(segments), spatial_merge_size=p["spatial_merge_size"])
    n = ids.shape[1]
    token = np.arange(n, dtype=np.float32)
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.06)
    mode = "lines+markers" if n <= 64 else "lines"
    for row, axis in enumerate(AXES, start=1):
        fig.add_scatter(
            x=token,
            y=as_array(ids[row - 1]),
            mode=mode,
            line={"shape": "hv", "color": COLORWAY[row - 1]},
            name=f"{axis} ({_(AXIS_NAMES[axis])})",
            hovertemplate=_("token %{x:,}") + "<br>" + _("{axis} id").format(axis=axis) + " %{y:,}<extra></extra>",
            row=row,
            col=1,
        )
        fig.add_scatter(
            x=token,
            y=token,
            mode="lines",
            line={"dash": "dot", "color": "#999999", "width": 1},
            name=_("1-D RoPE position (token index)"),
            showlegend=row == 1,
            hoverinfo="skip",
            row=row,
            col=1,
        )
        fig.update_yaxes(
            title_text=_("{axis} id").format(axis=axis), **integer_ticks(0, int(ids.max()), most=4), row=row, col=1
        )
    for s, first, end in segment_spans(segments):
        if s.kind != "text":
            fig.add_vrect(x0=first - 0.5, x1=end - 0.5, fillcolor=SHADES[s.kind], line_width=0, layer="below")
            fig.add_annotation(
                x=(first + end - 1) / 2, y=1.0, yref="paper", yanchor="bottom", text=s.label, showarrow=False
            )
    fig.update_xaxes(title_text=_("token index (position in the sequence)"), row=3, col=1)
    fig.update_xaxes(**integer_ticks(0, n - 1))  # every row: ids and token indices are whole numbers
    fig.update_layout(
        title=_(
            "M-RoPE position ids of {count:,} tokens, spatial_merge_size={merge}<br>"
            "rope delta = max id + 1 − N = {delta:,}"
        ).format(count=n, merge=p["spatial_merge_size"], delta=delta),
        height=620,
        margin={"t": 110},
        legend=LEGEND_BELOW,
    )
    data = {"token": token, **{axis.lower(): as_array(ids[i]) for i, axis in enumerate(AXES)}}
    data["segment"] = np.repeat(np.arange(len(segments), dtype=np.float32), [s.count for s in segments])
    notes = [
        _(
            "rope delta = {largest:,} + 1 − {count:,} = {delta:,}: the next generated token gets position N + delta = "
            "{next:,} on all three axes (decoding adds delta to the cache position)"
        ).format(largest=int(ids.max()), count=n, delta=delta, next=n + delta),
    ]
    if all(s.kind == "text" for s in segments):
        notes.append(_("text only: T = H = W = token index on every token, so M-RoPE is exactly 1-D RoPE (delta 0)"))
    else:
        notes.append(
            _("text tokens have T = H = W and step by 1, parallel to the dotted 1-D line; {vision}").format(
                vision=vision_sentence(segments)
            )
        )
    return FigureResult(fig, data, tuple(notes))
