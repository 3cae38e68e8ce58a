"""The RoPE model under each scaling method at evaluation, without retraining: no scaling, linear (position
interpolation, m -> m/s), NTK-aware (base -> base·s^(d/(d-2))), dynamic NTK, YaRN, LongRoPE and Llama 3's
per-band rule, each built from a config.json's ``rope_scaling`` with original_max_position_embeddings = L.

Refs: Chen et al. 2023 (PI), bloc97 2023 (NTK), Peng et al. 2023 (YaRN), Ding et al. 2024 (LongRoPE), Meta 2024
(Llama 3.1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import COLORWAY
from posenc.figures.lab import common, source
from posenc.figures.lab.lengths import mode_words
from posenc.figures.lab.seeds import spread as across_seeds
from posenc.figures.lab.seeds import spread_note
from posenc.i18n import N_, _
from posenc_lab.checkpoints import CheckpointError
from posenc_lab.scaling import SCALING_TYPES

TITLE = N_("The RoPE model under each scaling method")
METHOD_NAMES = {
    "default": N_("no scaling"),
    "linear": N_("linear (PI)"),
    "ntk": N_("NTK"),
    "dynamic": N_("dynamic NTK"),
    "yarn": N_("YaRN"),
    "longrope": N_("LongRoPE"),
    "llama3": N_("Llama 3"),
}


def method_name(rope_type: str) -> str:
    return _(METHOD_NAMES.get(rope_type, rope_type))


@register("lab-scaling", title=TITLE, page="length_lab", params=("factor", "lab_mode"))
def scaling_figure(p: Mapping[str, Any]) -> FigureResult:
    factor, mode = p["factor"], p["lab_mode"]
    title = _("The RoPE model under each scaling method, factor s = {s:g} ({mode})").format(
        s=factor, mode=mode_words(mode)
    )
    try:
        results = source.results()
        tables = {kind: source.scaled_tables(kind, factor, mode) for kind in SCALING_TYPES}
    except CheckpointError:
        return FigureResult(common.missing(title))
    fig = go.Figure()
    data: dict[str, np.ndarray] = {"length": np.array(results["lengths"], dtype=np.float64)}
    seeds: tuple[int, ...] = ()
    for index, kind in enumerate(SCALING_TYPES):
        held = [{"rows": rows, "seed": seed} for seed, rows in zip(results["seeds"], tables[kind], strict=False)]
        spread = across_seeds(held, ("rows",), "loss")
        if spread is None:  # LongRoPE away from the factor its lists were searched for
            continue
        dash = "dot" if kind == "default" else "solid"
        common.add_spread(fig, spread, method_name(kind), COLORWAY[index % len(COLORWAY)], dash=dash)
        data |= spread.columns(kind)
        seeds = max(seeds, spread.seeds, key=len)
    train_length = results["train_length"]
    common.length_axis(fig, results["lengths"], train_length)
    common.mark_trained(fig, train_length)
    note = _(
        "Each method changes only the rotation frequencies (and YaRN and LongRoPE an attention factor) of the "
        "same trained weights; original_max_position_embeddings = {L}. LongRoPE's per-pair factors were searched "
        "for this model at s = {s:g} on held-out loss, as in the paper; at other factors it is not drawn."
    ).format(L=train_length, s=results.get("scaling", {}).get("factor", 4))
    live = results.get("scaling", {}).get("factor") != factor
    if live:
        note += " " + _(
            "At this factor the model is evaluated now, on {n:,} tokens a length (the shipped rows: {m:,})."
        ).format(n=source.LIVE_TOKENS, m=results.get("scored_tokens", source.LIVE_TOKENS))
    notes = (note, spread_note(seeds)) if seeds else (note,)
    return FigureResult(common.finish(fig, title, _("loss (nats per byte)")), data, notes)
