"""The sidebar shared by every page: model preset (or a config.json), compute device, figure style."""

from __future__ import annotations

import streamlit as st

from posenc.figures.params import PARAMS
from posenc.i18n import _
from posenc.ui import config_link, language, model_id, state
from posenc_core.device import available_devices, resolve_device
from posenc_core.hf_config import from_hf_config

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
            _("From the link: {key}={raw!r} is not one of the choices; using {default!r}.").format(
                key=key, raw=raw, default=default
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
    st.query_params["preset"] = st.session_state["preset"]
    if st.session_state["preset"] == state.FROM_CONFIG:
        _config_reader()
    else:
        _forget_config_link()
        model_id.forget_config_model()
        preset = state.current_preset()
        if preset is not None:
            st.caption(_("Source: {source}").format(source=preset.source))


def _config_reader() -> None:
    """A config.json uploaded, fetched by model id (``?model=``) or pasted (``?config=``), in that order."""
    _config_from_link()
    uploaded = st.file_uploader("config.json", type=["json"], key="config_file")
    model = model_id.config_model_box()
    by_model = uploaded is None and bool(model)
    if by_model:  # its messages under the model-id box
        _forget_config_link()
        reading = model_id.read_config_model(model)
        if reading is not None:
            _use(reading)
    else:
        model_id.forget_config_model()
    pasted = st.text_area(_("…or paste its contents"), key="config_text", height=120)
    if by_model:
        return
    text = uploaded.getvalue() if uploaded is not None else pasted
    if not text:
        _forget_config_link()
        st.info(_("Upload or paste a model's config.json to use its parameters."))
        return
    try:
        reading = from_hf_config(text)
    except ValueError as error:
        st.error(f"config.json: {error}", icon="🚫")
        return
    _use(reading)
    _config_into_link(text)


def _forget_config_link() -> None:
    """Take a pasted config (``?config=``) out of the link."""
    if "config" in st.query_params:
        del st.query_params["config"]


def _use(reading) -> None:
    """Make ``reading`` the preset (a new one resets the controls it sets) and say what was read."""
    previous = st.session_state.get("config_reading")
    st.session_state["config_reading"] = reading
    if previous is None or previous.preset != reading.preset:
        state.reset_preset_params()
        st.rerun()
    st.success(_("Read {name}").format(name=reading.preset.name))
    for sentence in reading.preset.notes:
        st.caption(f"✓ {sentence}")
    for sentence in reading.unread:
        st.caption(f"• {sentence}")
    with st.expander(_("What was read"), expanded=False):
        st.json(reading.read, expanded=False)


def _config_from_link() -> None:
    """Fill the paste box from ``?config=`` once, when the session opens on a shared link."""
    if "config_text" in st.session_state or "config" not in st.query_params:
        return
    try:
        st.session_state["config_text"] = config_link.decode(st.query_params["config"])
    except ValueError as error:
        st.warning(_("From the link: {error}; upload or paste the config.json again.").format(error=error), icon="🔗")


def _config_into_link(text: str | bytes) -> None:
    value = config_link.encode(text)
    if value is None:
        _forget_config_link()
        st.caption(
            _(
                "🔗 This config is too long to travel in a link: someone opening your link will be asked for the "
                "config.json again (the other settings do travel)."
            )
        )
    else:
        st.query_params["config"] = value


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
    st.query_params["device"] = st.session_state["device"]


def _theme_picker() -> None:
    _from_url("theme", THEMES, "screen")
    st.selectbox(_("Figure style"), list(THEMES), key="theme", format_func=lambda key: _(THEMES[key]))
    _show_notice("theme")
    st.query_params["theme"] = st.session_state["theme"]


def _show_notice(key: str) -> None:
    notice = state.pop_notice(key)
    if notice:
        st.warning(notice, icon="🔗")
