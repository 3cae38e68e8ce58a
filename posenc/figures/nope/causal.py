"""The causal-mask position signal: the length of uniform causal attention's output, measured on random values,
against 1/sqrt(i+1), and the position a later layer can read back from it."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from posenc.drawing.common import as_array, lines
from posenc.drawing.registry import FigureResult, register
from posenc.i18n import N_, _
from posenc_core.encodings import nope

CAUSAL_PARAMS = ("nope_length", "value_dim", "n_sequences", "values_seed")
SHOWN_POSITIONS = 96  # log-spaced positions drawn (a log axis shows decades evenly)


def shown_positions(length: int) -> np.ndarray:
    """About 96 positions from 0 to length - 1, spaced evenly on a log axis of i + 1 (int64, increasing)."""
    return np.unique(np.round(np.geomspace(1, length, SHOWN_POSITIONS)).astype(np.int64) - 1)


def measured(p: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The arrays both figures draw: positions, measured RMS norms, the law, and the position read back
    (computed once per parameter set for the two figures)."""
    return dict(_measured(p["nope_length"], p["value_dim"], p["n_sequences"], p["values_seed"], p["device"]))


@functools.lru_cache(maxsize=8)
def _measured(length: int, dim: int, n_sequences: int, seed: int, device) -> dict[str, np.ndarray]:
    positions = shown_positions(length)
    norms = nope.causal_mean_output_norms(positions, dim=dim, n_sequences=n_sequences, seed=seed, device=device)
    return {
        "position": as_array(positions),
        "measured_norm": as_array(norms),
        "law_norm": as_array(nope.causal_mean_norm_law(positions, device=device)),
        "read_position": as_array(nope.position_from_norm(norms, device=device)),
    }


def _note(p: Mapping[str, Any]) -> str:
    return _(
        "{sequences} sequences of {length:,} random values (dim {dim}, seed {seed}); {shown} positions at most, "
        "spaced evenly on the log axis"
    ).format(
        sequences=p["n_sequences"],
        length=p["nope_length"],
        dim=p["value_dim"],
        seed=p["values_seed"],
        shown=SHOWN_POSITIONS,
    )


@register("nope-causal-norm", title=N_("Causal mean: output length"), page="nope_and_sinks", params=CAUSAL_PARAMS)
def causal_norm(p: Mapping[str, Any]) -> FigureResult:
    data = measured(p)
    x = data["position"] + 1
    measured_name = _("measured ‖o_i‖ (RMS)")
    fig = lines(
        x,
        {measured_name: data["measured_norm"], "1/√(i+1)": data["law_norm"]},
        title=_("Uniform causal attention:<br>output length vs position"),
        x_title=_("i + 1 (tokens seen)"),
        y_title="‖o_i‖",
        log_x=True,
        log_y=True,
    )
    fig.update_traces(selector={"name": measured_name}, mode="markers")
    fig.update_traces(selector={"name": "1/√(i+1)"}, line={"dash": "dash"})
    return FigureResult(fig, data, (_note(p),))


@register(
    "nope-position-readout", title=N_("Position read from the length"), page="nope_and_sinks", params=CAUSAL_PARAMS
)
def position_readout(p: Mapping[str, Any]) -> FigureResult:
    data = measured(p)
    x = data["position"] + 1
    read_name, exact_name = _("read: 1/‖o_i‖²"), _("exact: i + 1")
    fig = lines(
        x,
        {read_name: data["read_position"] + 1, exact_name: x},
        title=_("A later layer reads i<br>from the length alone"),
        x_title=_("i + 1 (true)"),
        y_title=_("1/‖o_i‖² (read)"),
        log_x=True,
        log_y=True,
    )
    fig.update_traces(selector={"name": read_name}, mode="markers")
    fig.update_traces(selector={"name": exact_name}, line={"dash": "dash"})
    return FigureResult(fig, data, (_note(p),))
