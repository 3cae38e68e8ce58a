"""Why attention needs position: a permutation-equivariant layer cannot tell word orders apart."""

import pandas as pd
import streamlit as st

from posenc_core.schemes import facts_table
from ui import controls, show
from ui.router import ensure_app_router

ensure_app_router()

st.title("🧩 Why does attention need position?")
st.markdown(
    "Self-attention compares every token with every other token by content alone. Reorder the tokens and "
    "the same comparisons happen, only reordered: the layer is *permutation-equivariant*. So without a "
    "positional signal, *the cat sat on the mat* and *the mat sat on the cat* produce the same set of "
    "outputs. Below, one attention head (fixed random weights, computed by `posenc_core.attention`) reads "
    "both sentences, first from word embeddings alone, then with a sinusoidal encoding added."
)
st.latex(
    r"\mathrm{Attn}(X) = \mathrm{softmax}\!\left(\frac{XW_Q (XW_K)^\top}{\sqrt{d}}\right) XW_V,\qquad "
    r"\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X)"
)

params = controls.controls(["sentence_a", "sentence_b", "embedding_dim"], columns=3)
show.figure("why-attention", params)

st.markdown(
    "**What to notice**\n"
    "- Without PE, each word's row in B is the same row as in A, moved: *cat* attends to *mat* exactly as much "
    "in both sentences.\n"
    "- With PE, the rows change: the same word at another position attends differently.\n"
    "- The difference printed under the figure is 0 (to float precision) without PE, and clearly not with it."
)

st.subheader("The schemes at a glance")
st.table(pd.DataFrame(facts_table()).set_index("scheme"))
st.caption("Each scheme has its own page in the sidebar; *Compare* overlays them.")
