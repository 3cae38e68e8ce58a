"""ALiBi: a fixed linear penalty on distance, one slope per head."""

import streamlit as st

from ui import controls, show
from ui.router import ensure_app_router
from ui.sections import show_sections

ensure_app_router()

st.title("📐 ALiBi: attention with linear biases")
st.markdown(
    "ALiBi adds no vector to the tokens. Instead each head *h* subtracts *m<sub>h</sub>* · distance from every "
    "attention logit, so a key far from the query is penalised in proportion to how far it is. The slopes are "
    "fixed, a geometric sequence: 2<sup>−8/n</sup>, 2<sup>−16/n</sup>, …, 2<sup>−8</sup> for *n* heads, so some "
    "heads look only at the last few tokens and others across thousands. Nothing is learned and no position "
    "index is stored, which is why ALiBi models (BLOOM, MPT) run on inputs longer than they were trained on. "
    "Every value drawn is computed by `posenc_core.alibi`.",
    unsafe_allow_html=True,
)
st.latex(
    r"\mathrm{softmax}\!\Big(\frac{q_i k_j^\top}{\sqrt{d}} - m_h\,(i - j)\Big)\ \ (j \le i),\qquad "
    r"m_h = 2^{-8(h+1)/n}\ \ (n \text{ a power of two})"
)

heads = controls.controls(["n_heads", "alibi_bias_max", "seq_len"], columns=3)
seq_len = heads.pop("seq_len")


def slopes() -> None:
    show.figure("alibi-slopes", heads)
    st.caption(
        "When n is not a power of two, the reference code takes the 2^⌊log₂ n⌋ slopes of the nearest smaller "
        "power of two and fills the remaining heads with every other slope of the series for twice that power: the "
        "new slopes fall halfway (in log scale) between existing ones instead of repeating them. MPT's "
        "`alibi_bias_max` replaces the 8 in the exponent (2^(−max·(h+1)/n)); at 8 it gives the reference slopes."
    )


def bias_matrices() -> None:
    bias = controls.controls(["heads", "mode", "view", "start"], columns=4, chosen={**heads, "seq_len": seq_len})
    show.figure("alibi-bias", {**heads, **bias, "seq_len": seq_len})
    st.markdown(
        "The reference implementation (and BLOOM) adds **m·j**, the key's index, instead of **−m·(i − j)**. For "
        "a fixed query row *i* the two differ by the constant *m·i*, and softmax ignores a constant added to a "
        "whole row: softmax(x + c) = softmax(x). So both give the same attention, and *m·j* is a single (1, L) row "
        "per head that broadcasts over the queries instead of an L × L matrix. The causal mask (−∞ above the "
        "diagonal) hides the keys after the query; the symmetric variant (encoders, MPT's `full=True`) uses "
        "−m·|i − j|."
    )


def where_heads_look() -> None:
    mass = controls.controls(["mass"], columns=3)
    length = {**heads, "seq_len": seq_len}
    left, right = st.columns(2)
    with left:
        show.figure("alibi-attention", length)
    with right:
        show.figure("alibi-span", {**length, **mass})


show_sections({"Slopes per head": slopes, "Bias matrices": bias_matrices, "Where each head looks": where_heads_look})

st.markdown(
    "**What to notice**\n"
    "- The slopes halve (n = 8) or shrink by 2^(−8/n) from head to head: on a log axis the bars fall on a "
    "straight line, and the interleaved heads of a non-power-of-two n land between them.\n"
    "- In the bias matrix every diagonal is constant: ALiBi depends only on the distance i − j.\n"
    "- With equal content the attention weights fall geometrically with distance, by e^(−m) per token: the "
    "steepest head puts most of its weight on the last few tokens, the shallowest on hundreds.\n"
    "- The effective span does not grow with the context: past it a head sees almost nothing, however long the "
    "input. Long-range information has to be carried by the shallow heads and by depth.\n"
    "- Presets: *BLOOM-176B* (112 heads, not a power of two) and *MPT-7B* (32 heads, alibi_bias_max = 8)."
)
