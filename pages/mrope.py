"""M-RoPE: Qwen2-VL's three position ids (temporal, height, width) for a sequence of text, images and video."""

import streamlit as st

from ui import controls, show
from ui.router import ensure_app_router
from ui.sections import show_sections

ensure_app_router()

st.title("🖼️ M-RoPE: positions for text, images and video")
st.markdown(
    "A vision-language model reads text tokens and image patches in one sequence. Qwen2-VL's multimodal RoPE "
    "gives every token **three** position ids, temporal (T), height (H) and width (W), and splits RoPE's "
    "frequency pairs into three groups, one per id. A text token gets the same id on all three axes, one more "
    "per token, which is plain RoPE. An image of t × h × w patches is merged m × m into t·(h/m)·(w/m) tokens "
    "that share one T id and are numbered by their row (H) and column (W), starting at the next free id; the "
    "text after it continues from the largest id + 1. So an image costs many tokens but few ids, and the "
    "*rope delta* (largest id + 1 − number of tokens) is negative. Every id and angle is computed by "
    "`posenc_core.mrope`."
)
st.latex(
    r"\theta_{n,i} = p^{\,a(i)}_n\,\omega_i,\quad \omega_i = b^{-2i/d},\quad "
    r"a(i) = \begin{cases} T & i < s_T \\ H & s_T \le i < s_T + s_H \\ W & \text{otherwise} \end{cases}"
    r",\qquad s_T + s_H + s_W = d/2"
)

segments = {"segments": controls.control("segments")}
st.caption(
    "Items: `text:N` · `image:TxHxW` (or `image:HxW`) · `video:TxHxW`, in patches (Qwen2-VL: 14-pixel patches, "
    "a video's T counts pairs of frames); H and W must be divisible by spatial_merge_size. At most 4,096 tokens."
)
with st.columns(2)[0]:
    segments["spatial_merge_size"] = controls.control("spatial_merge_size")


def frequency_pairs() -> None:
    pairs = controls.controls(["mrope_section", "mrope_layout", "head_dim", "base"], columns=4)
    show.figure("mrope-channels", {**segments, **pairs})


def token_grid() -> None:
    with st.columns(2)[0]:
        vision = {"vision_index": controls.control("vision_index", widget="number")}
    show.figure("mrope-grid", {**segments, **vision})


show_sections(
    {
        "Three rows of position ids": lambda: show.figure("mrope-position-ids", segments),
        "Which frequency pairs each axis turns": frequency_pairs,
        "One image or video on its token grid": token_grid,
    }
)

st.markdown(
    "**What to notice**\n"
    "- Text tokens climb the dotted diagonal on all three rows: with text only, M-RoPE *is* 1-D RoPE.\n"
    "- An image holds its T id for all its tokens while H steps once per token row and W sweeps each row, so a "
    "12-patch-wide image adds only a handful of ids. The text after it resumes from the largest id + 1, below "
    "the dotted line: the rope delta is negative.\n"
    "- A video's T id steps once per frame (pair of frames): the same patch in the next frame is one T id away.\n"
    "- The T pairs are the first, fastest-turning frequencies; H and W take the slower ones. In the angle "
    "heatmap the T columns stay constant across an image, the H columns change between its rows, the W columns "
    "along each row.\n"
    "- The Qwen2-VL-7B preset sets mrope_section = 16, 24, 24 and head_dim = 128 (base 1,000,000); the "
    "sections must add up to head_dim / 2."
)
