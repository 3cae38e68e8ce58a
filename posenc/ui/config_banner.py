"""The model a config.json brought, said at the top of every explorer page: its name and where it came from, the
named preset with the same positional settings (if one), the values every page takes from it, and why the figures'
sequence length differs from s·L when the config's own lengths disagree (Llama 3.1: 131,072 positions, s·L =
8 x 8,192 = 65,536)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from posenc.drawing.preset_params import params_from_preset, same_positions_as
from posenc.i18n import _
from posenc.ui import echo, state

ORIGIN = "config_origin"  # session state: ("upload", file name) | ("hub", model id) | ("paste", "")


def remember_origin(kind: str, detail: str = "") -> None:
    """Where the config in use came from (the sidebar's reader calls it)."""
    st.session_state[ORIGIN] = (kind, detail)


LENGTHS_PAGES = ("context_extension",)  # pages whose figures draw s·L beside seq_len


def render(page: str) -> None:
    """The banner on ``page``, when the sidebar's preset is a config.json that was read (nothing otherwise)."""
    if st.session_state.get("preset") != state.FROM_CONFIG:
        return
    reading = st.session_state.get("config_reading")
    if reading is None:
        return
    preset = reading.preset
    values = params_from_preset(preset)
    with st.container(border=True, key="config-banner"):
        st.markdown(_headline(preset))
        st.caption(" · ".join(f"`{key}` {value}" for key, value in _read_values(preset, values)))
        lengths = _lengths_note(preset, values) if page in LENGTHS_PAGES else None
        if lengths:
            st.caption(lengths)


def _headline(preset) -> str:
    kind, detail = st.session_state.get(ORIGIN, ("paste", ""))
    origin = {
        "upload": _("the uploaded file {file}").format(file=echo.plain(detail or "config.json")),
        "hub": _("the Hub: {model}").format(model=echo.plain(detail)),
    }.get(kind, _("a pasted config.json"))
    line = _("📄 Model in use: **{name}**, read from {origin}.").format(name=echo.plain(preset.name), origin=origin)
    same = same_positions_as(preset)
    if same is not None:
        line += " " + _("Its positional settings are those of the {preset} preset.").format(preset=same.name)
    return line


def _read_values(preset, values: dict[str, Any]) -> list[tuple[str, str]]:
    """The config values every page takes, as config.json names them."""
    shown = [("hidden_size", f"{preset.hidden_size:,}"), ("num_attention_heads", str(preset.n_heads))]
    if "head_dim" in values:
        shown.append(("head_dim", str(values["head_dim"])))
    if preset.rope_theta is not None:
        shown.append(("rope_theta", f"{preset.rope_theta:,.12g}"))
    if preset.partial_rotary_factor != 1.0:
        shown.append(("partial_rotary_factor", f"{preset.partial_rotary_factor:g}"))
    scaling = dict(preset.rope_scaling or {})
    if scaling:
        described = scaling["rope_type"]
        if values.get("factor") is not None:
            described += f", factor {values['factor']:g}"
        if scaling.get("original_max_position_embeddings"):
            described += f", original {int(scaling['original_max_position_embeddings']):,}"
        shown.append(("rope_scaling", described))
    if preset.max_position_embeddings is not None:
        shown.append(("max_position_embeddings", f"{preset.max_position_embeddings:,}"))
    return shown


def _lengths_note(preset, values: dict[str, Any]) -> str | None:
    """Why a figure's seq_len is not s·L, where this config's lengths disagree."""
    factor, original = values.get("factor"), values.get("original_max_position_embeddings")
    if not factor or not original or "seq_len" not in values or not (preset.rope_scaling or {}).get("factor"):
        return None
    scaled = int(original * factor)
    if preset.max_position_embeddings is None or scaled == preset.max_position_embeddings:
        return None
    return _(
        "Why seq_len is not s·L: the scaling stretches the original L = {original:,} by s = {factor:g} to "
        "s·L = {scaled:,}, while this config's max_position_embeddings says {longest:,}. The figures draw "
        "seq_len = {seq_len:,}, the longer of the two; transformers uses each number as the config writes it."
    ).format(
        original=int(original),
        factor=factor,
        scaled=scaled,
        longest=preset.max_position_embeddings,
        seq_len=values["seq_len"],
    )
