"""Why attention needs position: a permutation-equivariant layer cannot tell word orders apart."""

import pandas as pd
import streamlit as st

from figures.why.attention import example_pair
from figures.why.recurrent import shared_prefix
from posenc_core.schemes import facts_table
from ui import controls, show
from ui.router import ensure_app_router
from ui.sections import show_sections, what_to_notice

ensure_app_router()

st.title("🧩 Why does attention need position?")
st.markdown(
    "A recurrent network (RNN) reads a sentence one word after another: the state after word t is computed from "
    "the state after word t − 1, so the position of a word is the step at which it is read, and word order is in "
    "the state by construction. Self-attention reads all the words at once and compares every token with every "
    "other token by content alone. Reorder the tokens and the same comparisons happen, only reordered: the layer "
    "is *permutation-equivariant*. So without a positional signal, *the cat sat on the mat* and *the mat sat on "
    "the cat* produce the same set of outputs. Below, a small RNN and one attention head (fixed random weights, "
    "computed by `posenc_core.recurrent` and `posenc_core.attention`) read both sentences."
)
st.markdown(
    "This holds for attention **without a causal mask**, where every token sees every other one (an encoder, as "
    "here). A decoder's causal mask lets token t see only tokens 0..t, and that mask alone carries order: the first "
    "token sees one token, the tenth sees ten. Models with no position encoding at all (NoPE) rely on it; a NoPE "
    "view will show this later."
)
FORMULAS = (  # two columns: side by side on a screen, one formula a line on a phone
    (r"\text{RNN: } h_t = \tanh(W h_{t-1} + U x_t)", r"Q, K, V = XW_Q,\ XW_K,\ XW_V"),
    (
        r"\mathrm{Attn}(X) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d}}\right) V",
        r"\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X)\quad\text{(no mask)}",
    ),
)
for column, formulas in zip(st.columns(2), FORMULAS, strict=True):
    with column:
        for formula in formulas:
            st.latex(formula)

params = controls.controls(["sentence_a", "sentence_b", "embedding_dim"], columns=3)


def one_step_after_another() -> None:
    with st.columns(3)[0]:
        params["hidden_dim"] = controls.control("hidden_dim")
    show.figure("why-rnn-states", params)
    result = show.figure("why-rnn-vs-attention", params)
    if result is None:
        return
    shared = shared_prefix(result.data["rnn_gap"])
    what_to_notice(
        (
            f"The RNN's first {shared} row{'s are' if shared > 1 else ' is'} equal in A and B (the same words, read "
            "in the same order); from the first word that moved on, every row differs: a state carries the words "
            "before it, in their order."
            if shared
            else "Every RNN row differs between A and B: a state carries the words before it, in their order."
        ),
        (
            "The last rows (the state after the whole sentence) differ: the RNN tells the two orders apart with no "
            "position encoding at all. The price is the loop: step t waits for step t − 1."
            if result.data["rnn_gap"][-1] > 0
            else "B reads its words in A's order, so the RNN's states are the same too: reorder B to see them part."
        ),
        "In the bar chart the attention bars are 0: without PE each word's attention output is the same in both "
        "sentences, so attention alone cannot tell them apart.",
    )


def all_at_once() -> None:
    show.figure("why-attention", params)
    example = example_pair(params["sentence_a"], params["sentence_b"])
    what_to_notice(
        "Without PE, B's heatmap (drawn in A's word order) is A's heatmap: "
        + (
            f"*{example[0]}* attends to *{example[1]}* exactly as much in both sentences (the weights under the "
            "figure)."
            if example is not None
            else "each word attends to the same words, wherever it stands."
        ),
        "With PE, the two heatmaps differ: the same word at another position attends differently.",
        "The largest difference printed under the figure is 0 (to float precision) without PE, and clearly not with "
        "it.",
    )


show_sections({"RNN: one step after another": one_step_after_another, "Attention: all at once": all_at_once})

st.subheader("The schemes at a glance")
st.table(pd.DataFrame(facts_table()).set_index("scheme"))
st.caption("Each scheme has its own page in the sidebar; *Compare* overlays them.")
