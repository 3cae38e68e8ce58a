"""Loss at each token position of one long sequence (8L tokens), averaged over the held-out text's chunks: where
each scheme breaks past the trained length. Smoothed by a trailing mean over ``lab_smooth`` positions,
loss_smooth(p) = mean(loss(p - w + 1 .. p)), so the break shows at a glance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.registry import FigureResult, register
from posenc.figures.lab import common, source
from posenc.figures.lab.seeds import Spread, spread_note, stats
from posenc.i18n import N_, _
from posenc_lab.checkpoints import CheckpointError

TITLE = N_("Loss at each position of one long sequence")


def rolling_mean(values: np.ndarray, window: int) -> np.ndarray:
    """Trailing mean over ``window`` positions (fewer at the start): out[p] = mean(values[max(0, p-w+1) .. p])."""
    sums = np.cumsum(np.concatenate([[0.0], values]))
    ends = np.arange(1, values.size + 1)
    starts = np.maximum(ends - window, 0)
    return (sums[ends] - sums[starts]) / (ends - starts)


@register("lab-positions", title=TITLE, page="length_lab", params=("lab_smooth",))
def positions_figure(p: Mapping[str, Any]) -> FigureResult:
    window = p["lab_smooth"]
    try:
        views = source.seed_views()
    except CheckpointError:
        return FigureResult(common.missing(_(TITLE)))
    results = views[0]
    length, train_length = results["positions"]["length"], results["train_length"]
    title = _("Loss at each position of a {n}-token sequence (trained at L = {L})").format(n=length, L=train_length)
    fig = go.Figure()
    positions = np.arange(length)
    data: dict[str, np.ndarray] = {"position": positions.astype(np.float64)}
    absent, seeds = [], ()
    for scheme in source.SCHEME_ORDER:
        losses = [view["positions"]["loss"].get(scheme, "missing") for view in views]
        held = [(view["seed"], loss) for view, loss in zip(views, losses, strict=True) if loss != "missing"]
        if not held:
            continue
        name = common.scheme_name(scheme)
        if any(loss is None for _seed, loss in held):
            absent.append(name)
            continue
        smooth = np.stack([rolling_mean(np.asarray(loss, dtype=np.float64), window) for _seed, loss in held])
        mean, low, high = stats(smooth)
        spread = Spread(positions, mean, low, high, smooth, tuple(seed for seed, _loss in held), [])
        data |= spread.columns(scheme)
        seeds = max(seeds, spread.seeds, key=len)
        common.add_spread(
            fig, spread, name, common.SCHEME_COLORS[scheme], x=positions, hover=_("position") + " %{customdata[0]}"
        )
    common.mark_trained(fig, train_length, log2=False)
    fig.update_xaxes(title_text=_("token position in the sequence"))
    notes = [
        _("Smoothed: each point is the mean loss of the last {w} positions (a rolling mean).").format(w=window)
        if window > 1
        else _("Not smoothed: one point per position.")
    ]
    if absent:
        notes.append(
            _("{names}: no curve: the learned table has no row past L, so the model cannot read this sequence.").format(
                names=", ".join(absent)
            )
        )
    if seeds:
        notes.append(spread_note(seeds))
    fig = common.finish(fig, title, _("loss (nats per byte)"))
    fig.update_layout(hovermode="closest")
    return FigureResult(fig, data, tuple(notes))
