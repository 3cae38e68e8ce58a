"""Sinusoidal position encoding: the table, its waves and wavelengths, and why it is a relative code."""

import streamlit as st

from ui import controls, show
from ui.router import ensure_app_router
from ui.sections import show_sections

ensure_app_router()

st.title("🌊 Sinusoidal position encoding")
st.markdown(
    "The original Transformer adds a fixed vector PE(p) to the token embedding at position p. Its channels come "
    "in pairs: pair i holds sin(p·ωᵢ) and cos(p·ωᵢ), with frequencies falling geometrically from 1 radian per "
    "token to 1/base. Fast pairs tell neighbours apart, slow pairs tell far positions apart, like the hands of "
    "a clock. Because moving by k tokens turns every pair by the angle k·ωᵢ, PE(p+k) is a fixed rotation of "
    "PE(p) and PE(p)·PE(p+k) depends on k only. A model preset (sidebar) sets d_model, seq_len and, for RoPE "
    "models, the base (the same frequency formula)."
)
st.latex(
    r"PE_{p,\,2i} = \sin(p\,\omega_i),\quad PE_{p,\,2i+1} = \cos(p\,\omega_i),\quad "
    r"\omega_i = \mathrm{base}^{-2i/d},\qquad PE(p)\cdot PE(p+k) = \sum_i \cos(k\,\omega_i)"
)

params = controls.controls(["seq_len", "d_model", "base", "layout", "view", "start"], columns=3)
st.caption(
    "Layouts: *interleaved* (Vaswani; HF DistilBERT) alternates sin and cos; *half* (Marian) puts all sin "
    "channels first; *t2t* (tensor2tensor, fairseq) also puts sin first and spaces the timescales from 1 to base. "
    "View: *overview* draws evenly spaced exact positions over 0..L-1; *window* draws every position from start."
)


def table() -> None:
    show.figure("sinusoidal-heatmap", params)


def waves() -> None:
    params["dims"] = controls.control("dims", chosen=params)
    show.figure("sinusoidal-waves", params)
    show.figure("sinusoidal-wavelengths", params)


def relative_code() -> None:
    show.figure("sinusoidal-similarity", params)
    show.figure("sinusoidal-relative", params)
    params["offset"] = controls.control("offset")
    show.figure("sinusoidal-linear-map", params)


def add_or_concatenate() -> None:
    params["token_scale"] = controls.control("token_scale")
    show.figure("sinusoidal-add-vs-concat", params)


show_sections(
    {
        "The table": table,
        "One wave per channel": waves,
        "A relative code": relative_code,
        "Add or concatenate": add_or_concatenate,
    }
)

st.markdown(
    "**What to notice**\n"
    "- The heatmap's left (interleaved) or left-of-each-half (half, t2t) channels flicker from row to row; "
    "the right ones barely change over the whole context.\n"
    "- Wavelengths grow geometrically from 2π to 2π·base (a straight line on the log axis); the channels above "
    "the dashed L line never complete one turn inside the context.\n"
    "- PE(p)·PE(q) is a band along the diagonal: it depends on q - p only. The measured spread over p (the "
    "band around the mean) is float rounding, and the mean sits on the closed form Σ cos(kωᵢ).\n"
    "- One matrix M_k, a 2x2 rotation per pair, moves every PE(p) to PE(p+k): the error is float64 rounding "
    "(except the unpaired last channel of an odd d_model).\n"
    "- Adding mixes position into the token's direction: the cosine with e wanders with p and drops as the "
    "token scale shrinks. Concatenating leaves e untouched in its own channels but doubles the width."
)
