"""posenc: how transformers encode position, as a Streamlit app and as figures you can draw in a notebook.

    import posenc
    fig = posenc.figure("rope-angles", preset="llama-3.1-8b", seq_len=131072)  # a plotly Figure
    data = posenc.figure_data("rope-angles", preset="llama-3.1-8b")            # the arrays behind it
    posenc.list_figures()        # figure id -> title
    posenc.presets()             # preset key -> model name
    posenc.parameters("rope-angles")

The notebook functions live in :mod:`posenc.api` and are imported on first use (PEP 562), so ``import posenc``
stays light: nothing of torch, Plotly or the figure registry is loaded until a function is called. The maths is
in ``posenc_core``; ``posenc.figures`` (the Plotly builders), ``posenc.drawing`` (what they draw with),
``posenc.ui`` (the app's Streamlit helpers), ``posenc.lessons``, ``posenc.i18n``, ``posenc.serve`` and
``posenc.commands`` (the ``posenc`` command, one module per command) are subpackages. The module names of 0.1
(``posenc.cli``, ``posenc.plan_command``, ``posenc.export.cli``, ...) still import, with a warning that names the
new place (``_moved``).
"""

from posenc import _moved

_API = ("figure", "figure_data", "list_figures", "parameters", "presets", "read_config", "save_figure")
__all__ = list(_API)


def __getattr__(name: str) -> object:
    """``posenc.figure`` and the rest of :data:`__all__`, from :mod:`posenc.api` on first use. Any other name is
    an AttributeError, so ``from posenc import figures`` still finds the subpackage."""
    if name in _API:
        from posenc import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})


_moved.install()
