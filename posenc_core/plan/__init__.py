"""Plan a RoPE context extension: from a model and a target length to settings to paste, with the traps flagged.

- :mod:`posenc_core.plan.plan`     :func:`plan_extension` and the :class:`Plan` it returns
- :mod:`posenc_core.plan.methods`  what each method sets (``PLAN_METHODS``)
- :mod:`posenc_core.plan.rules`    the base rules (NTK-aware, the share rule, dynamic NTK, Liu et al., Men et al.)
- :mod:`posenc_core.plan.checks`   the traps, each with a reason and a fix (``CHECKS``)
- :mod:`posenc_core.plan.paste`    the writers of each block (``WRITERS``) and ``merge_config``
- :mod:`posenc_core.plan.shape`    the shape of the model's own config.json the blocks are merged into

For a config.json: ``plan_config(path, target, method).paste`` (name -> text) and ``.paste_versions``.
"""

from posenc_core.plan.checks import CHECKS
from posenc_core.plan.findings import TEXTS, Finding
from posenc_core.plan.methods import PLAN_METHODS, Settings
from posenc_core.plan.paste import RUNTIMES, WRITERS, merge_config
from posenc_core.plan.plan import (
    MAX_BASE,
    MAX_BETA,
    MAX_PLAN_WORK,
    MAX_ROTARY_DIM,
    MAX_TARGET,
    MIN_BETA,
    REGIMES,
    plan_config,
    plan_extension,
)
from posenc_core.plan.result import MethodPlan, Pair, Plan
from posenc_core.plan.shape import ConfigShape, shape_of

__all__ = [
    "CHECKS",
    "MAX_BASE",
    "MAX_BETA",
    "MAX_PLAN_WORK",
    "MAX_ROTARY_DIM",
    "MAX_TARGET",
    "MIN_BETA",
    "PLAN_METHODS",
    "REGIMES",
    "RUNTIMES",
    "TEXTS",
    "WRITERS",
    "ConfigShape",
    "Finding",
    "MethodPlan",
    "Pair",
    "Plan",
    "Settings",
    "merge_config",
    "plan_config",
    "plan_extension",
    "shape_of",
]
