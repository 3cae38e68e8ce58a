"""The sidebar shared by every page: model preset (or a config.json), compute device, figure style."""

from __future__ import annotations

import streamlit as st

from posenc.drawing.params import PARAMS
from posenc.drawing.plain_text import quoted
from posenc.i18n import _
from posenc.ui import config_reader, echo, language, link, model_id, state
from posenc_core.device import available_devices, resolve_device

DEVICE_CHOICES = PARAMS["device"].choices
THEMES = dict(PARAMS["theme"].choice_labels)


def render() -> None:
    """Draw the shared sidebar; its values live in session state and in the URL."""
    with st.sidebar:
        language.picker()
        _preset_picker()
        _device_picker()
        _theme_picker()


def _from_url(key: str, choices, default: str) -> None:
    if key in st.session_state:
        return
    raw = st.query_params.get(key, default)
    if raw not in choices:
        state.add_notice(
            key,
            _("From the link: {key}={raw} is not one of the choices; using {default}.").format(
                key=key, raw=quoted(raw), default=quoted(default)
            ),
        )
        raw = default
    st.session_state[key] = raw


def _preset_picker() -> None:
    choices = state.preset_choices()
    # a link holding only ?model= opens on that model
    _from_url("preset", choices, state.FROM_CONFIG if model_id.CONFIG_QUERY in st.query_params else state.CUSTOM)
    st.selectbox(
        _("Model preset"),
        choices,
        key="preset",
        format_func=state.preset_label,
        on_change=state.reset_preset_params,
        help=_("A real model's positional-encoding parameters; every page's controls take its values."),
    )
    _show_notice("preset")
    link.put("preset", st.session_state["preset"])
    if st.session_state["preset"] == state.FROM_CONFIG:
        config_reader.render()
    else:
        config_reader.forget_config_link()
        model_id.forget_config_model()
        preset = state.current_preset()
        if preset is not None:
            st.caption(_("Source: {source}").format(source=preset.source))


def _device_picker() -> None:
    _from_url("device", DEVICE_CHOICES, "auto")
    st.selectbox(_("Compute device"), DEVICE_CHOICES, key="device", help=_("auto = cuda, then mps, then cpu."))
    _show_notice("device")
    try:
        in_use = resolve_device(st.session_state["device"])
    except ValueError as error:
        st.error(_("{error}. Using auto.").format(error=error), icon="🚫")
        st.session_state["device_in_use"] = str(resolve_device("auto"))
    else:
        st.session_state["device_in_use"] = str(in_use)
    st.caption(
        _("In use: **{device}** (available: {devices})").format(
            device=st.session_state["device_in_use"], devices=", ".join(available_devices())
        )
    )
    link.put("device", st.session_state["device"])


def _theme_picker() -> None:
    _from_url("theme", THEMES, "screen")
    st.selectbox(_("Figure style"), list(THEMES), key="theme", format_func=lambda key: _(THEMES[key]))
    _show_notice("theme")
    link.put("theme", st.session_state["theme"])


def _show_notice(key: str) -> None:
    notice = state.pop_notice(key)
    if notice:
        echo.warning(notice)
