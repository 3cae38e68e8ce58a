"""Passkey retrieval against length: ``key DDDDD.`` early in a filler text, ``key? `` at its end, the model asked
for the five digits. Accuracy is the share of examples whose five digits all come out right (greedy); the
passkey's distance d (from its digits to the question) grows with the length, so a model right at length n used
what lay about d bytes back. Ref: Mohtashami and Jaggi 2023, "Landmark Attention" (the passkey task)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.registry import FigureResult, register
from posenc.figures.lab import common, source
from posenc.figures.lab.seeds import spread as across_seeds
from posenc.figures.lab.seeds import spread_note
from posenc.i18n import N_, _
from posenc_lab.checkpoints import CheckpointError

TITLE = N_("Passkey retrieval against length")


def y_title(metric: str) -> str:
    return _("accuracy") if metric == "accuracy" else _("loss on the asked digits (nats)")


def accuracy_axis(fig: go.Figure, metric: str) -> None:
    if metric == "accuracy":
        fig.update_yaxes(range=[-0.03, 1.03], tickformat=".0%")


def distance_axis(fig: go.Figure, rows: list[Mapping[str, Any]]) -> None:
    """Each length tick also gives how far back the passkey sits there (the rows' mean ``distance``): accuracy is
    read against the distance as well as the length."""
    distance = {row["length"]: row.get("distance") for row in rows}
    if not distance or None in distance.values():
        return
    ticks = sorted(distance)
    fig.update_xaxes(
        tickvals=[np.log2(n) for n in ticks],
        ticktext=[f"{n}<br>{distance[n]:.0f}" for n in ticks],
        title_text=_("length (tokens, log₂ scale), and below it the passkey's distance (bytes back)"),
    )


def distance_note(rows: list[Mapping[str, Any]]) -> str:
    """How far back the passkey sits at the shortest and longest length drawn (the rows' mean ``distance``)."""
    distance = [row.get("distance") for row in rows]
    if not distance or None in distance:
        return ""
    return _("The passkey sits on average {near:.0f} bytes back at {n0} tokens and {far:.0f} at {n1}.").format(
        near=distance[0], n0=rows[0]["length"], far=distance[-1], n1=rows[-1]["length"]
    )


@register("lab-passkey", title=TITLE, page="length_lab", params=("lab_passkey_metric",))
def passkey_figure(p: Mapping[str, Any]) -> FigureResult:
    metric = p["lab_passkey_metric"]
    title = _("Passkey retrieval: {what} against length").format(
        what=_("exact-match accuracy") if metric == "accuracy" else _("loss on the asked digits")
    )
    try:
        views = source.seed_views()
    except CheckpointError:
        return FigureResult(common.missing(title))
    spreads = {scheme: across_seeds(views, ("passkey", scheme), metric) for scheme in source.SCHEME_ORDER}
    spreads = {scheme: spread for scheme, spread in spreads.items() if spread is not None}
    if not spreads:
        return FigureResult(common.absent(title, _("passkey")))
    results = views[0]
    fig = go.Figure()
    first = next(iter(spreads.values()))
    data: dict[str, np.ndarray] = {"length": first.x}
    seeds: tuple[int, ...] = ()
    for scheme, spread in spreads.items():
        below = metric == "accuracy"  # the learned table stops at 100%: its label goes under the curve, not the title
        common.add_spread(fig, spread, common.scheme_name(scheme), common.SCHEME_COLORS[scheme], label_below=below)
        data |= spread.columns(scheme)
        seeds = max(seeds, spread.seeds, key=len)
    common.length_axis(fig, first.x.astype(int).tolist(), results["train_length"])
    common.mark_trained(fig, results["train_length"])
    distance_axis(fig, first.rows)
    accuracy_axis(fig, metric)
    notes = [
        _(
            "Every model was trained on passkeys within L = {L} tokens. Right of the dashed line the passkey is "
            "farther back than any it was trained to find: a curve that stays up marks a model that can still use "
            "what is far back."
        ).format(L=results["train_length"]),
        distance_note(first.rows),
        spread_note(seeds),
    ]
    return FigureResult(common.finish(fig, title, y_title(metric)), data, tuple(n for n in notes if n))
