"""Context extension: rotation angles past the trained length, original against scaled, for a few pairs.

Positions run from 0 to max(seq_len, s·L, 2L) (at most the app's 1,048,576). A pair with at least
``SAMPLES_PER_TURN`` samples per turn is drawn at evenly spaced exact positions; a faster one as the min/max
envelope of every position in each pixel column (:func:`posenc_core.sampling.envelope`). That is stricter than
Nyquist (2 per turn, ``sampling.aliases``): a sawtooth with fewer samples per turn reads as noise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from plotly.subplots import make_subplots

from posenc.drawing.common import LEGEND_BELOW, as_array
from posenc.drawing.common_params import MAX_SEQ_LEN
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import REFERENCE_INK
from posenc.figures.context.params import PAGE, SCALING_PARAMS
from posenc.figures.context.style import VARIANT_COLOURS
from posenc.figures.context.variants import (
    VARIANT_LABELS,
    describe,
    extended_context,
    original_frequencies,
    variant_frequencies,
    variant_label,
)
from posenc.i18n import N_, _
from posenc_core import rope, sampling

CURVE_POSITIONS = sampling.MAX_CURVE_POINTS // 2  # sampled positions of one slow curve


ENVELOPE_COLUMNS = 1024  # min/max columns of one fast curve


ROW_HEIGHT = 170  # pixels of plot per pair


SAMPLES_PER_TURN = 8  # fewer samples per turn of a pair: draw its envelope instead


ORIGINAL_COLOUR = "#888888"


def chosen_pairs(wavelength: torch.Tensor, length: int) -> list[int]:
    """Up to four pairs across the spectrum: wavelength nearest L/16 and L/2, the first pair whose wavelength
    reaches L (it never completes a turn in training), and the slowest pair."""
    log_wavelength = torch.log(wavelength.double())
    picks = [int(torch.argmin((log_wavelength - math.log(length / k)).abs())) for k in (16, 2)]
    reaching = torch.nonzero(wavelength >= length).flatten()
    picks += [int(reaching[0]) if reaching.numel() else wavelength.numel() - 1, wavelength.numel() - 1]
    return sorted(set(picks))


def angle_positions(p: Mapping[str, Any]) -> tuple[int, torch.Tensor]:
    """The last position + 1 (max(seq_len, s·L, 2L), capped) and the evenly spaced exact positions drawn."""
    end = min(max(p["seq_len"], extended_context(p), 2 * p["original_max_position_embeddings"]), MAX_SEQ_LEN)
    return end, sampling.sampled_positions(end, CURVE_POSITIONS)


def _angle_mod_turn(positions: torch.Tensor, inv: torch.Tensor) -> torch.Tensor:
    """The core's angle m·θ (float32, as HF computes it) of a one-pair inv_freq, wrapped into [0, 2π)."""
    return torch.remainder(rope.angles(positions, inv).flatten().double(), 2 * math.pi)


def _add_curve(fig, row: int, name: str, colour: str, positions, stride: float, end: int, inv, show_legend):
    """Draw angle mod 2π of one pair (``inv`` of shape (1,)): samples where they do not alias, else the min/max
    envelope of every position. ``name``: the legend entry, in the reader's language."""
    common = {"name": name, "legendgroup": name, "showlegend": show_legend, "line": {"color": colour}}
    if float(rope.wavelengths(inv)) >= SAMPLES_PER_TURN * stride:
        angle = _angle_mod_turn(positions, inv)
        fig.add_scatter(
            x=as_array(positions),
            y=as_array(angle),
            mode="lines",
            row=row,
            col=1,
            **common,
            hovertemplate=name + "<br>" + _("position %{x:,}<br>angle mod 2π %{y:.4f} rad") + "<extra></extra>",
        )
        return as_array(angle), "samples"
    every = torch.arange(end, dtype=torch.float32)  # exact integers (< 2^24), and fast
    env = sampling.envelope(_angle_mod_turn(every, inv), ENVELOPE_COLUMNS)
    x = as_array(env.first)
    fig.add_scatter(
        x=np.concatenate([x, x[::-1]]),
        y=np.concatenate([as_array(env.high), as_array(env.low)[::-1]]),
        fill="toself",
        fillcolor=colour,
        opacity=0.35,
        mode="lines",
        row=row,
        col=1,
        hoverinfo="skip",
        **common,
    )
    return np.stack([as_array(env.low), as_array(env.high)]), "envelope"


def _axes(row: int) -> tuple[str, str]:
    suffix = "" if row == 1 else str(row)
    return f"x{suffix}", f"y{suffix}"


def _line(row: int, *, x: float | None = None, y: float | None = None, colour=REFERENCE_INK, dash="dash") -> dict:
    """A vertical line at position x, or a horizontal line at angle y, across subplot ``row``."""
    xref, yref = _axes(row)
    line = {"type": "line", "line": {"color": colour, "dash": dash, "width": 1}}
    if x is not None:
        return line | {"xref": xref, "yref": f"{yref} domain", "x0": x, "x1": x, "y0": 0, "y1": 1}
    return line | {"xref": f"{xref} domain", "yref": yref, "x0": 0, "x1": 1, "y0": y, "y1": y}


def _shade(row: int, x0: float, x1: float) -> dict:
    """The trained range x0..x1 shaded across subplot ``row``."""
    xref, yref = _axes(row)
    return {
        "type": "rect",
        "xref": xref,
        "yref": f"{yref} domain",
        "x0": x0,
        "x1": x1,
        "y0": 0,
        "y1": 1,
        "fillcolor": "rgba(44,160,44,0.10)",
        "line": {"width": 0},
        "layer": "below",
    }


def _merged(marks: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """One mark per position: marks that coincide (s·L = seq_len, the lesson's and a link's usual choice) share one
    line and one legend entry, "s·L = seq_len", drawn in the first one's dash."""
    by_position: dict[int, tuple[int, str, str]] = {}
    for x, text, dash in marks:
        first = by_position.get(x)
        by_position[x] = (x, f"{first[1]} = {text}", first[2]) if first else (x, text, dash)
    return list(by_position.values())


def _legend_keys(fig, length: int, marks) -> None:
    """Legend entries (no data) for the trained-range shading and the vertical lines."""
    fig.add_scatter(
        x=[None],
        y=[None],
        mode="markers",
        name=_("trained range 0..L={length:,}").format(length=length),
        marker={"symbol": "square", "size": 12, "color": "rgba(44,160,44,0.25)"},
    )
    for x, text, dash in marks:
        fig.add_scatter(
            x=[None],
            y=[None],
            mode="lines",
            name=f"{text} = {x:,}",
            line={"color": REFERENCE_INK, "dash": dash, "width": 1},
        )


def _all_positions(end: int) -> str:
    return _("all {count:,} positions").format(count=end)


def _positions_note(shown: int, end: int) -> str:
    """Which positions the slow curves are drawn at (as ``drawing.common.sampled_note`` says it, translated)."""
    if shown >= end:
        return _all_positions(end)
    return _("sampled: {shown:,} of {total:,} positions, evenly spaced (exact values at those positions)").format(
        shown=shown, total=end
    )


@register(
    "context-angles",
    title=N_("Rotation angles past the trained length, original vs scaled"),
    page=PAGE,
    params=SCALING_PARAMS,
)
def angles_past_training(p: Mapping[str, Any]) -> FigureResult:
    length, variant = p["original_max_position_embeddings"], p["rope_type"]
    original = original_frequencies(p)
    scaled, _factor = variant_frequencies(variant, p, original.numel())
    wavelength = rope.wavelengths(original)
    pairs = chosen_pairs(wavelength, length)
    end, positions = angle_positions(p)
    stride = sampling.sampling_stride(positions)
    titles = [
        _("pair {i}: λ = {before:,.0f} → {after:,.0f} tokens, {turns:.3g} turns in L").format(
            i=i,
            before=float(wavelength[i]),
            after=float(rope.wavelengths(scaled[i : i + 1])),
            turns=length / float(wavelength[i]),
        )
        for i in pairs
    ]
    fig = make_subplots(rows=len(pairs), cols=1, shared_xaxes=True, subplot_titles=titles, vertical_spacing=0.07)
    data, drawn, shapes = {"positions": as_array(positions)}, set(), []
    marks = [
        (x, text, dash)
        for x, text, dash in (
            (length, "L", "dash"),
            (extended_context(p), "s·L", "dot"),
            (p["seq_len"], "seq_len", "dashdot"),
        )
        if x <= end
    ]
    marks = _merged(marks)
    key = VARIANT_LABELS[variant].split(" ")[0] if variant != "default" else "scaled"  # the data's, in English
    label = variant_label(variant) if variant != "default" else _("no scaling (default)")
    for row, i in enumerate(pairs, start=1):
        for name, shown, inv, colour in (
            ("original", _("original"), original, ORIGINAL_COLOUR),
            (key, label, scaled, VARIANT_COLOURS.get(variant, "#1f77b4")),
        ):
            values, how = _add_curve(fig, row, shown, colour, positions, stride, end, inv[i : i + 1], row == 1)
            data[f"pair{i}_{name}_{how}"] = values
            drawn.add(how)
        trained_max = float(rope.angles([length - 1], original[i : i + 1]))
        if trained_max < 2 * math.pi:
            shapes.append(_line(row, y=trained_max, colour=ORIGINAL_COLOUR, dash="dot"))
        fig.update_yaxes(
            range=[0, 2 * math.pi],
            tickvals=[0, math.pi, 2 * math.pi],
            ticktext=["0", "π", "2π"],
            title_text="rad",
            row=row,
            col=1,
        )
        shapes.append(_shade(row, 0, length))
        for x, _text, dash in marks:
            shapes.append(_line(row, x=x, dash=dash))
    fig.update_layout(shapes=shapes)  # one layout update: plotly's per-shape row="all" is slow
    _legend_keys(fig, length, marks)
    fig.update_xaxes(title_text=_("position m (tokens)"), row=len(pairs), col=1)
    fig.update_layout(
        title=_("Angle m·θ_i mod 2π past the trained length, {label}<br>{described}, positions 0..{last:,}").format(
            label=label, described=describe(p), last=end - 1
        ),
        height=ROW_HEIGHT * len(pairs) + 230,
        legend=LEGEND_BELOW,
        margin={"t": 100, "b": 130},
    )
    notes = [
        _(
            "Green: the trained range 0..L. Dotted: the largest angle a slow pair reached in training; past L the "
            "original angle leaves it, the scaled one stays near it up to s·L."
        ),
        _positions_note(positions.numel(), end) if "samples" in drawn else _all_positions(end),
    ]
    if end < max(p["seq_len"], extended_context(p)):
        notes.append(
            _("Positions stop at the app's limit of {end:,}; s·L = {extended:,} lies beyond.").format(
                end=end, extended=extended_context(p)
            )
        )
    if "envelope" in drawn:
        notes.append(
            _(
                "Shaded bands: pairs that turn faster than once every {stride:,.0f} positions ({samples} samples) "
                "are drawn as the min/max of all positions in each of {columns} columns (samples would alias or "
                "blur)."
            ).format(stride=SAMPLES_PER_TURN * stride, samples=SAMPLES_PER_TURN, columns=ENVELOPE_COLUMNS)
        )
    if variant in ("dynamic", "longrope"):
        notes.append(
            _("{variant}: the frequencies for a sequence of seq_len={seq_len:,} tokens.").format(
                variant=variant_label(variant), seq_len=p["seq_len"]
            )
        )
    return FigureResult(fig, data, tuple(notes))
