"""The sidebar's config.json reader: a model's config uploaded, fetched by Hugging Face id (``?model=``) or pasted
(``?config=``), read by ``posenc_core.models.hf_config.from_hf_config`` and made the preset.

A config over ``MAX_CONFIG_BYTES`` is refused before it is parsed; a config is parsed once per content (cached by
its SHA-256); a refused one is a message in place and takes the previous reading away, so no page keeps values
from it; "What was read" shows long lists shortened; a link that chose a config but holds none says so.
"""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

from posenc.i18n import _
from posenc.ui import config_banner, config_link, echo, model_id, state
from posenc_core.models.hf_config import MAX_CONFIG_BYTES, ConfigReading, from_hf_config

SHOWN_ITEMS = 5  # items of a long list shown under "What was read"; the rest is counted
SHOWN_CHARS = 200  # characters of a long text shown there
ECHO_CHARS = 600  # characters of a reader's sentence echoed (they quote the config: shown as plain text)
_SEEN = "_config_reader_seen"  # set once this session has drawn the sidebar's preset part
_LOST = "_config_lost"  # the session opened on a link that chose a config and held none


def render() -> None:
    """A config.json uploaded, fetched by model id (``?model=``) or pasted (``?config=``), in that order."""
    _config_from_link()
    limit = f"{MAX_CONFIG_BYTES / 1e6:g} MB"
    uploaded = st.file_uploader(
        "config.json",
        type=["json"],
        key="config_file",
        help=_("A model's config.json (a few KB; at most {limit})").format(limit=limit),
        max_upload_size=max(1, MAX_CONFIG_BYTES >> 20),  # MB: the browser refuses a larger file before sending it
    )
    model = model_id.config_model_box()
    by_model = uploaded is None and bool(model)
    if by_model:  # its messages under the model-id box
        forget_config_link()
        reading = model_id.read_config_model(model)
        if reading is not None:
            config_banner.remember_origin("hub", model)
            _use(reading)
    else:
        model_id.forget_config_model()
    pasted = st.text_area(_("…or paste its contents"), key="config_text", height=120, max_chars=MAX_CONFIG_BYTES)
    if by_model:
        return
    if uploaded is not None and uploaded.size > MAX_CONFIG_BYTES:  # the browser refuses it; a script may not
        st.error(
            _("config.json: {file} is {size:.1f} MB; a config.json is at most {limit} and is not read").format(
                file=echo.plain(uploaded.name, ECHO_CHARS), size=uploaded.size / 1e6, limit=limit
            ),
            icon="🚫",
        )
        _forget_reading()
        return
    text = uploaded.getvalue() if uploaded is not None else pasted
    if not text:
        forget_config_link()
        if st.session_state.get(_LOST):
            st.warning(
                _(
                    "This link chose a model's config.json but does not hold the config (an uploaded config does "
                    "not travel in a link, and a restarted server forgets it): upload or paste it again. Until "
                    "then, every page shows the custom defaults."
                ),
                icon="🔗",
            )
        st.info(_("Upload or paste a model's config.json to use its parameters."))
        return
    st.session_state.pop(_LOST, None)
    reading, error = _read(hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest(), text)
    if error is not None:
        st.error(echo.plain(f"config.json: {error}", ECHO_CHARS), icon="🚫")
        _forget_reading()
        return
    config_banner.remember_origin(*(("upload", uploaded.name) if uploaded is not None else ("paste", "")))
    _use(reading)
    _config_into_link(text)


def forget_config_link() -> None:
    """Take a pasted config (``?config=``) out of the link. The sidebar calls it on every run with another preset,
    so a session that picks "From a config.json" later is not taken for one that opened on a link without it."""
    st.session_state[_SEEN] = True
    if "config" in st.query_params:
        del st.query_params["config"]


def summarised(value: Any) -> Any:
    """``value`` for display: lists longer than SHOWN_ITEMS cut to their first items and "… N more", texts to
    SHOWN_CHARS characters (a config's 2M-item list would otherwise be sent whole to the browser)."""
    if isinstance(value, dict):
        return {key: summarised(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        if len(value) <= SHOWN_ITEMS + 1:
            return [summarised(item) for item in value]
        more = _("… {count:,} more").format(count=len(value) - SHOWN_ITEMS)
        return [summarised(item) for item in value[:SHOWN_ITEMS]] + [more]
    if isinstance(value, str) and len(value) > SHOWN_CHARS:
        return value[:SHOWN_CHARS] + "…"
    return value


@st.cache_data(max_entries=16, show_spinner=False)  # each reading comes from at most 1 MB of text
def _read(digest: str, _text: str | bytes) -> tuple[ConfigReading | None, str | None]:
    """The reading of a config, or the message saying why it cannot be read; cached by the text's SHA-256
    ``digest`` (``_text`` itself is not hashed by Streamlit), so reruns do not parse it again."""
    try:
        return from_hf_config(_text), None
    except ValueError as error:
        return None, str(error)


def _forget_reading() -> None:
    """A refused config leaves nothing behind: the previous reading and the controls it set are forgotten."""
    if st.session_state.get("config_reading") is not None:
        state.reset_preset_params()
    st.session_state.pop("config_reading", None)


def _use(reading) -> None:
    """Make ``reading`` the preset (a new one resets the controls it sets) and say what was read."""
    previous = st.session_state.get("config_reading")
    st.session_state["config_reading"] = reading
    if previous is None or previous.preset != reading.preset:
        state.reset_preset_params()
        st.rerun()
    st.success(_("Read {name}").format(name=echo.plain(reading.preset.name)))
    for sentence in reading.preset.notes:
        st.caption(f"✓ {echo.plain(sentence, ECHO_CHARS)}")
    for sentence in reading.unread:
        st.caption(f"• {echo.plain(sentence, ECHO_CHARS)}")
    with st.expander(_("What was read"), expanded=True):
        st.json(summarised(reading.read), expanded=False)


def _config_from_link() -> None:
    """Fill the paste box from ``?config=`` once, when the session opens on a shared link; a link that chose a
    config (``preset=config``) and holds none, with nothing drawn before in this session, is remembered as lost."""
    first = _SEEN not in st.session_state
    st.session_state[_SEEN] = True
    if "config_text" in st.session_state:
        return
    if "config" not in st.query_params:
        if first and model_id.CONFIG_QUERY not in st.query_params:
            st.session_state[_LOST] = True
        return
    try:
        st.session_state["config_text"] = config_link.decode(st.query_params["config"])
    except ValueError as error:
        echo.warning(_("From the link: {error}; upload or paste the config.json again.").format(error=error))


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
