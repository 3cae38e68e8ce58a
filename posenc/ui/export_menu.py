"""The export menu under every figure: a size preset, then the files; each is made only when its button is clicked.

Images are drawn in the sidebar's figure style on the chosen size's page; their names say both, and the language
of their text where it is not English (``rope-angles_llama-3.1-8b_L131072_hd128_slides-light_column_ko.pdf``). The
interactive HTML carries the style and the language, the data files neither.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from posenc import i18n
from posenc.drawing import export
from posenc.drawing.registry import FigureResult
from posenc.drawing.theme import PIXELS_PER_INCH, PRINT_DPI, SIZES
from posenc.i18n import N_, _

LABELS = {  # shown translated
    "png": N_("PNG"),
    "svg": N_("SVG"),
    "pdf": N_("PDF"),
    "html": N_("Interactive HTML"),
    "csv": N_("Data (CSV)"),
    "npy": N_("Data (NumPy)"),
}
SIZE_NAMES = {  # shown translated
    "screen": N_("Screen"),
    "slide": N_("Slide 16:9"),
    "column": N_("1 column"),
    "two-columns": N_("2 columns"),
}


DOWNLOAD_CLICK = "ignore"
"""How a download button whose file is made on click answers the click: it asks the server for the file, and the
page does not rerun. Streamlit's default, a rerun, draws the button again under a new id and drops the old one; on
a busy server that can happen before the click's request is served, and the reader gets no file (the server logs
"Deferred file ... not found")."""


def export_menu(figure_id: str, result: FigureResult, stem: str) -> None:
    """A popover with the size presets and a download button per format; each file is rendered lazily on click.

    The popover's contents are drawn only while it is open (opening it reruns the page): closed, as every new
    session finds it, it is one element instead of eight, which was a tenth of a new session's server time."""
    menu = st.popover(
        _("⬇️ Export"),
        help=_("Download this figure or the numbers behind it."),
        key=menu_key(figure_id),
        on_change="rerun",
    )
    if not menu.open:
        return
    try:
        browser, no_browser = export.image_browser(), None
    except ValueError as error:  # none, or one that does not start: the message says how to get one
        browser, no_browser = None, str(error)
    style, language = st.session_state.get("theme", "screen"), i18n.current()
    with menu:
        size = st.segmented_control(
            _("Image size"),
            list(SIZES),
            format_func=lambda key: _(SIZE_NAMES[key]),
            default="screen",
            key=f"export-size-{figure_id}",
            help=_("The page the PNG, SVG and PDF are drawn on; text is set for that size."),
        )
        size = size or "screen"  # clicking the chosen option again clears it
        st.caption(describe_size(size))
        for fmt in export.FORMATS:
            extension = _extension(fmt, result)
            needs_browser = fmt in export.IMAGE_FORMATS and browser is None
            st.download_button(
                f"{format_label(fmt, size)} (.{extension})",
                data=partial(_render, result, fmt, style, size, language),
                file_name=f"{export.file_stem(stem, fmt, style, size, language)}.{extension}",
                mime=export.MIME_TYPES[extension],
                key=f"export-{figure_id}-{fmt}",
                disabled=needs_browser or (fmt in ("csv", "npy") and not result.data),
                width="stretch",
                on_click=DOWNLOAD_CLICK,
            )
        if browser is None:
            st.caption(no_browser)
        else:
            st.caption(_("Images are rendered by Plotly's export (kaleido) with {browser}.").format(browser=browser))


def menu_key(figure_id: str) -> str:
    """The export popover's key: its state is True while the reader has it open."""
    return f"export-menu-{figure_id}"


def describe_size(size: str) -> str:
    """What the size preset gives: the page in inches and points (PDF), the PNG's pixels, the text size."""
    preset = SIZES[size]
    inches = preset.width / PIXELS_PER_INCH
    png_width = round(preset.width * preset.png_scale)
    if preset.height is None:
        if preset.aspect is None:
            page = _("{inches:.4g} in wide ({points:.0f} pt), the figure's own height")
            png = _("PNG {pixels} px wide")
        else:
            page = _("{inches:.4g} in wide ({points:.0f} pt), as tall as the figure needs")
            png = _("PNG {pixels} px wide ({dpi} dpi)")
        page = page.format(inches=inches, points=inches * 72)
        png = png.format(pixels=png_width, dpi=PRINT_DPI)
    else:
        height = preset.height / PIXELS_PER_INCH
        page = f"{inches:.4g} × {height:.4g} in ({inches * 72:.0f} × {height * 72:.0f} pt)"
        png = f"PNG {png_width} × {round(preset.height * preset.png_scale)} px"
    points = preset.font_size * 72 / PIXELS_PER_INCH
    text = _("{page}; {png}; text {points:.3g} pt (more in the slide styles).")
    return text.format(page=page, png=png, points=points)


def format_label(fmt: str, size: str) -> str:
    """The button's name: "PNG (2x)" on the screen, "PNG (1920 × 1080)" for a slide, "PNG (300 dpi)" on paper."""
    if fmt != "png":
        return _(LABELS[fmt])
    preset = SIZES[size]
    if preset.height is not None:
        return f"PNG ({round(preset.width * preset.png_scale)} × {round(preset.height * preset.png_scale)})"
    if preset.aspect is not None:
        return f"PNG ({PRINT_DPI} dpi)"
    return f"PNG ({preset.png_scale:g}x)"


def _extension(fmt: str, result: FigureResult) -> str:
    if fmt == "npy":
        return "npy" if len(result.data) == 1 else "npz"
    return fmt


def _render(result: FigureResult, fmt: str, style: str, size: str, language: str) -> bytes:
    """The file, drawn on the download's own thread: in the language the reader's page was in (its fonts)."""
    if fmt in export.IMAGE_FORMATS:
        export.start_browser_server()
    return export.export(result, fmt, style=style, size=size, language=language).content
