"""RoPE: rotation angles, wavelengths, one pair's turn, the relative property, the long-term decay, layouts."""

import streamlit as st

from ui import controls, show
from ui.router import ensure_app_router
from ui.sections import show_sections

ensure_app_router()

st.title("🌀 RoPE: rotary position embedding")
st.markdown(
    "RoPE does not add a position vector: it **rotates** the query and the key. The channels of a head form "
    "d/2 pairs, and pair i is turned by the angle m·θᵢ at position m, with θᵢ falling geometrically from 1 "
    "radian per token to about 1/base. Since rotating q by m·θᵢ and k by n·θᵢ leaves an angle of (m − n)·θᵢ "
    "between them, the attention score depends on the distance m − n only. Models differ in the base, in "
    "which channels form a pair (*layout*) and in how many channels rotate at all (*partial rotary*); a "
    "model preset (sidebar) sets all of them. Context-extension variants have their own page."
)
st.latex(
    r"\theta_i = \mathrm{base}^{-2i/d},\qquad "
    r"R(m)\begin{pmatrix}x_a\\ x_b\end{pmatrix} = "
    r"\begin{pmatrix}\cos m\theta_i & -\sin m\theta_i\\ \sin m\theta_i & \cos m\theta_i\end{pmatrix}"
    r"\begin{pmatrix}x_a\\ x_b\end{pmatrix}"
)
st.latex(r"(R(m)\,q)^\top (R(n)\,k) = q^\top R(n-m)\,k \quad\text{depends on } m-n \text{ only}")

params = controls.controls(["head_dim", "base", "partial_rotary_factor", "rope_layout"], columns=4)
params.update(controls.controls(["seq_len", "view", "start"], columns=3))
st.caption(
    "d = int(head_dim · partial_rotary_factor) channels rotate; the rest pass through. View: *overview* draws "
    "evenly spaced exact positions over 0..L-1; *window* draws every position from start."
)


def channels() -> None:
    show.figure("rope-channels", params)


def angles() -> None:
    show.figure("rope-angles", params)
    show.figure("rope-wavelengths", params)


def one_pair() -> None:
    with st.columns(2)[0]:
        params["pair"] = controls.control("pair", chosen=params)
    show.figure("rope-pair-rotation", params)


def relative_property() -> None:
    with st.columns(3)[0]:
        params["qk_seed"] = controls.control("qk_seed")
    show.figure("rope-scores", params)
    show.figure("rope-relative-profile", params)


show_sections(
    {
        "Which channels rotate together": channels,
        "Rotation angles and wavelengths": angles,
        "One pair turning": one_pair,
        "The relative property": relative_property,
        "Long-term decay": lambda: show.figure("rope-decay", params),
    }
)

st.markdown(
    "**What to notice**\n"
    "- The channel map: *half* pairs channel j with j + d/2, *interleaved* pairs 2i with 2i+1. The same weights "
    "run with the other layout rotate the wrong channels together. With partial rotary (GPT-NeoX-20B: 0.25) most "
    "channels carry no position at all.\n"
    "- The angle map: the bottom rows (small i, fast pairs) wrap around many times, the top rows barely move. In "
    "an overview of a long context the fast rows look random: those pairs turn more than half a turn between the "
    "positions drawn (the window view shows them).\n"
    "- The wavelength plot: pairs above the context line never complete a turn within the context, so their "
    "angle is unique for every position; a larger base (Llama 3: 500000) moves more pairs above the line.\n"
    "- The rotation plot: each token moves the point by the same angle θᵢ around the unit circle; cos and sin "
    "against the position are two waves of wavelength λᵢ.\n"
    "- The score matrix is constant along every diagonal, and the profile curves from different key positions "
    "lie on top of each other: the score depends on m − n only (up to float32 rounding at large positions, "
    "quoted under the profile).\n"
    "- The decay curve falls with distance (RoFormer's long-term decay): the upper bound on the score shrinks "
    "for far tokens. It bounds the score; the score itself oscillates (see the profile above)."
)
