"""The export menu under every figure: files are made only when their button is clicked."""

from __future__ import annotations

from functools import partial

import streamlit as st

from figures import export
from figures.registry import FigureResult

LABELS = {
    "png": "PNG (2x)",
    "svg": "SVG",
    "pdf": "PDF",
    "html": "Interactive HTML",
    "csv": "Data (CSV)",
    "npy": "Data (NumPy)",
}


def export_menu(figure_id: str, result: FigureResult, stem: str) -> None:
    """A popover of download buttons for ``result``; each file is rendered lazily on click."""
    browser = export.find_browser()
    with st.popover("⬇️ Export", help="Download this figure or the numbers behind it."):
        for fmt in export.FORMATS:
            extension = _extension(fmt, result)
            needs_browser = fmt in ("svg", "pdf") and browser is None
            st.download_button(
                f"{LABELS[fmt]} (.{extension})",
                data=partial(_render, result, fmt),
                file_name=f"{stem}.{extension}",
                mime=export.MIME_TYPES[extension],
                key=f"export-{figure_id}-{fmt}",
                disabled=needs_browser or (fmt in ("csv", "npy") and not result.data),
                width="stretch",
            )
        if browser is None:
            st.caption(
                f"No Chrome/Chromium found: PNG is drawn by matplotlib instead of Plotly; {export.INSTALL_HINT}."
            )
        else:
            st.caption(f"Images are rendered by Plotly's export (kaleido) with {browser}.")


def _extension(fmt: str, result: FigureResult) -> str:
    if fmt == "npy":
        return "npy" if len(result.data) == 1 else "npz"
    return fmt


def _render(result: FigureResult, fmt: str) -> bytes:
    if fmt in ("png", "svg", "pdf"):
        export.start_browser_server()
    return export.export(result, fmt).content
