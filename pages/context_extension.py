"""Context extension: how RoPE scaling variants stretch a model past its training length, and how large a
base a context needs."""

import pandas as pd
import streamlit as st

from posenc.figures.context.methods import cell, translated_rows
from posenc.figures.context.params import LONGROPE_LISTS, SCALING_KEY_PARAMS
from posenc.figures.layers import notes as layer_notes
from posenc.i18n import N_, _
from posenc.ui import controls, show, state
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, show_sections, what_to_notice
from posenc_core.rope.methods import methods_table

ensure_app_router()

st.title(_("🔭 Context extension: RoPE past its training length"))
with about():
    st.markdown(
        _(
            "A RoPE model trained on L tokens has seen each pair i turn through the angles m·θᵢ for m < L only. Past "
            "L, the slow pairs (wavelength above L, never one full turn in training) reach angles the model has never "
            "seen. Context-extension methods change the inverse frequencies θᵢ so that s·L tokens fit: *linear* "
            "(position interpolation) divides every θᵢ by the factor s; *NTK-aware* raises the base instead, so fast "
            "pairs barely move; *dynamic NTK* does that only once the sequence outgrows L; *YaRN* and *Llama 3.1* keep "
            "the fast pairs, divide the slow ones by s and blend in between; *LongRoPE* divides each pair by its own "
            "searched factor. YaRN and LongRoPE also multiply cos and sin by an *attention factor*, which sharpens "
            "attention. Every number below "
            "comes from `posenc_core.rope.scaling` (HF transformers' formulas)."
        )
    )
    st.latex(
        r"\theta'_i = \theta_i\left((1-\mathrm{ramp}_i) + \frac{\mathrm{ramp}_i}{s}\right),\quad "
        r"\theta_i = \mathrm{base}^{-2i/d},\quad \lambda_i = \frac{2\pi}{\theta_i},\qquad \text{angle} = m\,\theta'_i"
    )
    st.markdown("**" + _("What s, L and seq_len mean here, and when LongRoPE is drawn") + "**")
    st.caption(
        _(
            "s·L is the context the factor aims at; seq_len is the current sequence length, which picks dynamic NTK's "
            "base and LongRoPE's long or short factors (a dynamic model's max_position_embeddings is taken to be L). "
            "The page's rope_type is marked ★ and drawn solid, the others fainter. LongRoPE's factors are searched "
            "per model, so the page draws only real ones: the model's own (from its preset or a config.json with "
            "LongRoPE lists), else Phi-3-mini-128k's when head_dim is 96; otherwise LongRoPE is left out."
        )
    )

params = controls.controls(
    ["rope_type", "factor", "original_max_position_embeddings", "seq_len"],
    columns=4,
    starts={"seq_len": 16384},  # s·L at the defaults: a sequence past L, where dynamic NTK and LongRoPE act
)
# the head's own settings (a preset in the sidebar sets them) fold away: the first figure stays on the first screen
with st.expander(_("More settings: head_dim, base, partial rotary, YaRN and Llama 3.1 keys (HF rope_scaling)")):
    params |= controls.controls(
        ["head_dim", "base", "partial_rotary_factor", *SCALING_KEY_PARAMS],
        columns=4,
        least={"head_dim": (4, _("the scaling variants need two pairs"))},
    )
params |= state.preset_only(LONGROPE_LISTS)  # a model's own LongRoPE lists, from its preset or config.json


def frequencies() -> None:
    show.figure("context-inv-freq", params)
    show.figure("context-wavelengths", params)
    what_to_notice(
        _(
            "Linear divides every pair by s (a flat line at 1/s): the fast pairs that tell neighbours apart are "
            "squeezed too. NTK, YaRN and Llama 3.1 leave pair 0 at 1 and divide only the slow pairs."
        ),
        _(
            "NTK-aware raises the base to base·s^(d/(d−2)): pair i is divided by s^(2i/(d−2)), so only the slowest "
            "pair (i = d/2 − 1) is divided by exactly s, the others by less. Dynamic NTK does the same with the "
            "factor s·seq_len/L − (s − 1) in place of s, once seq_len outgrows L (before that it is the original)."
        ),
        _(
            "On the wavelength plot, the pairs above the L line never completed a turn in training. Linear, YaRN and "
            "Llama 3.1 stretch the slowest pairs by s, so their angles stay inside the trained range up to s·L."
        ),
        _(
            "LongRoPE divides pair i by its own searched factor (long list past L, short list within): about 1 for "
            "the fast pairs and up to about 65 for Phi-3-mini-128k's slowest (more than s = 32). The paper also "
            "leaves the first tokens un-interpolated (their original angles); HF's longrope, drawn here, does not."
        ),
    )


def yarn_ramp() -> None:
    st.latex(
        r"\mathrm{ramp}_i = \mathrm{clamp}\!\left(\frac{i-\mathrm{low}}{\mathrm{high}-\mathrm{low}},0,1\right),"
        r"\quad \frac{L}{\lambda_{\mathrm{low}}} = \beta_{\mathrm{fast}},\ \frac{L}{\lambda_{\mathrm{high}}} = "
        r"\beta_{\mathrm{slow}},\qquad \text{logits} \times \text{attention\_factor}^2"
    )
    show.figure("context-yarn-ramp", params)
    what_to_notice(
        _(
            "HF's ramp_i (0 keeps pair i's frequency, 1 divides it by s) is linear in the pair index i between low "
            "and high, the pairs that turn β_fast and β_slow times in L. The paper writes the blend as γ(r) of the "
            "turns r = L/λ, the other way round (γ = 1 − ramp: 1 keeps, 0 divides) and linear in r: the same end "
            "points, a different shape in between."
        ),
        _(
            "Llama 3.1's ramp is the same idea with thresholds L/high_freq_factor and L/low_freq_factor on the "
            "wavelength, blending linearly in L/λ."
        ),
        _("The cos/sin factor acts twice (on q and on k): the logits are multiplied by its square."),
    )


def angles() -> None:
    show.figure("context-angles", params)
    what_to_notice(
        _(
            "Past L, a slow pair's original angle leaves the dotted trained maximum. Linear, YaRN and Llama 3.1 "
            "divide every slow pair by s, so each stays under it until s·L; NTK divides only the slowest pair by "
            "exactly s (it stays under until s·L) and the other slow pairs by less (they leave it before s·L)."
        ),
    )


def dynamic_and_attention_factor() -> None:
    show.figure("context-dynamic-base", params)
    show.figure("context-temperature", params)
    what_to_notice(
        _(
            "Dynamic NTK's base stays the original until the sequence outgrows L, then grows with it: "
            "base' = base·(s·seq_len/L − (s − 1))^(d/(d−2))."
        ),
        _(
            "YaRN's attention factor 0.1·ln(s) + 1 (√(1/t) in the paper, t the temperature) multiplies cos and sin, "
            "so the logits by its square; LongRoPE's attention factor is √(1 + ln(s)/ln(L))."
        ),
    )


def base_for_context() -> None:
    params.update(controls.controls(["target_context"], columns=4))
    result = show.figure("context-base-bound", params)
    if result is not None and "smallest_base" in result.data:
        smallest = float(result.data["smallest_base"][0])
        st.markdown(
            _(
                "Smallest base for {target:,} tokens at rotary dim {dim}: **{smallest:,.0f}** (found to one part in "
                "a million)."
            ).format(
                target=params["target_context"],
                dim=int(params["head_dim"] * params["partial_rotary_factor"]),
                smallest=smallest,
            )
        )
        st.button(
            _("Use this base ({smallest:,.0f})").format(smallest=smallest),
            on_click=controls.set_value,
            args=("base", smallest),
            help=_("Sets the base above to the smallest one that keeps B(m) >= 0 over the target context."),
        )
    what_to_notice(
        _(
            "Below the smallest base the bound B(m) dips below zero before the target context: attention can no "
            "longer favour similar tokens at every distance (Men et al. 2024)."
        ),
    )


def methods() -> None:
    try:
        rows = methods_table(
            head_dim=params["head_dim"],
            base=params["base"],
            factor=params["factor"],
            original_max_position_embeddings=params["original_max_position_embeddings"],
            partial_rotary_factor=params["partial_rotary_factor"],
        )
    except ValueError as error:
        st.error(str(error))
        return
    st.table(pd.DataFrame(translated_rows(rows)).set_index("rope_type"))
    st.caption(
        _(
            "One row per rope_type in `posenc_core.rope.scaling`; the attention factor is what that type's function "
            "returns at s = {factor:g} and L = {length:,} (the controls above)."
        ).format(factor=params["factor"], length=params["original_max_position_embeddings"])
    )
    factors = {row["method"]: row["attention factor"].rsplit("= ", 1)[-1] for row in rows}
    sharpened = [f"{cell(method)} ({value})" for method, value in factors.items() if value != "1"]
    untuned = [
        cell(row["method"]) for row in rows if row["fine-tuning"].startswith("no") and row["rope_type"] != "default"
    ]
    what_to_notice(
        _(
            "Only {methods} scale cos and sin, so their logits grow by the square: attention sharpens to make up "
            "for the flatter scores of a longer context. The others return 1."
        ).format(methods=_(" and ").join(sharpened))
        if sharpened
        else _("At s = {factor:g} every type returns an attention factor of 1 (the factors grow with s > 1).").format(
            factor=params["factor"]
        ),
        _(
            "Without fine-tuning: {methods}. The others were fine-tuned with their scaling, briefly for linear and "
            "YaRN."
        ).format(methods=_(", ").join(untuned)),
    )


def layer_by_layer() -> None:
    model = {"layered_model": controls.control("layered_model")}
    result = show.figure("layers-rope-bases", model)
    if result is not None:
        what_to_notice(*layer_notes.layer_points(model, result.data))


show_sections(
    {
        N_("Frequencies"): frequencies,
        N_("YaRN's ramp"): yarn_ramp,
        N_("Angles past L"): angles,
        N_("Dynamic NTK, attention factor"): dynamic_and_attention_factor,
        N_("Base calculator"): base_for_context,
        N_("Methods table"): methods,
        N_("Layer by layer"): layer_by_layer,
    }
)
