"""Why attention needs position: a permutation-equivariant layer cannot tell word orders apart."""

import pandas as pd
import streamlit as st

from posenc import i18n
from posenc.figures.why.attention import EXAMPLE_SENTENCES, example_pair
from posenc.figures.why.recurrent import shared_prefix
from posenc.figures.why.schemes import shown, translated_facts_table
from posenc.i18n import N_, _
from posenc.ui import controls, echo, show
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, formulas, show_sections, what_to_notice

ensure_app_router()

st.title(_("🧩 Why does attention need position?"))
example_a, example_b = EXAMPLE_SENTENCES[i18n.current()]
st.markdown(  # the page's point, before anything else
    _(
        "**One attention head cannot tell *{a}* from *{b}* without positional encoding:** every word gets the same "
        "output in both orders. An RNN, which reads one word after another, tells them apart."
    ).format(a=example_a, b=example_b)
)
with about():
    st.markdown(
        _(
            "A recurrent network (RNN) reads a sentence one word after another: the state after word t is computed "
            "from the state after word t − 1, so the position of a word is the step at which it is read, and word "
            "order is in the state by construction. Self-attention reads all the words at once and compares every "
            "token with every other token by content alone. Reorder the tokens and the same comparisons happen, only "
            "reordered: the layer is *permutation-equivariant*. So without a positional signal, *the cat sat on the "
            "mat* and *the mat sat on the cat* produce the same set of outputs. Below, a small RNN and one attention "
            "head (fixed random weights, computed by `posenc_core.teaching.recurrent` and "
            "`posenc_core.teaching.attention`) read both "
            "sentences."
        )
    )
    st.markdown(
        _(
            "This holds for attention **without a causal mask**, where every token sees every other one (an encoder, "
            "as here). A decoder's causal mask lets token t see only tokens 0..t, and that mask alone carries order: "
            "the first token sees one token, the tenth sees ten. Models with no position encoding at all (NoPE) rely "
            "on it; the NoPE and sinks page measures it."
        )
    )
    FORMULAS = (  # two columns
        (r"\text{RNN: } h_t = \tanh(W h_{t-1} + U x_t)", r"Q, K, V = XW_Q,\ XW_K,\ XW_V"),
        (
            r"\mathrm{Attn}(X) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d}}\right) V",
            r"\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X)\quad\text{(no mask)}",
        ),
    )
    formulas(FORMULAS)

SENTENCES = ("sentence_a", "sentence_b")
# the example pair of the reader's language, unless the link sets a sentence (then the other keeps the English one,
# so a link written before the languages still opens on a matching pair)
linked = any(name in st.query_params for name in SENTENCES)
starts = {} if linked else dict(zip(SENTENCES, (example_a, example_b), strict=True))
params = controls.controls([*SENTENCES, "embedding_dim", "hidden_dim"], columns=4, starts=starts)


def one_step_after_another() -> None:
    result = show.figure("why-rnn-vs-attention", params)  # the page's point: attention's bars are 0
    show.figure("why-rnn-states", params)
    if result is None:
        return
    shared = shared_prefix(result.data["rnn_gap"])
    if shared > 1:
        first_rows = _(
            "The RNN's first {count} rows are equal in A and B (the same words, read in the same order); from the "
            "first word that moved on, every row differs: a state carries the words before it, in their order."
        ).format(count=shared)
    elif shared:
        first_rows = _(
            "The RNN's first {count} row is equal in A and B (the same words, read in the same order); from the first "
            "word that moved on, every row differs: a state carries the words before it, in their order."
        ).format(count=shared)
    else:
        first_rows = _("Every RNN row differs between A and B: a state carries the words before it, in their order.")
    what_to_notice(
        first_rows,
        (
            _(
                "The last rows (the state after the whole sentence) differ: the RNN tells the two orders apart with "
                "no position encoding at all. The price is the loop: step t waits for step t − 1."
            )
            if result.data["rnn_gap"][-1] > 0
            else _("B reads its words in A's order, so the RNN's states are the same too: reorder B to see them part.")
        ),
        _(
            "In the bar chart the attention bars are 0: without PE each word's attention output is the same in both "
            "sentences, so attention alone cannot tell them apart."
        ),
    )


def all_at_once() -> None:
    show.figure("why-attention", params)
    example = example_pair(params["sentence_a"], params["sentence_b"])
    what_to_notice(
        _(
            "Without PE, B's heatmap (drawn in A's word order) is A's heatmap: *{query}* attends to *{key}* exactly "
            "as much in both sentences (the weights under the figure)."
        ).format(query=echo.plain(example[0]), key=echo.plain(example[1]))  # the reader's words: plain text
        if example is not None
        else _(
            "Without PE, B's heatmap (drawn in A's word order) is A's heatmap: each word attends to the same words, "
            "wherever it stands."
        ),
        _("With PE, the two heatmaps differ: the same word at another position attends differently."),
        _(
            "The largest difference printed under the figure is 0 (to float precision) without PE, and clearly not "
            "with it."
        ),
    )


show_sections({N_("RNN: one step after another"): one_step_after_another, N_("Attention: all at once"): all_at_once})

st.subheader(_("The schemes at a glance"))
st.table(pd.DataFrame(translated_facts_table()).set_index(shown("scheme")))
st.caption(_("Each scheme has its own page in the sidebar; *Compare* overlays them."))
