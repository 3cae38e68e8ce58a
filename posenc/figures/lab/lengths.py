"""Loss (or perplexity) against evaluation length for the six schemes: train short, test long.

Perplexity = e^loss, the loss in nats per byte of the held-out text. Ref: Press et al. 2022 (ALiBi, ICLR),
Fig. 1 and appendix B (sliding-window vs non-overlapping evaluation)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.registry import FigureResult, register
from posenc.figures.lab import common, source
from posenc.figures.lab.seeds import spread as across_seeds
from posenc.figures.lab.seeds import spread_note
from posenc.i18n import N_, _
from posenc_lab.checkpoints import CheckpointError

TITLE = N_("Loss against evaluation length")
MODE_WORDS = {"sliding": N_("sliding window"), "nonoverlapping": N_("non-overlapping chunks")}


def values(rows: Sequence[Mapping[str, Any]], key: str) -> np.ndarray:
    """``row[key]`` for every row, NaN where the model has none (a learned table past its last row)."""
    return np.array([np.nan if row.get(key) is None else float(row[key]) for row in rows], dtype=np.float64)


def add_curve(
    fig: go.Figure, rows, key: str, name: str, color: str, *, dash: str = "solid", log_y: bool = False
) -> None:
    """One scheme's curve at x = log2(length); where it stops (no row past L), an annotation says why."""
    lengths = np.array([row["length"] for row in rows])
    y = values(rows, key)
    fig.add_scatter(
        x=np.log2(lengths),
        y=y,
        customdata=lengths,
        name=name,
        mode="lines+markers",
        line={"color": color, "dash": dash},
        hovertemplate="%{customdata} " + _("tokens") + ": %{y:.4g}<extra>" + name + "</extra>",
    )
    past = [row for row in rows if row.get("past_table")]
    finite = np.flatnonzero(np.isfinite(y))
    if past and finite.size:
        last = finite[-1]
        fig.add_annotation(
            x=math.log2(lengths[last]),
            y=math.log10(y[last]) if log_y else y[last],  # annotations on a log axis sit at log10
            text=_("{name}: no row past L").format(name=name),
            font={"color": color},
            showarrow=True,
            arrowhead=0,
            ax=40,
            ay=-30,
        )


def mode_words(mode: str) -> str:
    """How the text was cut, in the reader's language."""
    return _(MODE_WORDS[mode])


def y_title(metric: str) -> str:
    return _("perplexity (e^loss)") if metric == "perplexity" else _("loss (nats per byte)")


@register("lab-lengths", title=TITLE, page="length_lab", params=("lab_metric", "lab_mode"))
def lengths_figure(p: Mapping[str, Any]) -> FigureResult:
    title = _("{what} against evaluation length ({mode})").format(
        what=_("Perplexity") if p["lab_metric"] == "perplexity" else _("Loss"), mode=mode_words(p["lab_mode"])
    )
    try:
        views = source.seed_views()
    except CheckpointError:
        return FigureResult(common.missing(title))
    results = views[0]
    fig = go.Figure()
    data: dict[str, np.ndarray] = {"length": np.array(results["lengths"], dtype=np.float64)}
    seeds: tuple[int, ...] = ()
    for scheme in source.SCHEME_ORDER:
        spread = across_seeds(views, ("lm", p["lab_mode"], scheme), p["lab_metric"])
        if spread is not None:
            name, color = common.scheme_name(scheme), common.SCHEME_COLORS[scheme]
            common.add_spread(fig, spread, name, color, log_y=p["lab_metric"] == "perplexity")
            data |= spread.columns(scheme)
            seeds = max(seeds, spread.seeds, key=len)
    common.length_axis(fig, results["lengths"], results["train_length"])
    common.mark_trained(fig, results["train_length"])
    if p["lab_metric"] == "perplexity":
        fig.update_yaxes(type="log")
    note = _(
        "Each model was trained on {L}-token windows only. {mode}: Press et al. (2022, appendix B) show that "
        "the way a long text is cut changes which scheme looks better, so the choice is named in the title."
    ).format(L=results["train_length"], mode=mode_words(p["lab_mode"]).capitalize())
    notes = (note, spread_note(seeds)) if seeds else (note,)
    return FigureResult(common.finish(fig, title, y_title(p["lab_metric"])), data, notes)
