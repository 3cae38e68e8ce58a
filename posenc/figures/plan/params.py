"""The Plan page's parameters: the target context, the method, the runtime and an optional original length.

The model itself is the sidebar's (a preset or a config.json): the figure reads it through the parameters a preset
sets (``drawing.preset_params``), so ``posenc export plan-wavelengths --preset llama-3.1-8b`` draws that model's plan.
"""

from __future__ import annotations

from posenc.drawing.params import ParamSpec, register_param
from posenc.i18n import N_
from posenc_core.plan import MAX_TARGET, PLAN_METHODS, RUNTIMES

PAGE = "plan"
ALL_RUNTIMES = "all"
DEFAULT_TARGET = 131072

METHOD_LABELS = {
    "linear": N_("linear (PI)"),
    "dynamic": N_("dynamic NTK"),
    "yarn": N_("YaRN"),
    "llama3": N_("Llama 3.1"),
    "longrope": N_("LongRoPE"),
    "base": N_("a larger base (no scaling)"),
}
"""Each method's name on the page (the method names themselves stay as they are)."""

RUNTIME_LABELS = {
    ALL_RUNTIMES: N_("every runtime"),
    "transformers": N_("HF transformers"),
    "vllm": N_("vLLM"),
    "sglang": N_("SGLang"),
    "llama.cpp": N_("llama.cpp"),
}
"""Each runtime's name on the page (``RUNTIMES[name].label``, marked for the catalogues; a test checks they agree)."""

register_param(
    ParamSpec(
        "target",
        "int",
        DEFAULT_TARGET,
        N_("Target context T (tokens)"),
        16,
        MAX_TARGET,
        help=N_("The context length the plan takes the model to: it must be longer than the original L."),
    )
)
register_param(
    ParamSpec(
        "method",
        "choice",
        "yarn",
        N_("Method"),
        choices=tuple(PLAN_METHODS),
        choice_labels=METHOD_LABELS,
        help=N_("How the frequencies change. LongRoPE is offered only for a model with its own searched lists."),
    )
)
register_param(
    ParamSpec(
        "runtime",
        "choice",
        ALL_RUNTIMES,
        N_("Runtime"),
        choices=(ALL_RUNTIMES, *RUNTIMES),
        choice_labels=RUNTIME_LABELS,
        help=N_("Where the model will run: the checks then speak of that runtime only."),
    )
)
register_param(
    ParamSpec(
        "original",
        "int",
        0,
        N_("Original length L"),
        0,
        MAX_TARGET,
        help=N_(
            "The length the model was pre-trained on. 0 takes it from the model's config "
            "(original_max_position_embeddings, else max_position_embeddings)."
        ),
    )
)
