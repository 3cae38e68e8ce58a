"""Views of one learned table: the heatmap, the similarity T·Tᵀ and T[p]·T[p+k] against k."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from posenc.drawing.common import LEGEND_BELOW, as_array, heatmap, lines, sampled_note
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.shown import shown_positions
from posenc.drawing.theme import COLORWAY, DIVERGING_SCALE
from posenc.figures.learned.params import SIMILARITY_LABELS, TABLE_PARAMS
from posenc.figures.learned.sources import length_note, load, shape_text
from posenc.figures.sinusoidal.similarity import SIMILARITY_POSITIONS, measured_rows, spread_band
from posenc.i18n import N_, _
from posenc_core import sampling
from posenc_core.encodings import metrics, sinusoidal

HEATMAP_POSITIONS = 384


SCHEME_NAMES = {"learned": N_("learned"), "sinusoidal": N_("sinusoidal"), "none": N_("none")}
"""The schemes' names as the figures and tables show them (the data keep the English keys)."""


CLIP_QUANTILE = 0.995  # a few outlier rows (BERT's position 0) would wash out the rest


@register(
    "learned-heatmap",
    title=N_("Learned position table (position x channel)"),
    page="learned",
    params=(*TABLE_PARAMS, "seq_len", "view", "start"),
)
def table_heatmap(p: Mapping[str, Any]) -> FigureResult:
    table, described = load(p)
    length, width = min(p["seq_len"], table.shape[0]), table.shape[1]
    positions, position_note = shown_positions(p, length, HEATMAP_POSITIONS)
    channels = sampling.strided_positions(width, sampling.MAX_CELLS_PER_AXIS)
    values = table[positions.to(table.device)][:, channels.to(table.device)]
    magnitude = values.abs().flatten().float()
    limit = float(torch.quantile(magnitude[:: max(1, magnitude.numel() // 2**20)], CLIP_QUANTILE)) or 1.0
    fig = heatmap(
        values,
        as_array(channels).astype(np.int32),
        as_array(positions).astype(np.int64),
        title=_("Learned table[p, j]:<br>{described}, {shape}, L={seq_len:,}").format(
            described=described, shape=shape_text(table), seq_len=p["seq_len"]
        ),
        x_title=_("channel j"),
        y_title=_("position p (tokens)"),
        value_name=_("value"),
        colorscale=DIVERGING_SCALE,
        zmin=-limit,
        zmax=limit,
        reversed_y=True,
    )
    fig.update_layout(height=520, margin={"t": 90})  # a title of two lines: each fits a phone
    notes = [position_note]
    if float(magnitude.max()) > limit:
        notes.append(
            _(
                "colours saturate at ±{limit:.3g} (the {quantile:.1%} quantile of |value|; the largest is "
                "{largest:.3g}): hover shows the true values"
            ).format(limit=limit, quantile=CLIP_QUANTILE, largest=float(magnitude.max()))
        )
    if channels.numel() < width:
        notes.append(_("channels: {note}").format(note=sampled_note(channels.numel(), width, "channels")))
    notes += [note for note in (length_note(table, p["seq_len"]),) if note]
    data = {"table": as_array(values), "positions": as_array(positions), "channels": as_array(channels)}
    data["table_shape"] = np.asarray(table.shape, dtype=np.float32)  # (rows, channels) of the whole table
    return FigureResult(fig, data, tuple(notes))


@register(
    "learned-similarity",
    title=N_("Learned table: similarity of rows p and q"),
    page="learned",
    params=(*TABLE_PARAMS, "similarity", "seq_len", "view", "start"),
)
def table_similarity(p: Mapping[str, Any]) -> FigureResult:
    table, described = load(p)
    positions, note = shown_positions(p, min(p["seq_len"], table.shape[0]), SIMILARITY_POSITIONS)
    sim = metrics.similarity_matrix(table, kind=p["similarity"], rows=positions, cols=positions)
    ticks = as_array(positions).astype(np.int64)
    cosine = p["similarity"] == "cosine"
    fig = heatmap(
        sim,
        ticks,
        ticks,
        title=f"{p['similarity']}(table[p], table[q]):<br>{described}, {shape_text(table)}",
        x_title=_("position q (tokens)"),
        y_title=_("position p (tokens)"),
        value_name=_(SIMILARITY_LABELS.get(p["similarity"], p["similarity"])),
        colorscale=DIVERGING_SCALE,
        zmid=0,
        zmin=-1 if cosine else None,
        zmax=1 if cosine else None,
        reversed_y=True,
    )
    fig.update_layout(height=560, margin={"t": 90})
    notes = (note, *[n for n in (length_note(table, p["seq_len"]),) if n])
    return FigureResult(fig, {"similarity": as_array(sim), "positions": as_array(positions)}, notes)


@register(
    "learned-relative",
    title=N_("Learned vs sinusoidal: similarity against the offset k"),
    page="learned",
    params=(*TABLE_PARAMS, "similarity", "seq_len", "view", "start"),
)
def offset_profile(p: Mapping[str, Any]) -> FigureResult:
    table, described = load(p)
    length, width = min(p["seq_len"], table.shape[0]), table.shape[1]
    first = p["start"] if p["view"] == "window" else 0
    if first >= length:
        raise ValueError(
            _("start must be < {length:,} (the rows shown) in the window view (got {start:,})").format(
                length=length, start=first
            )
        )
    rows = measured_rows(width, length - first)
    offsets = torch.arange(max(1, rows // 2))
    kind = p["similarity"]
    sinus = sinusoidal.encoding(None, width, positions=torch.arange(first, first + rows), device=table.device)
    profiles = {
        "learned": metrics.offset_similarity(table[first : first + rows], offsets, kind=kind),
        "sinusoidal": metrics.offset_similarity(sinus, offsets, kind=kind),
    }
    fig = lines(
        offsets,
        {
            _("{name}: mean over p").format(name=_(SCHEME_NAMES[name])): mean
            for name, (_l, mean, _s) in profiles.items()
        },
        title=_("{kind}(table[p], table[p+k]) against k:<br>{described}, {shape}").format(
            kind=kind, described=described, shape=shape_text(table)
        ),
        x_title=_("offset k (tokens)"),
        y_title=_("{kind} similarity").format(kind=_(SIMILARITY_LABELS.get(kind, kind))),
    )
    for trace, (name, (_l, mean, std)), colour in zip(fig.data, profiles.items(), COLORWAY, strict=False):
        trace.line.color = colour
        fill = "rgba({},{},{},0.2)".format(*(int(colour[i : i + 2], 16) for i in (1, 3, 5)))
        spread_band(
            fig, offsets, mean, std, name=_("{name}: ± std over p").format(name=_(SCHEME_NAMES[name])), color=fill
        )
    fig.update_layout(legend=LEGEND_BELOW, margin={"t": 90})
    spread = {name: float(std.mean()) for name, (_l, _m, std) in profiles.items()}
    notes = (
        _(
            "measured on rows {first:,}..{last:,}: for each k, every p with p+k in that range; sinusoidal: the same "
            "positions, d_model={width:,}, base 10000, interleaved"
        ).format(first=first, last=first + rows - 1, width=width),
        _(
            "mean std over p: {spreads}: a small std means the similarity depends on the offset k only, not on where "
            "the pair sits"
        ).format(spreads="; ".join(f"{_(SCHEME_NAMES[name])} {value:.3g}" for name, value in spread.items())),
    )
    data = {"offset": as_array(offsets)}
    for name, (_l, mean, std) in profiles.items():
        data[f"{name}_mean"], data[f"{name}_std"] = as_array(mean), as_array(std)
    return FigureResult(fig, data, notes)
