"""Relative positions: Shaw et al.'s clipped index and T5's log-spaced buckets."""

import streamlit as st

from figures.relative.t5 import t5_bucket_table
from ui import controls, show
from ui.router import ensure_app_router
from ui.sections import show_sections

ensure_app_router()

st.title("↔️ Relative positions: Shaw and T5")
st.markdown(
    "Relative schemes never look at a token's absolute position: attention between query *i* and key *j* "
    "depends only on the offset *j − i*. Each offset selects a learned vector (Shaw et al.) or a learned scalar "
    "per head (T5). A finite table needs a finite set of offsets, so both schemes compress distances: Shaw "
    "**clips** every offset to ±k, T5 **buckets** them, one bucket per offset near 0 and logarithmically wider "
    "buckets further away, up to `max_distance`, after which every offset shares the last bucket. Queries are "
    "rows, keys are columns; every value drawn is computed by `posenc_core.relative`."
)

positions = controls.controls(["seq_len", "view", "start"], columns=3)


def shaw() -> None:
    st.latex(
        r"\mathrm{index}(i, j) = \mathrm{clip}(j - i,\,-k,\,k) + k \in [0, 2k],\qquad "
        r"e_{ij} = \frac{x_i W_Q\,(x_j W_K + a^K_{\mathrm{index}(i,j)})^\top}{\sqrt{d}}"
    )
    show.figure("relative-shaw", {**positions, **controls.controls(["clip_distance"], columns=3)})


def t5() -> None:
    st.latex(
        r"b(r) = \begin{cases} |r| & |r| < n_{\mathrm{exact}} \\ "
        r"\min\!\Big(n_{\mathrm{exact}} + \Big\lfloor \frac{\ln(|r|/n_{\mathrm{exact}})}{\ln(D/n_{\mathrm{exact}})}"
        r"(B - n_{\mathrm{exact}}) \Big\rfloor,\; B-1\Big) & \text{otherwise} \end{cases}"
        r"\qquad r = j - i,\; n_{\mathrm{exact}} = B/2"
    )
    st.caption(
        "B = buckets per side, D = max_distance. Bidirectional (encoder): B = num_buckets/2 and keys after the query "
        "add B to the bucket. Causal (decoder): B = num_buckets for the past, and every key after the query gets "
        "bucket 0. The logit gets a learned scalar per (bucket, head), shared by all layers; T5 does not divide by √d."
    )
    buckets = controls.controls(["num_buckets", "max_distance", "bidirectional"], columns=3)
    if show.figure("relative-t5-bucket", buckets) is not None:  # None: the settings were refused, with a message
        st.markdown("**Which offsets share a bucket**")
        st.dataframe(t5_bucket_table(buckets), hide_index=True, width="stretch", height=300)
    show.figure("relative-t5-matrix", {**buckets, **positions})


show_sections(
    {
        "Shaw et al. (2018): clipped relative index": shaw,
        "T5 (Raffel et al. 2020): relative position buckets": t5,
    }
)

st.markdown(
    "**What to notice**\n"
    "- Shaw: along every diagonal the index is constant (only *j − i* matters); beyond ±k the index saturates "
    "at 0 or 2k, so the model cannot tell a distance of k from 10k. The window at any start looks the same.\n"
    "- T5: the first buckets each hold one offset (exact region), then bucket widths grow geometrically "
    "(log region): nearby tokens are told apart finely, distant ones coarsely.\n"
    "- Every offset of `max_distance` or more shares the last bucket: at long context most of the matrix is "
    "one colour, which is why T5 extrapolates (no new buckets appear) but cannot tell far tokens apart.\n"
    "- Causal: keys after the query all fall into bucket 0, and past offsets use all B buckets; bidirectional "
    "splits B between the two sides.\n"
    "- The preset *T5-base* sets num_buckets = 32 and max_distance = 128 (12 heads, 512 training positions)."
)
