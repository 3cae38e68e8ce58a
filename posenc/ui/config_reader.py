"""The sidebar's config.json reader: a model's config uploaded, fetched by Hugging Face id (``?model=``) or pasted
(``?config=``), read by ``posenc_core.hf_config.from_hf_config`` and made the preset."""

from __future__ import annotations

import streamlit as st

from posenc.i18n import _
from posenc.ui import config_link, model_id, state
from posenc_core.hf_config import from_hf_config


def render() -> None:
    """A config.json uploaded, fetched by model id (``?model=``) or pasted (``?config=``), in that order."""
    _config_from_link()
    uploaded = st.file_uploader("config.json", type=["json"], key="config_file")
    model = model_id.config_model_box()
    by_model = uploaded is None and bool(model)
    if by_model:  # its messages under the model-id box
        forget_config_link()
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
        forget_config_link()
        st.info(_("Upload or paste a model's config.json to use its parameters."))
        return
    try:
        reading = from_hf_config(text)
    except ValueError as error:
        st.error(f"config.json: {error}", icon="🚫")
        return
    _use(reading)
    _config_into_link(text)


def forget_config_link() -> None:
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
        forget_config_link()
        st.caption(
            _(
                "🔗 This config is too long to travel in a link: someone opening your link will be asked for the "
                "config.json again (the other settings do travel)."
            )
        )
    else:
        st.query_params["config"] = value
