"""RoPE: one pair's turn, the rotation angles and wavelengths, the relative property, the long-term decay, layouts."""

import streamlit as st

from posenc.figures.layers import notes as layer_notes
from posenc.figures.rope.frequencies import pair_turn, rotary_dim
from posenc.i18n import N_, _
from posenc.ui import controls, show
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, formulas, show_sections, what_to_notice

ensure_app_router()

st.title(_("🌀 RoPE: rotary position embedding"))
with about():
    st.markdown(
        _(
            "RoPE does not add a position vector: it **rotates** the query and the key. The channels of a head form "
            "d/2 pairs, and pair i is turned by the angle m·θᵢ at position m (the rotation R(m) below), with θᵢ "
            "falling geometrically from 1 radian per token to about 1/base. Since rotating q by m·θᵢ and k by n·θᵢ "
            "leaves an angle of (m − n)·θᵢ between them, the attention score depends on the distance m − n only. "
            "Models differ in the base, in which channels form a pair (*layout*) and in how many channels rotate at "
            "all (*partial rotary*); a model preset (sidebar) sets all of them. Context-extension variants have their "
            "own page."
        )
    )
    FORMULAS = (  # two columns
        (r"\theta_i = \mathrm{base}^{-2i/d}", r"(R(m)\,q)^\top (R(n)\,k) = q^\top R(n-m)\,k"),
        (r"R(m) = \begin{pmatrix}\cos m\theta_i & -\sin m\theta_i\\ \sin m\theta_i & \cos m\theta_i\end{pmatrix}",),
    )
    formulas(FORMULAS)
    st.caption(_("d = int(head_dim · partial_rotary_factor) channels rotate; the rest pass through."))

params = controls.controls(["head_dim", "base", "partial_rotary_factor", "rope_layout", "seq_len"], columns=5)
WINDOWED = st.query_params.get("view") == "window"  # a link to a window opens its settings
with st.expander(_("Positions drawn: an overview of 0..L−1, or a window"), expanded=WINDOWED):
    params |= controls.controls(["view", "start"], columns=2, chosen=params)
    st.caption(_("*Overview*: evenly spaced exact positions over 0..L−1; *window*: every position from start (512)."))


def one_pair() -> None:
    with st.columns(2)[0]:
        params["pair"] = controls.control("pair", chosen=params)
    if show.figure("rope-pair-rotation", params) is None:  # its message says why (no rotary pair to turn)
        return
    theta, degrees, wavelength = pair_turn(params)
    what_to_notice(
        _(
            "Each token turns pair {pair} by the same angle θ = {theta:.4g} rad ({degrees:.4g}°), anticlockwise: the "
            "labelled positions step around the circle in order, and after λ = {wavelength:,.4g} tokens the point is "
            "back where it started (the dotted lines below)."
        ).format(pair=params["pair"], theta=theta, degrees=degrees, wavelength=wavelength),
        _(
            "cos and sin against the position are two waves of wavelength λ, a quarter period apart: the rotation "
            "R(m) of the formula, read off one pair."
        ),
        _(
            "Pair 0 turns 1 rad per token; the last, pair {last}, about 1/base: move the slider to see a slow pair "
            "barely turn."
        ).format(last=rotary_dim(params) // 2 - 1),
    )


def angles() -> None:
    show.figure("rope-angles", params)
    result = show.figure("rope-wavelengths", params)
    slow = int((result.data["wavelength"] > params["seq_len"]).sum()) if result is not None else 0
    what_to_notice(
        _(
            "The angle map: the bottom rows (small i, fast pairs) wrap around many times, the top rows barely move. "
            "Where the caption says the overview aliases, the fast rows look random: the window view shows them turn."
        ),
        _(
            "The wavelength plot: {slow} of {pairs} pairs lie above the context line L = {length:,}. They never "
            "complete a turn within the context, so their angle is unique for every position; a larger base than "
            "{base:g} moves more pairs above the line."
        ).format(slow=slow, pairs=rotary_dim(params) // 2, length=params["seq_len"], base=params["base"]),
    )


def relative_property() -> None:
    with st.columns(3)[0]:
        params["qk_seed"] = controls.control("qk_seed")
    show.figure("rope-scores", params)
    show.figure("rope-relative-profile", params)
    what_to_notice(
        _(
            "The score matrix of seed {seed}'s q and k has one colour along every diagonal m − n = constant: the "
            "score depends on the distance only."
        ).format(seed=params["qk_seed"]),
        _(
            "The profile curves, read off the matrix from different key positions, lie on top of each other (the "
            "difference under them is float rounding, larger with float32 angles at large positions)."
        ),
    )


def decay() -> None:
    show.figure("rope-decay", params)
    what_to_notice(
        _(
            "The bound falls with distance (RoFormer's long-term decay) for base {base:g} over d = {dim} rotary "
            "channels: far tokens can score less. It bounds the score; the score itself oscillates (see the relative "
            "property)."
        ).format(base=params["base"], dim=rotary_dim(params)),
    )


def channels() -> None:
    show.figure("rope-channels", params)
    d = rotary_dim(params)
    if params["rope_layout"] == "half":
        how = _(
            "Layout {layout}: channel j rotates with channel j + {half}, so the colours repeat twice. The same "
            "weights run with the other layout rotate the wrong channels together."
        )
    else:
        how = _(
            "Layout {layout}: channels 2i and 2i+1 rotate together, so neighbours share a colour. The same weights "
            "run with the other layout rotate the wrong channels together."
        )
    what_to_notice(
        how.format(layout=params["rope_layout"], half=d // 2),
        _("Channels {first}–{last} pass through unrotated: they carry no position at all.").format(
            first=d, last=params["head_dim"] - 1
        )
        if d < params["head_dim"]
        else _(
            "All {d} channels rotate (partial rotary factor 1); GPT-NeoX-20B rotates only a quarter of them."
        ).format(d=d),
    )


def layer_by_layer() -> None:
    model = {"layered_model": controls.control("layered_model")}
    result = show.figure("layers-rope-bases", model)
    if result is not None:
        what_to_notice(*layer_notes.layer_points(model, result.data))


show_sections(
    {
        N_("One pair turning"): one_pair,
        N_("Rotation angles and wavelengths"): angles,
        N_("The relative property"): relative_property,
        N_("Long-term decay"): decay,
        N_("Which channels rotate together"): channels,
        N_("Layer by layer"): layer_by_layer,
    }
)
