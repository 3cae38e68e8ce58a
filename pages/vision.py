"""Vision (2-D): positions of image patches. A ViT's grid and [CLS], MAE's 2-D sin-cos table, a learned table
resized to a new grid, and the axial 2-D RoPE of vision towers."""

import streamlit as st

from posenc.figures.vision import notes
from posenc.i18n import N_, _
from posenc.ui import controls, show
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, show_sections, what_to_notice

ensure_app_router()

st.title(_("🧱 Vision: positions on a 2-D grid"))
with about():
    st.markdown(
        _(
            "A Vision Transformer cuts an image into patches (16 × 16 pixels: a 224-pixel image gives 14 × 14) and "
            "reads them as one sequence, row by row, after a [CLS] token. A patch's neighbour below is a whole row of "
            "tokens away, so a position code for images says where a patch is on the grid: its row r and its column c. "
            "MAE's sin-cos table spends half the channels on each; a learned table (ViT, DeiT) is one trained row per "
            "patch and is resized as an image when the input grows; vision towers such as Qwen2-VL's rotate half of "
            "each head's pairs by the row and half by the column. Every number is computed by "
            "`posenc_core.encodings.vision` and "
            "`posenc_core.rope.vision`."
        )
    )
    st.latex(
        r"\mathrm{PE}(r, c) = [\sin c\omega,\ \cos c\omega,\ \sin r\omega,\ \cos r\omega],\quad "
        r"\omega_k = 10000^{-4k/D}"
    )

grid = controls.controls(["grid_h", "grid_w", "cls_token"], columns=3)


def patch_grid() -> None:
    result = show.figure("vision-patch-grid", grid)
    if result is not None:
        what_to_notice(*notes.grid_points(grid, result.data))


def sincos_table() -> None:
    values = grid | controls.controls(["embed_dim", "patch_row", "patch_col"], columns=3, chosen=grid)
    table = show.figure("vision-sincos-table", values)
    if table is not None:
        what_to_notice(*notes.table_points(values, table.data))
    similar = show.figure("vision-sincos-similarity", values)
    if similar is not None:
        what_to_notice(*notes.similarity_points(values, similar.data))


def resized_table() -> None:
    # the words are in the reader's language; i and the position stay math
    st.latex(
        r"T'[i, j] = \sum_{a, b} w_{ia}\, w_{jb}\, T[a, b],\quad \text{"
        + _("cell {i} reads {position}").format(i=r"}i\text{", position=r"}(i + 0.5)\,H/H' - 0.5\text{")
        + "}"
    )
    values = controls.controls(["old_grid", "new_grid", "resize_mode", "antialias", "channel", "seed"], columns=3)
    result = show.figure("vision-resize", values)
    if result is not None:
        what_to_notice(*notes.resize_points(values, result.data))


def rope_2d() -> None:
    st.latex(
        r"\theta(r, c) = [\,r\,\omega_0, \dots, r\,\omega_{d/4-1},\ c\,\omega_0, \dots, c\,\omega_{d/4-1}\,],"
        r"\quad \omega_j = b^{-4j/d}"
    )
    values = grid | controls.controls(["vision_head_dim", "vision_base", "frequency", "spatial_merge_size"], columns=4)
    result = show.figure("vision-rope-angles", values)
    if result is not None:
        what_to_notice(*notes.rope_points(values, result.data))


show_sections(
    {
        N_("Patches and [CLS]"): patch_grid,
        N_("2-D sin-cos table"): sincos_table,
        N_("Resizing a learned table"): resized_table,
        N_("2-D RoPE"): rope_2d,
    }
)
