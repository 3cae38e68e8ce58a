"""StreamingLLM's cache as a stream advances: which tokens it keeps and the position each one is given."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from posenc.drawing.common import heatmap
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import SEQUENTIAL_SCALE
from posenc.i18n import N_, _
from posenc_core.encodings import attention_sink


def cache_grid(stream_len: int, n_sink: int, window: int, device=None) -> np.ndarray:
    """(stream_len, stream_len): row t-1 is the cache after t tokens, cell j the position token j is given
    there (NaN where the token is not in the cache, or not streamed yet)."""
    grid = np.full((stream_len, stream_len), np.nan, dtype=np.float32)
    for step in range(1, stream_len + 1):
        kept, positions = attention_sink.cache_positions(step, n_sink=n_sink, window=window, device=device)
        grid[step - 1, kept.cpu().numpy()] = positions.cpu().numpy()
    return grid


@register(
    "sink-cache-grid",
    title=N_("StreamingLLM cache"),
    page="nope_and_sinks",
    params=("stream_len", "n_sink", "sink_window"),
)
def cache_figure(p: Mapping[str, Any]) -> FigureResult:
    n, sinks, window = p["stream_len"], p["n_sink"], p["sink_window"]
    grid = cache_grid(n, sinks, window, p["device"])
    tokens, steps = np.arange(n), np.arange(1, n + 1)
    kept = (
        _("{sinks} sinks + {window} recent").format(sinks=sinks, window=window)
        if sinks
        else _("no sinks, {window} recent").format(window=window)
    )
    fig = heatmap(
        grid,
        tokens,
        steps,
        title=_("Cache after each token:<br>{kept}").format(kept=kept),
        x_title=_("token (original index)"),
        y_title=_("tokens streamed"),
        value_name=_("position seen"),
        colorscale=SEQUENTIAL_SCALE,
        zmin=0,
        zmax=max(1, min(n, sinks + window) - 1),
        reversed_y=True,
    )
    fig.update_traces(hoverongaps=False)
    step_index, token = np.nonzero(~np.isnan(grid))  # one row per cached token per step (a tidy table)
    data = {
        "tokens_streamed": (step_index + 1).astype(np.float32),
        "token": token.astype(np.float32),
        "position_seen": grid[step_index, token],
    }
    notes = (_("blank: not in the cache (evicted, or not streamed yet)"),)
    return FigureResult(fig, data, notes)
