"""Plan a RoPE context extension: from a model and a target length to settings to paste, with the traps flagged.

- :mod:`posenc_core.plan.plan`     :func:`plan_extension` and the :class:`Plan` it returns
- :mod:`posenc_core.plan.methods`  what each method sets (``PLAN_METHODS``)
- :mod:`posenc_core.plan.rules`    the base rules (NTK-aware, the share rule, dynamic NTK, Liu et al., Men et al.)
- :mod:`posenc_core.plan.checks`   the traps, each with a reason and a fix (``CHECKS``)
- :mod:`posenc_core.plan.paste`    config.json keys and the serving flags of vLLM, SGLang and llama.cpp (``RUNTIMES``)
"""

from posenc_core.plan.checks import CHECKS, TEXTS, Finding
from posenc_core.plan.methods import PLAN_METHODS, Settings
from posenc_core.plan.paste import RUNTIMES
from posenc_core.plan.plan import MAX_TARGET, REGIMES, MethodPlan, Pair, Plan, plan_extension

__all__ = [
    "CHECKS",
    "MAX_TARGET",
    "PLAN_METHODS",
    "REGIMES",
    "RUNTIMES",
    "TEXTS",
    "Finding",
    "MethodPlan",
    "Pair",
    "Plan",
    "Settings",
    "plan_extension",
]
