"""Session state shared across pages: the chosen preset (or an uploaded config.json) and link notices."""

from __future__ import annotations

from typing import Any

import streamlit as st

from posenc.drawing.params import PARAMS
from posenc.drawing.preset_params import params_from_preset
from posenc.i18n import _
from posenc_core.models import presets

CUSTOM = "custom"
FROM_CONFIG = "config"
PAGE = "_page"  # session state: the page this run draws (app.py sets it before the page runs)


def enter_page(name: str) -> None:
    """Record the page this run draws (a control's widget is a different widget on each page)."""
    st.session_state[PAGE] = name


def current_page() -> str:
    return st.session_state.get(PAGE, "")


def preset_choices() -> list[str]:
    """The preset selector's options: custom, every preset key, and an uploaded/pasted config.json."""
    return [CUSTOM, *presets.PRESETS, FROM_CONFIG]


def preset_label(key: str) -> str:
    if key == CUSTOM:
        return _("Custom (set every parameter yourself)")
    if key == FROM_CONFIG:
        return _("From a config.json (upload, paste or a model id)")
    return presets.PRESETS[key].name


def current_preset():
    """The ModelPreset in use, or None for custom."""
    key = st.session_state.get("preset", CUSTOM)
    if key == FROM_CONFIG:
        reading = st.session_state.get("config_reading")
        return reading.preset if reading is not None else None
    return presets.PRESETS.get(key)


def current_config() -> dict[str, Any] | None:
    """The uploaded config.json (as read) when the model in use comes from one, else None."""
    if st.session_state.get("preset", CUSTOM) != FROM_CONFIG:
        return None
    reading = st.session_state.get("config_reading")
    return getattr(reading, "config", None) or None


def preset_values() -> dict[str, Any]:
    """The parameter values the current preset sets (empty for custom)."""
    preset = current_preset()
    return params_from_preset(preset) if preset is not None else {}


def preset_only(names) -> dict[str, Any]:
    """Values of parameters that have no control (a model's own LongRoPE lists): the preset's, else the default."""
    values = preset_values()
    return {name: values.get(name, PARAMS[name].default) for name in names}


def preset_slug() -> str:
    key = st.session_state.get("preset", CUSTOM)
    return key if key != FROM_CONFIG else "config"


def reset_preset_params() -> None:
    """Forget the controls a preset sets, so they re-read the new preset's values on the next run."""
    for name in _all_preset_param_names():
        st.session_state.pop(name, None)
        if name in st.query_params:
            del st.query_params[name]


def _all_preset_param_names() -> set[str]:
    names: set[str] = set()
    for preset in presets.PRESETS.values():
        names.update(params_from_preset(preset))
    reading = st.session_state.get("config_reading")
    if reading is not None:
        names.update(params_from_preset(reading.preset))
    return names


def add_notice(name: str, message: str) -> None:
    st.session_state.setdefault("_notices", {})[name] = message


def pop_notice(name: str) -> str | None:
    return st.session_state.get("_notices", {}).pop(name, None)
