"""The context-extension family's parameters, under HF's rope_scaling key names (YaRN, Llama 3.1), and the
base calculator's target."""

from __future__ import annotations

from posenc.drawing.common_params import MAX_SEQ_LEN
from posenc.drawing.params import ParamSpec, register_param
from posenc.i18n import N_
from posenc_core.rope.scaling_keys import ALL_SCALING_KEYS, SCALING_KEYS

PAGE = "context_extension"


# The scaling keys the page sets beside the shared factor and original_max_position_embeddings: the core's
# description of each (posenc_core.rope.scaling_keys) gives the list, the default and the help; here only the
# label and the range a control offers. attention_factor is left to each type's own derivation (the attention-factor
# figure draws it), so it has no control.
SHARED_KEYS = ("factor", "original_max_position_embeddings", "rope_theta", "partial_rotary_factor")
DERIVED_KEYS = ("attention_factor",)
CONTROL_LABELS = {
    "beta_fast": N_("YaRN β_fast (turns)"),
    "beta_slow": N_("YaRN β_slow (turns)"),
    "mscale": N_("YaRN mscale (DeepSeek)"),
    "mscale_all_dim": N_("YaRN mscale_all_dim (DeepSeek)"),
    "truncate": N_("YaRN: round the correction range (floor / ceil)"),
    "low_freq_factor": N_("Llama-3 low_freq_factor"),
    "high_freq_factor": N_("Llama-3 high_freq_factor"),
}
HELP_TEXTS = (
    N_("Pairs that turn more than beta_fast times within the original context keep their frequency (YaRN)."),
    N_("Pairs that turn fewer than beta_slow times within the original context are divided by the full factor (YaRN)."),
    N_(
        "0 = unset. DeepSeek's weight on 0.1·ln(factor) in the numerator of the derived attention factor, used "
        "only together with mscale_all_dim."
    ),
    N_(
        "0 = unset. DeepSeek's weight on 0.1·ln(factor) in the denominator of the derived attention factor, used "
        "only together with mscale."
    ),
    N_("Whether YaRN's correction range is rounded outward to whole pair indices before the ramp."),
    N_(
        "Wavelengths longer than original_max_position_embeddings / low_freq_factor are divided by the full factor "
        "(Llama 3.1)."
    ),
    N_(
        "Wavelengths shorter than original_max_position_embeddings / high_freq_factor keep their frequency, and "
        "those between the two thresholds are blended (Llama 3.1)."
    ),
)
"""The help the scaling keys' controls show, as built from the core's meanings below (marked here so the catalogues
hold them; a test checks that every control's help is one of these)."""
STARTING_VALUES = {"low_freq_factor": 1.0, "high_freq_factor": 4.0}  # Llama 3.1's: these keys have no fallback
SCALING_KEY_PARAMS = tuple(
    name
    for name in ALL_SCALING_KEYS
    if name not in SHARED_KEYS + DERIVED_KEYS and SCALING_KEYS[name].kind in ("float", "bool")
)
"""The scaling keys with a control of their own, in the core's order."""


def _scaling_param(name: str) -> ParamSpec:
    """A control for scaling key ``name``: default and help from the core (a required key starts at a real
    model's value); an optional key with no constant default (0 = unset) on a linear 0..16 range, the others on a
    log range."""
    key = SCALING_KEYS[name]
    meaning = key.meaning[0].upper() + key.meaning[1:] + "."
    label = CONTROL_LABELS.get(name, name)
    if key.kind == "bool":
        return ParamSpec(name, "bool", key.default, label, help=meaning)
    default = key.default if key.default is not None else STARTING_VALUES.get(name)
    if default is None:
        return ParamSpec(name, "float", 0.0, label, 0.0, 16.0, help="0 = unset. " + meaning)
    return ParamSpec(name, "float", float(default), label, 0.01, 4096.0, log=True, help=meaning)


for _name in SCALING_KEY_PARAMS:
    register_param(_scaling_param(_name))


register_param(
    ParamSpec(
        "target_context",
        "int",
        32768,
        N_("Target context (base calculator)"),
        16,
        MAX_SEQ_LEN,
        help=N_("The context length the smallest sufficient base is computed for."),
    )
)


for _name in ("short_factor", "long_factor"):  # a model's own LongRoPE lists: from its preset or config, no control
    register_param(
        ParamSpec(
            _name,
            "floats",
            (),
            _name,
            1e-6,
            1e6,
            max_items=512,
            help=SCALING_KEYS[_name].meaning[0].upper() + SCALING_KEYS[_name].meaning[1:] + ".",
        )
    )
LONGROPE_LISTS = ("short_factor", "long_factor")

SCALING_PARAMS = (
    "head_dim",
    "base",
    "partial_rotary_factor",
    "rope_type",
    "factor",
    "original_max_position_embeddings",
    "seq_len",
    *SCALING_KEY_PARAMS,
    *LONGROPE_LISTS,
)
