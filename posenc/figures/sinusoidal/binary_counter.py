"""The binary-counter picture: the bits of p (each half as fast as the one before) beside the sin channels whose
wavelengths double from one to the next (2π, 4π, 8π, ...), over the same positions."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

import torch
from plotly.subplots import make_subplots

from posenc.drawing.common import as_array
from posenc.drawing.params import ParamSpec, register_param
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import DIVERGING_SCALE
from posenc.figures.sinusoidal.params import describe
from posenc.i18n import N_, _
from posenc_core import sampling
from posenc_core.encodings import sinusoidal
from posenc_core.teaching import binary_counter

register_param(
    ParamSpec(
        "binary_positions",
        "int",
        64,
        N_("Positions counted"),
        8,
        sampling.MAX_CELLS_PER_AXIS,
        widget="number",
        help=N_("Positions 0 .. N−1 written in binary beside the sinusoidal channels (every one drawn)."),
    )
)

BIT_SCALE = [[0.0, "#f2f2f2"], [1.0, "#333333"]]  # 0 light, 1 dark: the look of a printed counter


def counter_and_waves(p: Mapping[str, Any]) -> dict[str, Any]:
    """Positions 0..N-1, their bits, the doubling pairs and their sin channel's values (the figure's numbers)."""
    positions = torch.arange(p["binary_positions"])
    n_bits = binary_counter.bits_needed(p["binary_positions"])
    chosen = binary_counter.doubling_pairs(p["d_model"], base=p["base"], layout=p["layout"], count=n_bits)
    values = sinusoidal.encoding(
        None,
        p["d_model"],
        base=p["base"],
        layout=p["layout"],
        positions=positions,
        channels=chosen.sin_channels,
        device=p["device"],
    )
    return {
        "positions": positions,
        "bits": binary_counter.bits(positions, n_bits),
        "pairs": chosen.pairs,
        "sin_channels": chosen.sin_channels,
        "wavelengths": chosen.wavelengths,
        "sin_values": values,
    }


@register(
    "sinusoidal-binary-counter",
    title=N_("Sinusoidal PE as a binary counter"),
    page="sinusoidal",
    params=("d_model", "base", "layout", "binary_positions"),
)
def binary_counter_figure(p: Mapping[str, Any]) -> FigureResult:
    run = counter_and_waves(p)
    positions = as_array(run["positions"]).astype("int64")
    n_bits, n_waves = run["bits"].shape[1], run["pairs"].numel()
    bit_names = [_("bit {k}").format(k=k) for k in range(n_bits)]
    channels, wavelengths = run["sin_channels"].tolist(), run["wavelengths"].tolist()
    wave_names = [
        _("ch {j} (λ {wavelength:.3g})").format(j=j, wavelength=lam)
        for j, lam in zip(channels, wavelengths, strict=True)
    ]
    fig = make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        subplot_titles=(_("bits of p"), _("sin(p·ω_i), λ doubling")),
        horizontal_spacing=0.08,
        column_widths=[n_bits, max(n_waves, 1)],
    )
    fig.add_heatmap(
        z=as_array(run["bits"]),
        x=bit_names,
        y=positions,
        colorscale=BIT_SCALE,
        zmin=0,
        zmax=1,
        showscale=False,
        hovertemplate=_("p = %{y}<br>%{x}<br>value %{z:.0f}") + "<extra></extra>",
        row=1,
        col=1,
    )
    fig.add_heatmap(
        z=as_array(run["sin_values"]),
        x=wave_names,
        y=positions,
        colorscale=DIVERGING_SCALE,
        zmin=-1,
        zmax=1,
        colorbar={"title": {"text": "sin", "side": "top"}, "thickness": 12, "len": 0.6},
        hovertemplate="p = %{y}<br>%{x}<br>sin %{z:.4f}<extra></extra>",
        row=1,
        col=2,
    )
    fig.update_yaxes(autorange="reversed", title_text=_("position p"), row=1, col=1)
    fig.update_xaxes(tickangle=-45)
    fig.update_layout(
        title=_("Bits of p beside sin channels, N={positions}").format(positions=p["binary_positions"])
        + f"<br>{describe(p, length=False)}",
        height=max(420, min(760, 200 + 6 * len(positions))),
        margin={"t": 110},
    )
    data = {name: as_array(run[name]) for name in ("positions", "bits", "pairs", "sin_channels", "wavelengths")}
    data["sin_values"] = as_array(run["sin_values"])
    return FigureResult(fig, data, tuple(binary_counter_notes(p, run)))


def binary_counter_notes(p: Mapping[str, Any], run: Mapping[str, Any]) -> list[str]:
    """What the two panels show, with the numbers drawn."""
    n_bits, pairs, wavelengths = run["bits"].shape[1], run["pairs"].tolist(), run["wavelengths"].tolist()
    omega = sinusoidal.inv_freq(p["d_model"], base=p["base"], layout=p["layout"], dtype=torch.float64, device="cpu")
    step = float(omega[0] / omega[1]) if omega.numel() > 1 and omega[1] > 0 else float("inf")
    ratios = [later / earlier for earlier, later in itertools.pairwise(wavelengths)]
    doubling = bool(ratios) and all(abs(math.log2(ratio) - 1) < 0.5 for ratio in ratios)
    doubled = (
        _(
            "The sin channels of pairs {pairs} have λ = {wavelengths} tokens: each about twice the one before, as the "
            "bits halve, but smooth waves instead of steps."
        )
        if doubling
        else _(
            "The sin channels of pairs {pairs} have λ = {wavelengths} tokens: the nearest to 2π·2^k this table has, "
            "not a doubling."
        )
    )
    notes = [
        _(
            "Bit k flips every 2^k positions: bit 0 at every step, bit {last} every {period:,}; each bit is half as "
            "fast as the one to its left."
        ).format(last=n_bits - 1, period=2 ** (n_bits - 1)),
        doubled.format(pairs=", ".join(map(str, pairs)), wavelengths=", ".join(f"{lam:,.3g}" for lam in wavelengths)),
    ]
    if step < 2 and len(pairs) > 1:
        notes.append(
            _(
                "Between two of them lie about {between:.1f} more pairs: λ grows by {step:.4g} per pair (not 2), so "
                "the table's channels are much denser than a counter's bits."
            ).format(between=(pairs[-1] - pairs[0]) / (len(pairs) - 1) - 1, step=step)
        )
    elif step >= 2:
        notes.append(
            _(
                "λ grows by {step:.4g} per pair, more than a bit's 2: d_model={d_model} and base={base:g} give "
                "{count} pairs spaced more widely than a counter's bits."
            ).format(step=step, d_model=p["d_model"], base=p["base"], count=omega.numel())
        )
    if len(pairs) < n_bits:
        notes.append(
            _("{count} pairs are drawn for the {bits} bits: the table has no other λ near 2π·2^k.").format(
                count=len(pairs), bits=n_bits
            )
        )
    return notes
