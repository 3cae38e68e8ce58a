"""The length lab's parameters: what is measured (loss or perplexity), how the text is cut (sliding window or
non-overlapping chunks), the model, layer and head looked into, and the smoothing of the per-position loss."""

from __future__ import annotations

from posenc.drawing.params import ParamSpec, index_below, register_param
from posenc.i18n import N_
from posenc_lab.evaluate import MODES
from posenc_lab.schemes import SCHEMES
from posenc_lab.settings import TASKS

MAX_LAYERS, MAX_HEADS = 8, 16  # the largest lab model (LARGE_CONFIG: 4 layers, 8 heads) fits well within these

register_param(
    ParamSpec(
        "lab_metric",
        "choice",
        "loss",
        N_("Measure"),
        choices=("loss", "perplexity"),
        choice_labels={"loss": N_("loss (nats per byte)"), "perplexity": N_("perplexity (e^loss)")},
    )
)
register_param(
    ParamSpec(
        "lab_mode",
        "choice",
        "sliding",
        N_("How the long text is cut"),
        choices=MODES,
        choice_labels={"sliding": N_("sliding window"), "nonoverlapping": N_("non-overlapping chunks")},
        help=N_(
            "Sliding window: every scored token sees a long context (windows overlap by half and only their last "
            "half is scored). Non-overlapping: the text is cut into chunks and every token is "
            "scored, so early tokens of a chunk see little context. Press et al. (2022, appendix B) show that "
            "this choice changes which scheme looks better at long lengths."
        ),
    )
)
register_param(
    ParamSpec(
        "lab_copy_metric",
        "choice",
        "accuracy",
        N_("Copy measure"),
        choices=("accuracy", "loss"),
        choice_labels={"accuracy": N_("exact-match accuracy"), "loss": N_("loss on the copied letters")},
    )
)
register_param(
    ParamSpec(
        "lab_smooth",
        "int",
        16,
        N_("Smoothing (tokens)"),
        1,
        64,
        help=N_("The per-position loss is averaged over this many neighbouring positions (1: no smoothing)."),
    )
)
register_param(ParamSpec("lab_scheme", "choice", "rope", N_("Model (its positional encoding)"), choices=tuple(SCHEMES)))
register_param(
    ParamSpec(
        "lab_layer",
        "int",
        0,
        N_("Layer"),
        0,
        MAX_LAYERS - 1,
        limits=index_below("lab_layers", N_("the model has {n} layers")),
    )
)
register_param(
    ParamSpec(
        "lab_head",
        "int",
        0,
        N_("Head"),
        0,
        MAX_HEADS - 1,
        limits=index_below("lab_heads", N_("the model has {n} heads")),
    )
)
register_param(
    ParamSpec(
        "lab_passkey_metric",
        "choice",
        "accuracy",
        N_("Passkey measure"),
        choices=("accuracy", "loss"),
        choice_labels={"accuracy": N_("exact-match accuracy"), "loss": N_("loss on the asked digits")},
    )
)
register_param(
    ParamSpec(
        "lab_task",
        "choice",
        "lm",
        N_("Task"),
        choices=TASKS,
        choice_labels={"lm": N_("language model"), "copy": N_("copy task"), "passkey": N_("passkey retrieval")},
    )
)
