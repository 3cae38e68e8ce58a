"""M-RoPE: Qwen2-VL's three position ids (temporal, height, width) for a sequence of text, images and video."""

import streamlit as st

from posenc.figures.mrope import notes
from posenc.i18n import N_, _
from posenc.ui import controls, show
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, show_sections, what_to_notice

ensure_app_router()

st.title(_("🖼️ M-RoPE: positions for text, images and video"))
with about():
    st.markdown(
        _(
            "A vision-language model reads text tokens and image patches in one sequence. Qwen2-VL's multimodal RoPE "
            "gives every token **three** position ids, temporal (T), height (H) and width (W), and splits RoPE's "
            "frequency pairs into three groups, one per id. A text token gets the same id on all three axes, one more "
            "per token, which is plain RoPE. An image or video of t × h × w patches is merged m × m into t·(h/m)·(w/m) "
            "tokens, numbered by their temporal patch (T), row (H) and column (W), starting at the next free id: the "
            "tokens of one temporal patch share a T id, so an image (t = 1, a single temporal patch) has one T id for "
            "all its tokens, while a video's T steps once per temporal patch, every two frames (Qwen2.5-VL steps it "
            "by absolute time instead, tokens_per_second ids per second). The text after it continues from the "
            "largest id + 1. So an image costs "
            "many tokens but few ids, and the *rope delta* (largest id + 1 − number of tokens) is negative. Every id "
            "and angle is computed by `posenc_core.rope.mrope`."
        )
    )
    st.latex(r"\theta_{n,i} = p^{\,a(i)}_n\,\omega_i,\qquad \omega_i = b^{-2i/d}")

OTHERWISE = r"\text{" + _("otherwise") + "}"  # the word of the last case, in the reader's language
AXIS_OF_PAIR = {  # a(i), the axis whose id turns pair i, in each pair order (s_T + s_H + s_W = d/2)
    "qwen2_vl": r"a(i) = \begin{cases} T & i < s_T \\ H & s_T \le i < s_T + s_H \\ W & " + OTHERWISE + r" \end{cases}",
    "interleaved": r"a(i) = \begin{cases} H & i \bmod 3 = 1,\ i < 3 s_H \\ W & i \bmod 3 = 2,\ i < 3 s_W \\ "
    r"T & " + OTHERWISE + r" \end{cases}",
}

items, merge = st.columns([3, 1])
with items:
    segments = {"segments": controls.control("segments")}
with merge:
    segments["spatial_merge_size"] = controls.control("spatial_merge_size")
st.caption(
    _(
        "Items: `text:N` · `image:TxHxW` (or `image:HxW`, t = 1) · `video:TxHxW`, in patches (Qwen2-VL: 14-pixel "
        "patches, a video's T counts pairs of frames); H and W must be divisible by spatial_merge_size. At most 4,096 "
        "tokens."
    )
)


def position_ids() -> None:
    result = show.figure("mrope-position-ids", segments)
    if result is not None:
        what_to_notice(*notes.id_points(segments, result.data))


def frequency_pairs() -> None:
    pairs = controls.controls(["mrope_section", "mrope_layout", "head_dim", "base"], columns=4)
    st.latex(AXIS_OF_PAIR[pairs["mrope_layout"]])
    result = show.figure("mrope-channels", {**segments, **pairs})
    if result is not None:
        what_to_notice(*notes.pair_points(pairs, result.data))


def token_grid() -> None:
    with st.columns(2)[0]:
        vision = {"vision_index": controls.control("vision_index", widget="number")}
    result = show.figure("mrope-grid", {**segments, **vision})
    if result is not None:
        what_to_notice(*notes.grid_points(result.data))


show_sections(
    {
        N_("Three rows of position ids"): position_ids,
        N_("Which frequency pairs each axis turns"): frequency_pairs,
        N_("One image or video on its token grid"): token_grid,
    }
)
