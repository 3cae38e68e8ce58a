"""Pure Plotly figure builders (no Streamlit): arrays and parameters in, ``go.Figure`` out.

Importing this package registers every figure family's builders and parameters (see :mod:`figures.registry`).
"""

import importlib
import pkgutil

from figures import common_params  # noqa: F401  (shared parameters first)

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
