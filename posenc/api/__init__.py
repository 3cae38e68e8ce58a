"""posenc in a notebook: any figure of the app by its id, for a model preset or a config.json, with overrides.

    import posenc
    fig = posenc.figure("rope-angles", preset="llama-3.1-8b", seq_len=131072)   # a plotly.graph_objects.Figure
    data = posenc.figure_data("rope-angles", preset="llama-3.1-8b")             # {name: numpy array}
    posenc.list_figures(); posenc.presets(); posenc.parameters("rope-angles")
    posenc.save_figure("rope-angles", "angles.png", preset="llama-3.1-8b", size="column")

A figure is built the way the app and the batch exporter (``posenc export``) build it: the preset's values
(:func:`posenc.drawing.preset_params.params_from_preset`), then the overrides, resolved against the figure's declared
parameters by :func:`posenc.drawing.registry.resolve_params` and drawn by :func:`posenc.drawing.registry.build`. So
the figure equals the app's for the same parameters, and its data are the arrays the app's Export menu writes as
CSV / NumPy (:attr:`posenc.drawing.registry.FigureResult.data`).

Unlike the app, which replaces a bad value from a link by the nearest valid one, a bad argument here raises
``ValueError`` naming the argument and what is allowed; a preset value outside the app's range is clamped as the
app does, with a ``UserWarning``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posenc import figures, i18n
from posenc.api.inputs import Parameter, check_choice, check_lang, describe, read_config, suggest
from posenc.drawing import export, registry
from posenc.drawing.params import PARAMS
from posenc.drawing.preset_params import params_from_preset
from posenc.drawing.theme import SIZES
from posenc_core.models import presets as core_presets
from posenc_core.models.presets import ModelPreset

figures.register_all()  # the API starts here: every figure family and its parameters, before STYLES reads them

__all__ = ["figure", "figure_data", "list_figures", "parameters", "presets", "read_config", "save_figure"]

STYLES = PARAMS["theme"].choices  # screen, slides-light, slides-dark: the sidebar's "Figure style"
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf", ".html": "html", ".csv": "csv", ".npy": "npy", ".npz": "npy"}


def list_figures(page: str | None = None, *, lang: str = "en") -> dict[str, str]:
    """Every registered figure id with its title (in ``lang``), in the app's order; only ``page``'s when given
    (``"rope"``, ``"context_extension"``, ...: the app page that shows it)."""
    check_lang(lang)
    pages = sorted({spec.page for spec in registry.FIGURES.values()})
    if page is not None and page not in pages:
        raise ValueError(f"page must be one of {', '.join(pages)} (got {page!r}){suggest(page, pages)}")
    with i18n.language(lang):
        return {spec.id: i18n._(spec.title) for spec in registry.FIGURES.values() if page is None or spec.page == page}


def presets() -> dict[str, str]:
    """The model presets: key (what ``preset=`` takes) -> the model's name."""
    return {key: preset.name for key, preset in core_presets.PRESETS.items()}


def parameters(
    figure_id: str,
    *,
    preset: str | ModelPreset | None = None,
    config: Any = None,
    lang: str = "en",
    **overrides: Any,
) -> dict[str, Parameter]:
    """The parameters figure ``figure_id`` takes: for each, the value it would be drawn with (for ``preset`` or
    ``config`` and ``overrides``), its default, and the values allowed given the others (``head_dim`` 64 leaves
    ``pair`` 0 to 31). Labels in ``lang``."""
    check_lang(lang)
    params = _resolve(figure_id, preset, config, overrides, stacklevel=3)
    with i18n.language(lang):
        return {name: describe(PARAMS[name], params) for name in params}


def _resolve(
    figure_id: str, preset: Any, config: Any, overrides: Mapping[str, Any], *, stacklevel: int
) -> dict[str, Any]:
    """The parameter values figure ``figure_id`` is built from: defaults, the preset's (or the config's) values,
    then ``overrides``. An override the figure does not take, or that is not valid, raises ``ValueError``; a
    preset's value clamped to the app's range gives a warning ``stacklevel`` frames up (the caller's line)."""
    spec = _spec(figure_id)
    accepted = (*spec.params, "device")
    given = {}
    for name, raw in overrides.items():
        if name not in accepted:
            raise ValueError(
                f"figure {figure_id!r} takes no parameter {name!r}; it takes {', '.join(accepted)}"
                f"{suggest(name, accepted)}"
            )
        with i18n.language(i18n.DEFAULT):
            given[name] = PARAMS[name].parse(raw)
    from_model = _model_values(preset, config)
    with i18n.language(i18n.DEFAULT):
        params, messages = registry.resolve_params(figure_id, {**from_model, **given})
        for name, value in given.items():
            if params[name] != value:  # valid alone, but not with the other values (start past seq_len, ...)
                allowed = PARAMS[name].within(params).allowed()
                raise ValueError(f"{name}={value!r} is outside the range the other parameters allow ({allowed})")
    for message in messages:  # only the preset's values are left: clamped to the app's range, as the app does
        warnings.warn(f"{figure_id}: the model's {message}", UserWarning, stacklevel=stacklevel)
    return params


def figure(
    figure_id: str,
    *,
    preset: str | ModelPreset | None = None,
    config: Any = None,
    lang: str = "en",
    style: str = "screen",
    size: str | None = None,
    **overrides: Any,
) -> go.Figure:
    """The figure ``figure_id`` (see :func:`list_figures`) as a ``plotly.graph_objects.Figure``.

    ``preset`` is a model preset's key (:func:`presets`); ``config`` a model's ``config.json`` (a path, a dict or
    its JSON text), read as the app's "From a config.json" reads it; ``overrides`` set any parameter the figure
    takes (:func:`parameters`), e.g. ``seq_len=131072``. ``lang`` is ``en``, ``ko`` or ``zh-CN``; ``style`` the
    app's figure style. ``size`` (``screen``, ``slide``, ``column``, ``two-columns``) lays the figure out on that
    page with its width and height set, as an exported image is; None leaves it as the app draws it (any width).
    """
    if size is not None:
        check_choice("size", size, SIZES)
    result = _build(figure_id, preset, config, lang, style, overrides)
    if size is None:
        return go.Figure(result.figure)
    with i18n.language(lang):
        laid_out, width, height = export.laid_out(result.figure, style, size)
    return laid_out.update_layout(width=width, height=height)


def figure_data(
    figure_id: str,
    *,
    preset: str | ModelPreset | None = None,
    config: Any = None,
    lang: str = "en",
    **overrides: Any,
) -> dict[str, np.ndarray]:
    """The named arrays behind :func:`figure` for the same arguments: what the app's Export menu writes as CSV or
    .npz (``positions``, ``angle_mod_2pi``, ...; empty for a figure drawn from no data). Copies, yours to change.
    ``lang`` matters only where a name is a translated label."""
    result = _build(figure_id, preset, config, lang, "screen", overrides)
    return {name: np.array(values, copy=True) for name, values in result.data.items()}


def save_figure(
    figure_id: str,
    path: str | os.PathLike,
    *,
    preset: str | ModelPreset | None = None,
    config: Any = None,
    lang: str = "en",
    style: str = "screen",
    size: str = "screen",
    scale: float | None = None,
    **overrides: Any,
) -> Path:
    """Write figure ``figure_id`` to ``path`` as the app's Export menu and ``posenc export`` do; the format follows
    the suffix (.png .svg .pdf .html .csv .npy .npz). Images are drawn on ``size``'s page; PNG at ``scale`` pixels
    per CSS pixel (default: the size's). Images need Chrome or Chromium (ValueError saying how to get one when
    there is none); HTML and the data do not. Several arrays are written as .npz whatever the suffix. Returns the
    path written."""
    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"path must end in one of {', '.join(FORMATS)} (got {str(path)!r})")
    check_choice("size", size, SIZES)
    result = _build(figure_id, preset, config, lang, style, overrides)
    if fmt in ("csv", "npy") and not result.data:
        raise ValueError(f"figure {figure_id!r} has no data behind it to write as {path.suffix}")
    with i18n.language(lang):
        exported = export.export(result, fmt, style=style, size=size, scale=scale)
    target = path.with_suffix(f".{exported.extension}")
    target.write_bytes(exported.content)
    return target


def _build(
    figure_id: str, preset: Any, config: Any, lang: str, style: str, overrides: Mapping[str, Any]
) -> registry.FigureResult:
    check_lang(lang)
    check_choice("style", style, STYLES)
    params = _resolve(figure_id, preset, config, overrides, stacklevel=4)
    with i18n.language(lang):
        return registry.build(figure_id, params, style=style)


def _spec(figure_id: str) -> registry.FigureSpec:
    if not isinstance(figure_id, str) or figure_id not in registry.FIGURES:
        raise ValueError(
            f"figure_id {figure_id!r} is not a figure; see posenc.list_figures()"
            f"{suggest(str(figure_id), registry.FIGURES)}"
        )
    return registry.FIGURES[figure_id]


def _model_values(preset: str | ModelPreset | None, config: Any) -> dict[str, Any]:
    """The parameter values a preset (its key or name, or a ModelPreset) or a config.json sets."""
    if preset is not None and config is not None:
        raise ValueError("give preset or config, not both")
    if config is not None:
        return params_from_preset(read_config(config).preset)
    if preset is None:
        return {}
    if isinstance(preset, ModelPreset):
        return params_from_preset(preset)
    try:
        return params_from_preset(core_presets.get_preset(preset))
    except ValueError as error:
        raise ValueError(f"{error}{suggest(str(preset), core_presets.PRESETS)}") from None
