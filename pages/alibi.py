"""ALiBi: a fixed linear penalty on distance, one slope per head."""

import streamlit as st

from posenc.figures.alibi import notes
from posenc.i18n import N_, _
from posenc.ui import controls, show
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, show_sections, what_to_notice

ensure_app_router()

st.title(_("📐 ALiBi: attention with linear biases"))
with about():
    st.markdown(
        _(
            "ALiBi adds no vector to the tokens. Instead each head *h* subtracts *m<sub>h</sub>* · distance from every "
            "attention logit, so a key far from the query is penalised in proportion to how far it is. The slopes are "
            "fixed, a geometric sequence: 2<sup>−8/n</sup>, 2<sup>−16/n</sup>, …, 2<sup>−8</sup> for *n* heads, so the "
            "steepest heads look only at the last few tokens, and even the shallowest (m = 2<sup>−8</sup>) keeps 90% "
            "of its attention on the last {span:,} tokens when the content is equal. Nothing is learned and no "
            "position index is stored, which is why ALiBi models (BLOOM, MPT) run on inputs longer than they were "
            "trained on. Every value drawn is computed by `posenc_core.encodings.alibi`."
        ).format(span=notes.shallowest_span(0.9)),
        unsafe_allow_html=True,
    )
    st.latex(r"\mathrm{softmax}\!\Big(\frac{q_i k_j^\top}{\sqrt{d}} - m_h\,(i - j)\Big)\ \ (j \le i)")
    # two lines: one is wider than a phone; the condition is words, in the reader's language
    st.latex(r"m_h = 2^{-8(h+1)/n}\ \ (\text{" + _("n a power of two") + "})")

heads = controls.controls(["n_heads", "alibi_bias_max", "seq_len"], columns=3)
seq_len = heads.pop("seq_len")


def slopes() -> None:
    show.figure("alibi-slopes", heads)
    st.caption(
        _(
            "When n is not a power of two, the reference code takes the 2^⌊log₂ n⌋ slopes of the nearest smaller "
            "power of two and fills the remaining heads with every other slope of the series for twice that power: "
            "the new slopes fall halfway (in log scale) between existing ones instead of repeating them. MPT's "
            "`alibi_bias_max` replaces the 8 in the exponent (2^(−max·(h+1)/n)); at 8 it gives the reference slopes."
        )
    )
    what_to_notice(*notes.slope_points(heads))


def bias_matrices() -> None:
    length = {**heads, "seq_len": seq_len}
    bias = controls.controls(["heads", "mode", "view", "start"], columns=4, chosen=length)
    bias |= controls.controls(["shared_scale"], columns=4)
    result = show.figure("alibi-bias", {**length, **bias})
    st.markdown(
        _(
            "The reference implementation (and BLOOM) adds **m·j**, the key's index, instead of **−m·(i − j)**. For "
            "a fixed query row *i* the two differ by the constant *m·i*, and softmax ignores a constant added to a "
            "whole row: softmax(x + c) = softmax(x). So both give the same attention, and *m·j* is a single (1, L) "
            "row per head that broadcasts over the queries instead of an L × L matrix. The causal mask (−∞ above the "
            "diagonal) hides the keys after the query; the symmetric variant (encoders, MPT's `full=True`) uses "
            "−m·|i − j|."
        )
    )
    if result is not None:
        what_to_notice(*notes.bias_points({**length, **bias}, result.data))


def where_heads_look() -> None:
    mass = controls.controls(["mass"], columns=3)
    length = {**heads, "seq_len": seq_len}
    left, right = st.columns(2)
    with left:
        show.figure("alibi-attention", length)
    with right:
        spans = show.figure("alibi-span", {**length, **mass})
    if spans is not None:
        what_to_notice(*notes.span_points({**length, **mass}, spans.data))


show_sections(
    {
        N_("Slopes per head"): slopes,
        N_("Bias matrices"): bias_matrices,
        N_("Where each head looks"): where_heads_look,
    }
)
