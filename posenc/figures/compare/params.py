"""The Compare page's parameters: the schemes to compare and the distance axis."""

from __future__ import annotations

from posenc.drawing.params import ParamSpec, register_param
from posenc.figures.compare.items import EXAMPLE
from posenc.i18n import N_

register_param(
    ParamSpec(
        "schemes",
        "text",
        EXAMPLE,
        N_("Schemes (2 to 4, comma-separated)"),
        help=N_(
            "Items: sinusoidal[:d_model], learned[:rows or a built-in table], rope[:preset], "
            "alibi[:preset or heads][@head], t5[:preset]. Example: "
            "sinusoidal,rope:llama-3.1-8b,alibi:bloom-176b,t5:t5-base"
        ),  # the example is EXAMPLE (tests/figures/test_compare.py checks)
    )
)


register_param(
    ParamSpec(
        "distance_axis",
        "choice",
        "log",
        N_("Distance axis"),
        choices=("log", "linear"),
        help=N_("Scale of the k axis."),
        choice_labels={"log": N_("log"), "linear": N_("linear")},
    )
)


COMPARE_PARAMS = ("schemes", "seq_len", "d_model", "head_dim", "base", "distance_axis")
