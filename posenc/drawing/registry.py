"""The registry of figures: every figure the app shows and the exporter writes, by a stable id.

A builder takes a mapping of parameter values (names from :mod:`drawing.params`) and returns a
:class:`FigureResult`: the Plotly figure and the arrays behind it. The app, the command-line exporter and the
tests all go through :func:`build`, so an exported file equals what the app shows for the same parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc.drawing.params import PARAMS
from posenc.drawing.phone_fit import fit_to_projector, plot_height
from posenc.drawing.theme import apply_style


@dataclass
class FigureResult:
    """A built figure, the named arrays behind it (for CSV / .npy export) and notes for the reader."""

    figure: go.Figure
    data: dict[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class FigureSpec:
    id: str
    title: str
    page: str
    params: tuple[str, ...]
    builder: Callable[[Mapping[str, Any]], FigureResult]


FIGURES: dict[str, FigureSpec] = {}

# Short names used in file names: rope-angles_llama-3.1-8b_L131072_hd128.png
FILE_ABBREVIATIONS = {
    "seq_len": "L",
    "d_model": "d",
    "embedding_dim": "d",
    "head_dim": "hd",
    "base": "b",
    "n_heads": "H",
    "factor": "s",
    "rope_type": "",
    "layout": "",
    "rope_layout": "",
    "mode": "",
}


def register(figure_id: str, *, title: str, page: str, params: tuple[str, ...]):
    """Decorator adding a builder to :data:`FIGURES` under ``figure_id``."""

    def decorate(builder: Callable[[Mapping[str, Any]], FigureResult]):
        unknown = [name for name in params if name not in PARAMS]
        if unknown:
            raise ValueError(f"figure {figure_id!r} uses unregistered parameters {unknown}")
        if figure_id in FIGURES:
            raise ValueError(f"figure id {figure_id!r} is registered twice")
        FIGURES[figure_id] = FigureSpec(figure_id, title, page, tuple(params), builder)
        return builder

    return decorate


def get_spec(figure_id: str) -> FigureSpec:
    if figure_id not in FIGURES:
        raise ValueError(f"unknown figure {figure_id!r}; known figures: {', '.join(sorted(FIGURES))}")
    return FIGURES[figure_id]


def params_for(spec: FigureSpec, values: Mapping[str, Any]) -> dict[str, Any]:
    """The values of the parameters ``spec`` declares, taken from ``values`` (which may hold more, e.g. a whole
    page's controls; ``device`` is passed on when present). A ValueError names every declared one missing."""
    missing = [name for name in spec.params if name not in values]
    if missing:
        raise ValueError(f"figure {spec.id!r} needs the parameters {', '.join(missing)}, which were not given")
    return {name: values[name] for name in (*spec.params, "device") if name in values}


def resolve_params(figure_id: str, given: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The figure's parameters: defaults, overridden by ``given`` (coerced; messages for bad values), then each
    one kept within the range the others allow (``ParamSpec.within``: a pair below rotary_dim/2, ...)."""
    spec = get_spec(figure_id)
    values, messages = {}, []
    for name in (*spec.params, "device"):
        param = PARAMS[name]
        if name in given:
            values[name], message = param.coerce(given[name])
            if message:
                messages.append(message)
        else:
            values[name] = param.default
    for name in spec.params:
        narrowed = PARAMS[name].within(values)
        values[name], message = narrowed.coerce(values[name])
        if message and name in given:
            messages.append(message)
    return params_for(spec, values), messages


def build(figure_id: str, params: Mapping[str, Any], *, style: str = "screen") -> FigureResult:
    """Build figure ``figure_id`` from already valid ``params`` and style it; in a slide style, lay it out for
    presenter mode (``phone_fit.fit_to_projector``: a projector's chart, larger text). Core errors raise
    ValueError."""
    spec = get_spec(figure_id)
    result = spec.builder(params)
    on_screen = plot_height(result.figure)
    apply_style(result.figure, style)
    if style.startswith("slides"):
        fit_to_projector(result.figure, on_screen)
    return result


def file_stem(
    figure_id: str,
    params: Mapping[str, Any],
    preset: str | None = None,
    *,
    style: str | None = None,
    size: str | None = None,
) -> str:
    """A file name (without extension) stating the figure, its main parameters and, when given, the style and the
    size preset it was drawn at: rope-angles_llama-3.1-8b_L131072_hd128_slides-light_column."""
    spec = get_spec(figure_id)
    parts = [figure_id, preset or "custom"]
    for name in spec.params:
        if name in FILE_ABBREVIATIONS and name in params:
            parts.append(FILE_ABBREVIATIONS[name] + PARAMS[name].to_url(params[name]))
    return with_look("_".join(part.replace("/", "-").replace(" ", "-") for part in parts), style, size)


def with_look(stem: str, style: str | None = None, size: str | None = None) -> str:
    """``stem`` followed by the style and the size preset, those given: rope-angles_custom_hd128_screen_slide."""
    return "_".join(part for part in (stem, style, size) if part)
