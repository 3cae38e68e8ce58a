"""Why attention needs position: a permutation-equivariant layer cannot tell word orders apart."""

import pandas as pd
import streamlit as st

from figures.why.attention import example_pair
from posenc_core.schemes import facts_table
from ui import controls, show
from ui.router import ensure_app_router
from ui.sections import what_to_notice

ensure_app_router()

st.title("🧩 Why does attention need position?")
st.markdown(
    "Self-attention compares every token with every other token by content alone. Reorder the tokens and "
    "the same comparisons happen, only reordered: the layer is *permutation-equivariant*. So without a "
    "positional signal, *the cat sat on the mat* and *the mat sat on the cat* produce the same set of "
    "outputs. Below, one attention head (fixed random weights, computed by `posenc_core.attention`) reads "
    "both sentences, first from word embeddings alone, then with a sinusoidal encoding added."
)
st.markdown(
    "This holds for attention **without a causal mask**, where every token sees every other one (an encoder, as "
    "here). A decoder's causal mask lets token t see only tokens 0..t, and that mask alone carries order: the first "
    "token sees one token, the tenth sees ten. Models with no position encoding at all (NoPE) rely on it; a NoPE "
    "view will show this later."
)
FORMULAS = (  # two columns: side by side on a screen, one formula a line on a phone
    (r"\mathrm{Attn}(X) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d}}\right) V", r"Q, K, V = XW_Q,\ XW_K,\ XW_V"),
    (r"\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X)\quad\text{(no mask)}",),
)
for column, formulas in zip(st.columns(2), FORMULAS, strict=True):
    with column:
        for formula in formulas:
            st.latex(formula)

params = controls.controls(["sentence_a", "sentence_b", "embedding_dim"], columns=3)
show.figure("why-attention", params)
example = example_pair(params["sentence_a"], params["sentence_b"])
what_to_notice(
    "Without PE, B's heatmap (drawn in A's word order) is A's heatmap: "
    + (
        f"*{example[0]}* attends to *{example[1]}* exactly as much in both sentences (the weights under the figure)."
        if example is not None
        else "each word attends to the same words, wherever it stands."
    ),
    "With PE, the two heatmaps differ: the same word at another position attends differently.",
    "The largest difference printed under the figure is 0 (to float precision) without PE, and clearly not with it.",
)

st.subheader("The schemes at a glance")
st.table(pd.DataFrame(facts_table()).set_index("scheme"))
st.caption("Each scheme has its own page in the sidebar; *Compare* overlays them.")
