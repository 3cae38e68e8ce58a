"""Show a registered figure: built once per parameter set (cached), drawn, with its notes and exports."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import streamlit as st

from figures import registry
from ui import state
from ui.export_menu import export_menu

MODEBAR = {"displaylogo": False, "modeBarButtonsToRemove": ["lasso2d", "select2d"]}


@st.cache_resource(max_entries=256, show_spinner=False)
def _build_cached(figure_id: str, params_json: str, style: str) -> registry.FigureResult:
    """Build once per (figure, parameters, style); the result is shared read-only between reruns."""
    return registry.build(figure_id, json.loads(params_json), style=style)


def build(figure_id: str, params: Mapping[str, Any]) -> registry.FigureResult:
    """The figure for ``params`` (plus the sidebar's device), from the cache when it was built before."""
    full = {**params, "device": st.session_state.get("device_in_use", "auto")}
    params_json = json.dumps(full, sort_keys=True, default=_jsonable)
    with st.spinner(f"Computing {registry.get_spec(figure_id).title}…"):
        return _build_cached(figure_id, params_json, st.session_state.get("theme", "screen"))


def figure(figure_id: str, params: Mapping[str, Any]) -> registry.FigureResult | None:
    """Draw figure ``figure_id``; a core ``ValueError`` becomes a message in its place, never a traceback."""
    try:
        result = build(figure_id, params)
    except ValueError as error:
        st.error(f"{registry.get_spec(figure_id).title}: {error}", icon="🚫")
        return None
    stem = registry.file_stem(figure_id, params, state.preset_slug())
    config = {**MODEBAR, "toImageButtonOptions": {"format": "png", "filename": stem, "scale": 2}}
    st.plotly_chart(result.figure, theme=None, width="stretch", config=config, key=f"chart-{figure_id}")
    for note in result.notes:
        st.caption(note)
    export_menu(figure_id, result, stem)
    return result


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | set):
        return list(value)
    raise TypeError(f"cannot put {type(value).__name__} into figure parameters")
