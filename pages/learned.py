"""Learned absolute position embeddings: a table with one trained row per position, and nothing past its end."""

import pandas as pd
import streamlit as st

from posenc.drawing.params import defaults
from posenc.figures.learned import notes
from posenc.figures.learned import params as learned_params
from posenc.figures.learned import sources as learned_sources
from posenc.figures.learned.versus import comparison_rows
from posenc.i18n import N_, _
from posenc.ui import controls, echo, model_id, show, tables
from posenc.ui.router import ensure_app_router
from posenc.ui.sections import about, show_sections, what_to_notice

ensure_app_router()

st.title(_("📚 Learned position embeddings"))
with about():
    st.markdown(
        _(
            "BERT and GPT-2 do not compute a position code: they learn one. A table T with one row per position (512 "
            "rows for BERT, 1024 for GPT-2) starts as small random numbers and is trained with the rest of the model; "
            "the row T[p] is added to the token embedding at position p. Nothing ties T[p] to T[p+1] except what "
            "training put there, and there is no row for a position the table does not have: a longer context needs "
            "more rows, interpolated from the trained ones or trained. Below: a seeded random (untrained) table, a "
            "real trained table, or one you upload."
        )
    )
    st.latex(
        r"x_p = e_{\mathrm{token}(p)} + T[p],\qquad T \in \mathbb{R}^{L_{\max} \times d},\qquad 0 \le p < L_{\max}"
    )

params = defaults(learned_params.TABLE_PARAMS)
# the built-in tables installed now (looked up on every run: one installed while the app runs appears at once)
model_id.open_table_link()  # a link naming a model's table opens on it
params["table_source"] = source = controls.control(
    "table_source", choices=learned_params.installed_sources(), start=learned_params.opening_source()
)
for name, command in learned_params.missing_builtins().items():
    st.caption(
        _(
            "The trained table {name} is not installed: `make install` installs it (or `.venv/bin/python -m "
            "{command}`). It appears in this list as soon as it is installed, without restarting the app."
        ).format(name=name, command=command)
    )
ready = True
if source == "random":
    with st.expander(_("Random table: rows, width, initial std, seed"), expanded=False):
        params |= controls.controls(["max_len", "d_model", "std", "seed"], columns=4)
elif source == "upload":
    upload = st.file_uploader(
        _(
            "Position table: one 2-D array (positions x channels), or a checkpoint holding one "
            "(e.g. wpe.weight, embeddings.position_embeddings.weight)"
        ),
        type=["npy", "npz", "safetensors", "pt", "pth", "bin"],
        key="table_file",
        help=tables.upload_help(),
    )
    from_hub = model_id.table_box()  # or a model's table by Hugging Face id (?table_model=)
    lost = tables.lost_upload() if upload is None else None
    if upload is None:
        tables.forget_upload()
    if upload is None and from_hub is not None:
        params["upload_sha256"] = from_hub.sha256
        st.caption(
            _(
                "Read **{name}** from the Hugging Face Hub: {rows:,} positions x {channels:,} channels (the "
                "safetensors header and this tensor only). A shared link fetches it again."
            ).format(name=echo.plain(from_hub.name), rows=from_hub.shape[0], channels=from_hub.shape[1])
        )
    elif upload is None and lost is not None:
        ready = False
        st.warning(
            _(
                "This link names an uploaded table ({digest}…) that is not on this server: the app was restarted or "
                "moved, or the link was shared, and a link cannot carry a file. Please upload it again."
            ).format(digest=echo.plain(lost[:12])),  # a link's text: shown as written
            icon="📂",
        )
    elif upload is None:
        ready = False
        st.info(_("Upload a table to see it. A link to this page cannot carry a file: it opens without the table."))
    else:
        try:
            read = tables.read_upload(upload)
        except ValueError as error:
            ready = False
            tables.name_in_link("")
            st.error(echo.plain(f"{upload.name}: {error}", most=600), icon="🚫")  # names in it are the file's
        else:
            params["upload_sha256"] = read.sha256
            tables.name_in_link(read.sha256)
            st.caption(
                _(
                    "Read **{name}**: {rows:,} positions x {channels:,} channels. Pickled Python objects are never "
                    "loaded. A shared link keeps every setting but not the file: whoever opens it must upload the "
                    "file again."
                ).format(name=echo.plain(upload.name), rows=read.shape[0], channels=read.shape[1])
            )
if source != "upload":
    model_id.forget_table_model()
    tables.name_in_link("")
params |= controls.controls(["seq_len", "view", "start", "similarity"], columns=4)


def the_table() -> None:
    result = show.figure("learned-heatmap", params)
    if result is not None:
        what_to_notice(*notes.table_points(params, int(result.data["table_shape"][0])))


def alike() -> None:
    show.figure("learned-similarity", params)
    profile = show.figure("learned-relative", params)
    if profile is not None:
        what_to_notice(*notes.alike_points(params, profile.data))


def against_sinusoidal() -> None:
    compared = show.figure("learned-compare", params)
    if compared is not None:
        st.dataframe(pd.DataFrame(comparison_rows(compared)), hide_index=True, width="stretch")
        what_to_notice(*notes.compare_points(compared.data))


def past_the_end() -> None:
    result = show.figure("learned-beyond", params)
    if result is not None:
        what_to_notice(*notes.beyond_points(params, int(result.data["table_shape"][0])))


if ready:
    with learned_sources.using(tables.session_tables()):  # the figures read this session's tables only
        show_sections(
            {
                N_("The table"): the_table,
                N_("Which positions look alike"): alike,
                N_("Learned vs sinusoidal vs no position encoding"): against_sinusoidal,
                N_("Past the table's end"): past_the_end,
            }
        )
