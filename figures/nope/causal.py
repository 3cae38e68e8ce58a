"""The causal-mask position signal: the length of uniform causal attention's output, measured on random values,
against 1/sqrt(i+1), and the position a later layer can read back from it."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from figures.common import as_array, lines
from figures.registry import FigureResult, register
from posenc_core import nope

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
    return (
        f"{p['n_sequences']} sequences of {p['nope_length']:,} random values (dim {p['value_dim']}, seed "
        f"{p['values_seed']}); {SHOWN_POSITIONS} positions at most, spaced evenly on the log axis"
    )


@register("nope-causal-norm", title="Causal mean: output length", page="nope_and_sinks", params=CAUSAL_PARAMS)
def causal_norm(p: Mapping[str, Any]) -> FigureResult:
    data = measured(p)
    x = data["position"] + 1
    fig = lines(
        x,
        {"measured ‖o_i‖ (RMS)": data["measured_norm"], "1/√(i+1)": data["law_norm"]},
        title="Uniform causal attention:<br>output length vs position",
        x_title="i + 1 (tokens seen)",
        y_title="‖o_i‖",
        log_x=True,
        log_y=True,
    )
    fig.update_traces(selector={"name": "measured ‖o_i‖ (RMS)"}, mode="markers")
    fig.update_traces(selector={"name": "1/√(i+1)"}, line={"dash": "dash"})
    return FigureResult(fig, data, (_note(p),))


@register("nope-position-readout", title="Position read from the length", page="nope_and_sinks", params=CAUSAL_PARAMS)
def position_readout(p: Mapping[str, Any]) -> FigureResult:
    data = measured(p)
    x = data["position"] + 1
    fig = lines(
        x,
        {"read: 1/‖o_i‖²": data["read_position"] + 1, "exact: i + 1": x},
        title="A later layer reads i<br>from the length alone",
        x_title="i + 1 (true)",
        y_title="1/‖o_i‖² (read)",
        log_x=True,
        log_y=True,
    )
    fig.update_traces(selector={"name": "read: 1/‖o_i‖²"}, mode="markers")
    fig.update_traces(selector={"name": "exact: i + 1"}, line={"dash": "dash"})
    return FigureResult(fig, data, (_note(p),))
