"""Which rotary pairs follow time, height and width (mrope_section, Qwen2-VL blocks or interleaved)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from plotly.subplots import make_subplots

from posenc.drawing.common import LEGEND_BELOW, as_array, sampled_note
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY, CYCLIC_SCALE, REFERENCE_INK
from posenc.figures.mrope.params import AXES, AXIS_NAMES, LAYOUT_NAMES
from posenc.figures.mrope.segments import position_ids
from posenc.i18n import N_, _
from posenc_core import rope, sampling
from posenc_core.rope import mrope


def _check_section(section: tuple[int, ...], head_dim: int) -> tuple[int, ...]:
    if len(section) != 3:
        raise ValueError(
            _("mrope_section must have 3 items (T, H, W pairs) (got {count}: {section})").format(
                count=len(section), section=section
            )
        )
    if sum(section) != head_dim // 2:
        raise ValueError(
            _("mrope_section must add up to head_dim/2 = {half} (got {terms} = {total})").format(
                half=head_dim // 2, terms=" + ".join(map(str, section)), total=sum(section)
            )
        )
    return section


@register(
    "mrope-channels",
    title=N_("M-RoPE: which frequency pairs each axis drives, and the angles they give"),
    page="mrope",
    params=("segments", "spatial_merge_size", "mrope_section", "mrope_layout", "head_dim", "base"),
)
def channel_map(p: Mapping[str, Any]) -> FigureResult:
    head_dim, section = p["head_dim"], _check_section(tuple(p["mrope_section"]), p["head_dim"])
    layout = p["mrope_layout"]
    inv_freq = rope.inv_freq(head_dim, p["base"], device=p["device"])[0]
    axis_of = mrope.channel_axes(section, layout=layout, device=p["device"]).cpu()  # (d/2,) 0 = T, 1 = H, 2 = W
    _segments, ids = position_ids(p)
    shown = sampling.strided_positions(ids.shape[1], sampling.MAX_CELLS_PER_AXIS)
    theta = mrope.angles(ids[:, shown], inv_freq, section, layout=layout).cpu()  # (P, d/2)
    pairs = np.arange(head_dim // 2, dtype=np.float32)
    wavelength = as_array(rope.wavelengths(inv_freq))
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.35, 0.65],
        vertical_spacing=0.08,
        subplot_titles=(
            _("wavelength 2π/θ_i of each pair, by the axis that turns it"),
            _("angle mod 2π per token and pair"),
        ),
    )
    for a, axis in enumerate(AXES):
        chosen = (axis_of == a).numpy()
        fig.add_scatter(
            x=pairs[chosen],
            y=wavelength[chosen],
            mode="markers",
            marker={"color": COLORWAY[a], "size": 6},
            name=_("{axis}: {count} pairs ({name} id)").format(
                axis=axis, count=int(chosen.sum()), name=_(AXIS_NAMES[axis])
            ),
            hovertemplate=_("pair %{x}")
            + "<br>"
            + _("axis {axis}").format(axis=axis)
            + "<br>"
            + _("wavelength %{y:.6g} tokens")
            + "<extra></extra>",
            row=1,
            col=1,
        )
    fig.add_heatmap(
        z=as_array(torch.remainder(theta, 2 * math.pi)),
        x=pairs,
        y=as_array(shown),
        colorscale=CYCLIC_SCALE,
        zmin=0,
        zmax=2 * math.pi,
        colorbar={"title": {"text": "rad"}, "len": 0.6, "y": 0.3},
        hovertemplate=_("token %{y:,}<br>pair %{x}<br>angle mod 2π %{z:.4f}") + "<extra></extra>",
        row=2,
        col=1,
    )
    if layout == "qwen2_vl":
        for boundary in np.cumsum(section)[:-1]:
            fig.add_vline(x=float(boundary) - 0.5, line={"color": REFERENCE_INK, "dash": "dash", "width": 1})
    fig.update_yaxes(type="log", title_text=_("wavelength (tokens)"), row=1, col=1)
    fig.update_yaxes(autorange="reversed", title_text=_("token index"), row=2, col=1)
    fig.update_xaxes(title_text=_("pair index i"), row=2, col=1)
    fig.update_layout(
        title=_("M-RoPE pairs per axis, mrope_section={section} ({layout}), head_dim={head_dim}, base={base:g}").format(
            section=",".join(map(str, section)), layout=_(LAYOUT_NAMES[layout]), head_dim=head_dim, base=p["base"]
        ),
        height=760,
        legend=LEGEND_BELOW,
    )
    check = _text_only_difference(ids.shape[1], inv_freq, section, layout)
    notes = (
        _pairs_note(section, layout, head_dim),
        _("angle heatmap: {sampled}").format(sampled=sampled_note(shown.numel(), ids.shape[1], "tokens")),
        _(
            "text only ({count:,} text tokens): the M-RoPE angles equal the 1-D RoPE angles m·θ_i, largest "
            "difference {check:.1g}"
        ).format(count=ids.shape[1], check=check),
    )
    data = {"pair": pairs, "axis": as_array(axis_of), "wavelength": wavelength, "tokens": as_array(shown)}
    data["angles"] = as_array(theta)
    return FigureResult(fig, data, notes)


def _pairs_note(section: tuple[int, ...], layout: str, head_dim: int) -> str:
    half = head_dim // 2
    if layout == "qwen2_vl":
        h_end = section[0] + section[1]
        where = _(
            "pairs 0–{t_end} (the fastest) turn with T, {h_first}–{h_end} with H, {w_first}–{w_end} with W"
        ).format(t_end=section[0] - 1, h_first=section[0], h_end=h_end - 1, w_first=h_end, w_end=half - 1)
    else:
        tail = 3 * max(section[1], section[2])  # past the last H or W pair every pair is T
        where = _("pairs cycle T, H, W, T, H, W, … (each axis gets fast and slow frequencies)")
        where += _("; pairs {first}–{last} all go to T").format(first=tail, last=half - 1) if tail < half else ""
    return _("{where}; in the half layout pair i is channels i and i + {half}").format(where=where, half=half)


def _text_only_difference(n: int, inv_freq: torch.Tensor, section: tuple[int, ...], layout: str) -> float:
    """max |M-RoPE angle − 1-D RoPE angle| over a text-only sequence of n tokens (0: they are the same)."""
    ids = mrope.position_ids([mrope.TextSegment(n)], device=inv_freq.device)
    text_angles = mrope.angles(ids, inv_freq, section, layout=layout)
    return float((text_angles - rope.angles(torch.arange(n), inv_freq)).abs().max())
