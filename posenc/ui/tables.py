"""This reader's learned tables in the app: one :class:`~posenc.figures.learned.sources.TableStore` per Streamlit
session (``st.session_state``), so a table is the uploader's own and goes when the session ends; the link names an
uploaded table by its SHA-256 (``?upload_sha256=``), so a session that does not hold it (a restarted server, another
replica, a shared link) says so instead of showing nothing.

What uploads hold is bounded server-wide (:mod:`posenc.figures.learned.budget`): a table the budget has no room for
is refused in place, and the store is closed the moment Streamlit lets the session go (:mod:`posenc.ui.session_end`).
Once a file is read (or refused), its bytes in Streamlit's upload manager are replaced by nothing: they were as large
as the table again, and Streamlit keeps them for the session's life (and past it, when a disconnected session
expires unseen). The uploader still names the file; a rerun finds the table kept, or the refusal remembered.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.runtime.uploaded_file_manager import UploadedFileRec

from posenc.figures.learned.budget import BudgetFull
from posenc.figures.learned.sources import TableStore, Upload
from posenc.i18n import _
from posenc.ui import link, session_end
from posenc_core.encodings.learned import MAX_TABLE_ELEMENTS

STORE_KEY, READ_KEY, QUERY = "learned_tables", "learned_table_read", "upload_sha256"
REFUSED_KEY = "learned_table_refused"
UPLOADER_KEY = "table_file"  # the Learned page's uploader: its value in the session's state holds the file's bytes


def session_tables() -> TableStore:
    """The tables this session holds (created on first use), closed when Streamlit lets the session go."""
    if STORE_KEY not in st.session_state:
        st.session_state[STORE_KEY] = TableStore()
    store = st.session_state[STORE_KEY]
    session_end.close_at_end(STORE_KEY, store)
    return store


def read_upload(upload) -> Upload:
    """Read an uploaded file into this session's tables once per file (a rerun with the same file reads nothing);
    a ValueError says what is wrong with it, or that the server's upload budget has no room for it."""
    read = st.session_state.get(READ_KEY)
    store = session_tables()
    if read is not None and read[0] == upload.file_id and read[1].sha256 in store:
        return read[1]
    refused = st.session_state.get(REFUSED_KEY)
    if refused is not None and refused[0] == upload.file_id:
        raise ValueError(refused[1])
    if read is not None and read[0] == upload.file_id:  # read, then let go (the session was closed): bytes gone
        raise ValueError(
            _(
                "this file's table is no longer held here (the session was closed, or other tables took its place), "
                "and the file was not kept: please upload it again."
            )
        )
    try:
        kept = store.add_upload(upload.getvalue(), upload.name)
    except ValueError as error:  # BudgetFull is one too, with its own words for the reader
        message = budget_message(error) if isinstance(error, BudgetFull) else str(error)
        st.session_state[REFUSED_KEY] = (upload.file_id, message)
        raise ValueError(message) from error
    finally:
        _drop_bytes(upload)  # read or refused, the file's bytes are no longer needed
    st.session_state[READ_KEY] = (upload.file_id, kept)
    return kept


def budget_message(full: BudgetFull) -> str:
    """The refusal of a table the server's upload budget has no room for, in the reader's language."""
    return _(
        "this server is holding as many uploaded tables as it can ({held:,} MiB of {budget:,} MiB), and this table "
        "needs {needed:,} MiB more, so it was not read. Please upload it again in a few minutes, when other readers "
        "have closed their pages, or upload a smaller table."
    ).format(held=_mib(full.held), budget=_mib(full.budget), needed=_mib(full.needed))


def _mib(nbytes: int) -> int:
    return -(-nbytes // 2**20)  # rounded up: a table held never shows as 0


def _drop_bytes(upload) -> None:
    """Let the file's bytes go: empty this run's UploadedFile and the one the session's state keeps as the
    uploader's value (each holds the bytes until a later run; ``truncate(0)`` lets them go without a copy, and the
    file stays open), and replace them in Streamlit's upload manager by nothing, under the same file id (the uploader
    still shows the file, and later runs get it, empty, under the same id)."""
    held = st.session_state.get(UPLOADER_KEY)
    for each in (upload, held) if getattr(held, "file_id", None) == upload.file_id else (upload,):
        each.truncate(0)
    ctx = get_script_run_ctx()
    if ctx is not None and ctx.uploaded_file_mgr is not None:
        empty = UploadedFileRec(file_id=upload.file_id, name=upload.name, type=upload.type, data=b"")
        ctx.uploaded_file_mgr.add_file(ctx.session_id, empty)


def forget_upload() -> None:
    """Drop the uploaded table this session read (its file was taken out of the uploader) and its name in the link; a
    link naming a table this session never held keeps it, so the page can say what was lost."""
    st.session_state.pop(REFUSED_KEY, None)
    read = st.session_state.pop(READ_KEY, None)
    if read is not None:
        session_tables().discard(read[1].sha256)
        name_in_link("")


def name_in_link(digest: str) -> None:
    """Put the uploaded table's SHA-256 in the link (or take it out with "")."""
    if digest:
        link.put(QUERY, digest)
    else:
        link.drop(QUERY)


def lost_upload() -> str | None:
    """The SHA-256 the link names when this session does not hold that table (None when it names none)."""
    digest = str(st.query_params.get(QUERY, ""))
    return digest if digest and digest not in session_tables() else None


def upload_help() -> str:
    """The uploader's help: the largest table read, the server's file size limit, and what its upload budget holds
    now (the served tests read that count)."""
    budget = session_tables().budget
    limits = _(
        "The largest table read holds {values:,} values (e.g. 1,024 positions x 8,192 channels: {mib:,} MiB in "
        "float32); a file may be up to {limit:,} MB (this server's upload limit). Sizes are checked before a file is "
        "unpacked, and pickled Python objects are never loaded."
    ).format(values=MAX_TABLE_ELEMENTS, mib=MAX_TABLE_ELEMENTS * 4 >> 20, limit=st.get_option("server.maxUploadSize"))
    held = _("Uploaded tables held by this server now: {count:,} ({held:,} MiB of its {budget:,} MiB for uploads).")
    return f"{limits} {held.format(count=len(budget), held=_mib(budget.nbytes), budget=_mib(budget.budget))}"
