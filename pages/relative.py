"""Relative positions: Shaw et al.'s clipped index and T5's log-spaced buckets."""

import streamlit as st

from posenc.figures.relative import notes
from posenc.figures.relative.t5 import t5_bucket_table
from posenc.i18n import N_, _
from posenc.ui import controls, show
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, show_sections, what_to_notice

ensure_app_router()

st.title(_("↔️ Relative positions: Shaw and T5"))
with about():
    st.markdown(
        _(
            "Relative schemes never look at a token's absolute position: the *positional term* of the attention score "
            "between query *i* and key *j* depends only on the offset *j − i*. The attention itself still depends on "
            "what the tokens are (the content term q·k), so two pairs at the same offset need not attend alike. Each "
            "offset selects a learned vector (Shaw et al.) or a learned scalar per head (T5). A finite table needs a "
            "finite set of offsets, so both schemes compress distances: Shaw **clips** every offset to ±k, T5 "
            "**buckets** them, one bucket per offset near 0 and logarithmically wider buckets further away, up to "
            "`max_distance`, after which every offset shares the last bucket. Queries are rows, keys are columns; "
            "every value drawn is computed by `posenc_core.encodings.relative`."
        )
    )

# 128 positions: Shaw's clipped band (k = 16) is a visible eighth of the matrix, and T5's last bucket appears
positions = controls.controls(["seq_len", "view", "start"], columns=3, starts={"seq_len": 128})


def shaw() -> None:
    params = {**positions, **controls.controls(["clip_distance"], columns=3)}
    drawn = show.figure("relative-shaw", params)
    st.latex(  # under the figure: the page opens on the clipped matrix
        r"\mathrm{index}(i, j) = \mathrm{clip}(j - i,\,-k,\,k) + k \in [0, 2k],\qquad "
        r"e_{ij} = \frac{x_i W_Q\,(x_j W_K + a^K_{\mathrm{index}(i,j)})^\top}{\sqrt{d}}"
    )
    if drawn is not None:
        what_to_notice(*notes.shaw_points(params))


def t5() -> None:
    st.latex(
        r"b(r) = \begin{cases} |r| & |r| < n_{\mathrm{exact}} \\ "
        r"\min\!\Big(n_{\mathrm{exact}} + \Big\lfloor \frac{\ln(|r|/n_{\mathrm{exact}})}{\ln(D/n_{\mathrm{exact}})}"
        r"(B - n_{\mathrm{exact}}) \Big\rfloor,\; B-1\Big) & \text{otherwise} \end{cases}"
        r"\qquad r = j - i,\; n_{\mathrm{exact}} = B/2"
    )
    st.caption(
        _(
            "B = buckets per side, D = max_distance (it must exceed n_exact). Bidirectional (encoder): B = "
            "num_buckets/2 and keys after the query add B to the bucket. Causal (decoder): B = num_buckets for the "
            "past, and every key after the query gets bucket 0. The logit gets a learned scalar per (bucket, head), "
            "shared by all layers; T5 does not divide by √d."
        )
    )
    buckets = controls.controls(["num_buckets", "max_distance", "bidirectional"], columns=3)
    if show.figure("relative-t5-bucket", buckets) is None:  # the settings were refused, with a message
        show.figure("relative-t5-matrix", {**buckets, **positions})
        return
    st.markdown("**{}**".format(_("Which offsets share a bucket")))
    st.dataframe(t5_bucket_table(buckets), hide_index=True, width="stretch", height=300)
    show.figure("relative-t5-matrix", {**buckets, **positions})
    what_to_notice(*notes.t5_points({**buckets, **positions}))


show_sections(
    {
        N_("Shaw et al. (2018): clipped relative index"): shaw,
        N_("T5 (Raffel et al. 2020): relative position buckets"): t5,
    }
)
