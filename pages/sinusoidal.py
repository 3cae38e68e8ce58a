"""Sinusoidal position encoding: the table, its waves and wavelengths, and why it is a relative code."""

import streamlit as st

from posenc.figures.sinusoidal.waves import slowest_wavelength
from posenc.figures.why.schemes import shown
from posenc.i18n import N_, _
from posenc.ui import controls, show, state
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, formulas, show_sections, what_to_notice
from posenc_core.schemes import get_scheme

ensure_app_router()

st.title(_("🌊 Sinusoidal position encoding"))
with about():
    st.markdown(
        _(
            "The original Transformer adds a fixed vector PE(p) to the token embedding at position p. Its channels "
            "come in pairs: pair i holds sin(p·ωᵢ) and cos(p·ωᵢ), with frequencies falling geometrically from 1 radian "
            "per token. Fast pairs tell neighbours apart, slow pairs tell far positions apart, like the hands of a "
            "clock. Because moving by k tokens turns every pair by the angle k·ωᵢ, PE(p+k) is a fixed rotation of "
            "PE(p) and PE(p)·PE(p+k) depends on k only. The page opens on the textbook picture: 100 positions of a "
            "128-channel encoding."
        )
    )
    FORMULAS = (  # two columns
        (r"PE_{p,\,2i} = \sin(p\,\omega_i)", r"PE_{p,\,2i+1} = \cos(p\,\omega_i)"),
        (r"\omega_i = \mathrm{base}^{-2i/d}", r"PE(p)\cdot PE(p+k) = \sum_i \cos(k\,\omega_i)"),
    )
    formulas(FORMULAS)

LABELS = {"base": N_("Base (10000 in the paper)")}  # the shared label says rope_theta: not this page's base
params: dict = {}
for column, name in zip(st.columns(4), ["seq_len", "d_model", "base", "layout"], strict=True):
    with column:  # the textbook table: 100 positions (other pages keep seq_len's own default)
        label = _(LABELS[name]) if name in LABELS else None
        params[name] = controls.control(name, label=label, start=100 if name == "seq_len" else None)
WINDOWED = st.query_params.get("view") == "window"  # a link to a window opens its settings
with st.expander(_("Positions drawn: an overview of 0..L−1, or a window of consecutive positions"), expanded=WINDOWED):
    params |= controls.controls(["view", "start", "window"], columns=3, chosen=params)
    st.caption(
        _(
            "*Overview* draws evenly spaced exact positions over 0..L−1 (every one while they fit); *window* draws "
            "every position from start, as many as the window length."
        )
    )
preset = state.current_preset()
if preset is not None and preset.rotary_dim:
    st.info(
        _(
            "{preset} has no sinusoidal table: it uses {scheme}, whose frequencies base^(−2i/d) run over the "
            "{rotary_dim} rotary channels of each head ({pairs} pairs, the same in every head: see the RoPE page), "
            "not over d_model = {d_model:,}. Here its base only sets this table's base, so the spectrum drawn is not "
            "the model's."
        ).format(
            preset=preset.name,
            scheme=shown(get_scheme(preset.scheme).name),
            rotary_dim=preset.rotary_dim,
            pairs=preset.rotary_dim // 2,
            d_model=params["d_model"],
        ),
        icon="ℹ️",
    )
elif preset is not None:
    st.caption(
        _("{preset} uses {scheme}: the preset sets d_model and seq_len only.").format(
            preset=preset.name, scheme=shown(get_scheme(preset.scheme).name)
        )
    )

WAVES, RELATIVE = N_("One wave per channel"), N_("A relative code")  # tabs the notes refer the reader to
FAST_CHANNELS = {
    "interleaved": N_("the left columns (small j, fast pairs)"),
    "half": N_("the left columns of each half (channels 0.. and ⌈d/2⌉.., the fast pairs)"),
    "t2t": N_("the left columns of each half (channels 0.. and d/2.., the fast pairs)"),
}


def table() -> None:
    show.figure("sinusoidal-heatmap", params)
    fast = FAST_CHANNELS[params["layout"]]
    what_to_notice(
        _(
            "Each row is one position's vector PE(p). With layout={layout}, {fast} change from row to row; towards "
            "the right they change ever more slowly: a slow pair barely moves over {seq_len:,} positions."
        ).format(layout=params["layout"], fast=_(fast), seq_len=params["seq_len"]),
        _(
            "Read down one column and you read one wave (the tab *{waves}*): a sin channel starts at 0 (white), its "
            "cos partner at 1 (red). No two rows are the same, so each position gets its own code."
        ).format(waves=_(WAVES)),
    )


def waves() -> None:
    params["dims"] = controls.control("dims", chosen=params)
    show.figure("sinusoidal-waves", params)
    show.figure("sinusoidal-wavelengths", params)
    slowest, formula = slowest_wavelength(params["d_model"], params["base"], params["layout"])
    growth = (
        _(
            "Wavelengths grow geometrically (a straight line on the log axis) from 2π to {formula} = {slowest:,.0f} "
            "tokens for layout={layout} (not 2π·base: the last pair is i = ⌈d/2⌉ − 1)."
        )
        if params["layout"] != "t2t"
        else _(
            "Wavelengths grow geometrically (a straight line on the log axis) from 2π to {formula} = {slowest:,.0f} "
            "tokens for layout={layout}."
        )
    )
    what_to_notice(
        _(
            "Each channel is one sine or cosine: the legend gives its wavelength λ. The fast channels tell "
            "neighbours apart; the slow ones barely move over the positions drawn, and tell far positions apart."
        ),
        growth.format(formula=formula, slowest=slowest, layout=params["layout"]),
        _("The channels above the dashed L = {seq_len:,} line never complete one period inside the context.").format(
            seq_len=params["seq_len"]
        ),
    )


def relative_code() -> None:
    show.figure("sinusoidal-similarity", params)
    show.figure("sinusoidal-relative", params)
    with st.columns(2)[0]:
        params["offset"] = controls.control("offset")
    for column, figure_id in zip(st.columns(2), ("sinusoidal-linear-map", "sinusoidal-linear-map-error"), strict=True):
        with column:  # side by side; stacked on a phone
            show.figure(figure_id, params)
    unpaired = params["d_model"] % 2 and params["layout"] != "t2t"
    what_to_notice(
        _(
            "PE(p)·PE(q) is a band along the diagonal: it depends on q − p only. The colours run over the values "
            "drawn (a diverging scale, white at 0, only where some dot products are negative)."
        ),
        _(
            "The measured mean over p sits on the closed form Σ cos(kωᵢ); the band around it is the unpaired last "
            "sin channel of an odd d_model, which depends on p."
        )
        if unpaired
        else _("The measured mean over p sits on the closed form Σ cos(kωᵢ); the band around it is float rounding."),
        (
            _(
                "One matrix M_k, a 2×2 rotation per pair, moves every PE(p) to PE(p+{offset:,}): the error is large "
                "only because of the unpaired last channel of an odd d_model."
            )
            if unpaired
            else _(
                "One matrix M_k, a 2×2 rotation per pair, moves every PE(p) to PE(p+{offset:,}): the error is "
                "float64 rounding."
            )
        ).format(offset=params["offset"]),
    )


def add_or_concatenate() -> None:
    params["token_scale"] = controls.control("token_scale")
    show.figure("sinusoidal-add-vs-concat", params)
    what_to_notice(
        _(
            "Adding mixes position into the token's direction: the cosine with e wanders with p, the more so the "
            "smaller the token's norm (now {scale:g}·‖PE‖)."
        ).format(scale=params["token_scale"]),
        _("Concatenating leaves e untouched in its own {d_model:,} channels, but doubles the width.").format(
            d_model=params["d_model"]
        ),
    )


def binary_counter() -> None:
    with st.columns(4)[0]:
        params["binary_positions"] = controls.control("binary_positions")
    result = show.figure("sinusoidal-binary-counter", params)
    if result is None:
        return
    bits, wavelengths = result.data["bits"], result.data["wavelengths"]
    ratios = wavelengths[1:] / wavelengths[:-1]
    doubling = wavelengths.size > 1 and ratios.min() > 1.4 and ratios.max() < 2.9
    what_to_notice(
        _(
            "Read the left panel down a column: bit 0 flips at every position, bit 1 every 2, up to bit {last} every "
            "{period:,}. Each bit is half as fast as the one before: together they give every position its own "
            "pattern."
        ).format(last=bits.shape[1] - 1, period=2 ** (bits.shape[1] - 1)),
        (
            _(
                "The right panel does the same with smooth waves: the {count} sin channels drawn have wavelengths "
                "{shortest:,.3g} to {longest:,.3g} tokens, each {low:.2f} to {high:.2f} times the one before, a "
                "doubling like the bits."
            )
            if doubling
            else _(
                "The right panel does the same with smooth waves: the {count} sin channels drawn have wavelengths "
                "{shortest:,.3g} to {longest:,.3g} tokens, not a doubling: this table's pairs are too far apart for "
                "one per bit."
            )
        ).format(
            count=wavelengths.size,
            shortest=wavelengths[0],
            longest=wavelengths[-1],
            low=ratios.min() if ratios.size else 0.0,
            high=ratios.max() if ratios.size else 0.0,
        ),
        _(
            "A wave is continuous where a bit jumps: neighbouring positions get nearby vectors, and a shift by k is "
            "a rotation of each pair (the tab *{relative}*), which a bit pattern has no equivalent of."
        ).format(relative=_(RELATIVE)),
    )


show_sections(
    {
        N_("The table"): table,
        N_("A binary counter"): binary_counter,
        WAVES: waves,
        RELATIVE: relative_code,
        N_("Add or concatenate"): add_or_concatenate,
    }
)
