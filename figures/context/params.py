"""The context-extension family's parameters, under HF's rope_scaling key names (YaRN, Llama 3.1), and the
base calculator's target."""

from __future__ import annotations

from figures.common_params import MAX_SEQ_LEN
from figures.params import ParamSpec, register_param

PAGE = "context_extension"


register_param(
    ParamSpec(
        "beta_fast",
        "float",
        32.0,
        "YaRN β_fast (turns)",
        0.01,
        4096.0,
        log=True,
        help="Pairs that turn more than β_fast times inside the original context are kept as they are.",
    )
)


register_param(
    ParamSpec(
        "beta_slow",
        "float",
        1.0,
        "YaRN β_slow (turns)",
        0.01,
        4096.0,
        log=True,
        help="Pairs that turn fewer than β_slow times inside the original context are divided by the factor.",
    )
)


register_param(
    ParamSpec(
        "mscale",
        "float",
        0.0,
        "YaRN mscale (DeepSeek)",
        0.0,
        16.0,
        help="0 = unset. With mscale_all_dim set too, cos/sin are multiplied by "
        "mscale(s, mscale) / mscale(s, mscale_all_dim).",
    )
)


register_param(
    ParamSpec(
        "mscale_all_dim",
        "float",
        0.0,
        "YaRN mscale_all_dim (DeepSeek)",
        0.0,
        16.0,
        help="0 = unset. DeepSeek also multiplies the softmax scale by mscale(s, mscale_all_dim)².",
    )
)


register_param(
    ParamSpec(
        "truncate",
        "bool",
        True,
        "YaRN: round the correction range (floor / ceil)",
        help="HF's truncate (default true since ~v4.56): floor the low and ceil the high correction pair.",
    )
)


register_param(
    ParamSpec(
        "low_freq_factor",
        "float",
        1.0,
        "Llama-3 low_freq_factor",
        0.01,
        1024.0,
        log=True,
        help="Wavelengths above L / low_freq_factor are divided by the factor.",
    )
)


register_param(
    ParamSpec(
        "high_freq_factor",
        "float",
        4.0,
        "Llama-3 high_freq_factor",
        0.01,
        1024.0,
        log=True,
        help="Wavelengths below L / high_freq_factor are kept.",
    )
)


register_param(
    ParamSpec(
        "target_context",
        "int",
        32768,
        "Target context (base calculator)",
        16,
        MAX_SEQ_LEN,
        help="The context length the smallest sufficient base is computed for.",
    )
)


SCALING_PARAMS = (
    "head_dim",
    "base",
    "partial_rotary_factor",
    "rope_type",
    "factor",
    "original_max_position_embeddings",
    "seq_len",
    "beta_fast",
    "beta_slow",
    "mscale",
    "mscale_all_dim",
    "truncate",
    "low_freq_factor",
    "high_freq_factor",
)
