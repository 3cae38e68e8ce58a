"""This reader's learned tables in the app: one :class:`~posenc.figures.learned.sources.TableStore` per Streamlit
session (``st.session_state``), so a table is the uploader's own and goes when the session ends; the link names an
uploaded table by its SHA-256 (``?upload_sha256=``), so a session that does not hold it (a restarted server, another
replica, a shared link) says so instead of showing nothing.
"""

from __future__ import annotations

import streamlit as st

from posenc.figures.learned.sources import TableStore, Upload
from posenc.i18n import _
from posenc.ui import link
from posenc_core.encodings.learned import MAX_TABLE_ELEMENTS

STORE_KEY, READ_KEY, QUERY = "learned_tables", "learned_table_read", "upload_sha256"


def session_tables() -> TableStore:
    """The tables this session holds (created on first use)."""
    if STORE_KEY not in st.session_state:
        st.session_state[STORE_KEY] = TableStore()
    return st.session_state[STORE_KEY]


def read_upload(upload) -> Upload:
    """Read an uploaded file into this session's tables once per file (a rerun with the same file reads nothing);
    a ValueError says what is wrong with it."""
    read = st.session_state.get(READ_KEY)
    store = session_tables()
    if read is not None and read[0] == upload.file_id and read[1].sha256 in store:
        return read[1]
    kept = store.add_upload(upload.getvalue(), upload.name)
    st.session_state[READ_KEY] = (upload.file_id, kept)
    return kept


def forget_upload() -> None:
    """Drop the uploaded table this session read (its file was taken out of the uploader) and its name in the link; a
    link naming a table this session never held keeps it, so the page can say what was lost."""
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
    """The uploader's help: the largest table read and the server's file size limit."""
    return _(
        "The largest table read holds {values:,} values (e.g. 1,024 positions x 8,192 channels: {mib:,} MiB in "
        "float32); a file may be up to {limit:,} MB (this server's upload limit). Sizes are checked before a file is "
        "unpacked, and pickled Python objects are never loaded."
    ).format(values=MAX_TABLE_ELEMENTS, mib=MAX_TABLE_ELEMENTS * 4 >> 20, limit=st.get_option("server.maxUploadSize"))
