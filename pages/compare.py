"""Compare: two to four schemes' similarity against relative distance, RoPE's decay bound, and their metrics."""

import pandas as pd
import streamlit as st

from posenc.figures.compare.items import syntax_help
from posenc.figures.compare.metrics import comparison_rows
from posenc.figures.why.schemes import translated_facts_table
from posenc.i18n import N_, _
from posenc.ui import controls, show
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, show_sections, what_to_notice

ensure_app_router()

st.title(_("⚖️ Compare positional encodings"))
with about():
    st.markdown(
        _(
            "How quickly does each scheme forget how far apart two tokens are? To put them on one footing, every curve "
            "below is a *similarity against relative distance k*, equal to 1 at k = 0. For an absolute table "
            "(sinusoidal, learned) it is the mean over positions p of PE(p)·PE(p+k); for RoPE the attention score of a "
            "rotated query and key that are both all-ones; for ALiBi the attention a head gives a key k tokens back, "
            "relative to the current token, when the contents are equal. T5's bias is a learned scalar per bucket, so "
            "instead of a curve it shows how many distances it can tell apart. Every value is computed by "
            "`posenc_core`."
        )
    )
    st.latex(
        r"s_{\text{abs}}(k) = \frac{\operatorname{mean}_p PE(p)\cdot PE(p+k)}"
        r"{\operatorname{mean}_p \lVert PE(p)\rVert^2},"
        r"\qquad s_{\text{RoPE}}(k) = \frac{1}{d/2}\sum_{i=0}^{d/2-1}\cos(k\theta_i)"
    )
    st.latex(r"s_{\text{ALiBi}}(k) = e^{-m k},\qquad \text{T5: } \#\{\text{bucket}(j) : 0 \le j \le k\}")

params = {"schemes": controls.control("schemes")}
for column, name in zip(st.columns(5), ("seq_len", "d_model", "head_dim", "base", "distance_axis"), strict=True):
    with column:
        label = _("Context L") if name == "seq_len" else None
        least = (2, _("distances need two positions")) if name == "seq_len" else None
        params[name] = controls.control(name, label=label, least=least)
with st.expander(_("How to write the schemes, and what the controls set")):
    st.caption(_("Items: {items}").format(items=syntax_help()))
    st.caption(
        _(
            "Distances k run from 0 to L − 1. d_model is the width of `sinusoidal` and `learned`; head_dim and base "
            "are those of plain `rope`."
        )
    )


def similarity() -> None:
    result = show.figure("compare-similarity", params)
    if result is not None:
        rows = comparison_rows(result, params)
        table = pd.DataFrame(rows).set_index(_("scheme")).T  # one column per scheme
        st.table(table.rename_axis(_("metric")))  # a static table wraps long scheme names instead of cutting them
        st.caption(
            _(
                "u(p) = the row for position p scaled to unit length: the PE row (sinusoidal, learned) or the rotated "
                "all-ones vector R(p)·1 (RoPE), over the first 256 positions (a learned table: all its rows up to L). "
                "“First k with similarity < 0.5” is exact up to k = 1,023, then read off the sampled curve (≤). "
                "Distinct signals: how many different position signals the distances 0 … L−1 produce."
            )
        )
    what_to_notice(
        _(
            "Sinusoidal with d_model = 128 and plain RoPE with head_dim = 128 (both base 10000) draw the same curve: "
            "both are Σ cos(kθ_i) over the same frequencies. RoPE puts that sum inside the attention score: q and k "
            "weight each of its terms, but no term mixes content with absolute position, as the cross terms of an "
            "added encoding do."
        ),
        _(
            "A larger base (Llama-3.1: 500000) and context scaling keep the similarity high over longer distances; the "
            "longest wavelength in the table tells how far the slowest pair turns less than once."
        ),
        _(
            "ALiBi falls exponentially: a head of slope m halves its attention every ln 2 / m tokens, at any context "
            "length."
        ),
        _(
            "A random (untrained) learned table has no notion of distance: its rows are unrelated, the similarity is "
            "noise from k = 1, and it has no row past its length. A trained table (`learned:all-minilm-l6-v2`) decays."
        ),
        _("T5 tells only its bucket count of distances apart: past max_distance every distance looks the same."),
    )


def decay_bound() -> None:
    show.figure("compare-decay", params)
    what_to_notice(
        _(
            "The RoFormer bound falls with k, faster for small bases: the long-term decay RoPE is known for. It bounds "
            "the score; the score itself oscillates under it."
        ),
    )


show_sections(
    {
        N_("Similarity against distance"): similarity,
        N_("RoPE's long-term decay bound"): decay_bound,
    }
)

with st.expander(_("The schemes at a glance")):
    st.table(pd.DataFrame(translated_facts_table()).set_index(_("scheme")))
