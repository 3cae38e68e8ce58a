"""Pure Plotly figure builders (no Streamlit): arrays and parameters in, ``go.Figure`` out. One package per family
(``figures/sinusoidal/``, ``figures/rope/``, ...); what they all draw with (the registries, the theme, export) is in
:mod:`posenc.drawing`.

:func:`register_all` registers every family: each family's ``params`` module first (a figure may use any
family's parameters), then its figure modules. Whoever starts the app or the API calls it (``app.py``,
:mod:`posenc.api`, ``posenc export``); importing this package calls it too, so ``from posenc import figures`` is
enough in a test or a script. :mod:`posenc.drawing`, which the families draw with, imports nothing from here.
"""

import importlib
import pkgutil

from posenc.drawing import common_params  # noqa: F401  (shared parameters first)

FAMILIES = tuple(module.name for module in pkgutil.iter_modules(__path__) if module.ispkg)


def register_all() -> None:
    """Register every figure family and its parameters in :mod:`drawing.registry` and :mod:`drawing.params`
    (once: a family's modules register when first imported)."""
    for family in FAMILIES:
        package = importlib.import_module(f"{__name__}.{family}")
        if any(module.name == "params" for module in pkgutil.iter_modules(package.__path__)):
            importlib.import_module(f"{package.__name__}.params")
    for family in FAMILIES:
        package = importlib.import_module(f"{__name__}.{family}")
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{module.name}")


register_all()
