"""The Compare page's parameters: the schemes to compare and the distance axis."""

from __future__ import annotations

from figures.compare.items import EXAMPLE
from figures.params import ParamSpec, register_param

register_param(
    ParamSpec(
        "schemes",
        "text",
        EXAMPLE,
        "Schemes (2 to 4, comma-separated)",
        help="Items: sinusoidal[:d_model], learned[:rows or a built-in table], rope[:preset], "
        "alibi[:preset or heads][@head], t5[:preset]. Example: " + EXAMPLE,
    )
)


register_param(
    ParamSpec("distance_axis", "choice", "log", "Distance axis", choices=("log", "linear"), help="Scale of the k axis.")
)


COMPARE_PARAMS = ("schemes", "seq_len", "d_model", "head_dim", "base", "distance_axis")
