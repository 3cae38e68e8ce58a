"""The NoPE and sinks family's parameters: the random values of the causal-mask experiment, Llama 4's layer
pattern and temperature, StreamingLLM's stream, sinks and window."""

from __future__ import annotations

from posenc.drawing.params import ParamSpec, register_param
from posenc.i18n import N_

MAX_NOPE_LENGTH = 4096  # the experiment draws n_sequences x length x value_dim numbers: well under a second
MAX_CONTEXT = 2**24  # token indices stay exact in float32 (as in HF's own float32 arithmetic)
MAX_STREAM = 256  # a stream_len x stream_len grid: 65k cells


register_param(
    ParamSpec(
        "nope_length", "int", 1024, N_("Positions 0 .. L-1"), 16, MAX_NOPE_LENGTH, help=N_("Tokens in each sequence.")
    )
)
register_param(
    ParamSpec(
        "value_dim", "int", 64, N_("Value dimension"), 1, 128, help=N_("Each value v_j ~ N(0, I/dim), so E‖v‖² = 1.")
    )
)
register_param(
    ParamSpec(
        "n_sequences",
        "int",
        64,
        N_("Random sequences"),
        1,
        64,
        help=N_("The norm drawn is the RMS over these sequences."),
    )
)
register_param(
    ParamSpec(
        "values_seed", "int", 0, N_("Seed of the values"), 0, 2**31 - 1, help=N_("The same seed gives the same values.")
    )
)
register_param(
    ParamSpec("num_hidden_layers", "int", 48, N_("Layers"), 1, 256, help=N_("Llama-4-Scout: 48."), widget="number")
)
register_param(
    ParamSpec(
        "no_rope_layer_interval",
        "int",
        4,
        N_("NoPE every n-th layer"),
        1,
        64,
        help=N_("HF's default for Llama 4: layer l has no RoPE when (l + 1) is a multiple of n (Scout: 4)."),
        widget="number",
    )
)
register_param(
    ParamSpec(
        "floor_scale",
        "int",
        8192,
        N_("floor_scale (tokens)"),
        1,
        10_000_000,
        help=N_(
            "The query scale steps up once every floor_scale tokens (Llama 4: 8192): a lower temperature, sharper "
            "attention."
        ),
        widget="number",
    )
)
register_param(
    ParamSpec(
        "attn_scale", "float", 0.1, N_("attn_scale"), 0.0, 2.0, help=N_("Height of the log steps (Llama 4: 0.1).")
    )
)
register_param(
    ParamSpec(
        "temperature_context",
        "int",
        10_485_760,
        N_("Context drawn (tokens)"),
        1000,
        MAX_CONTEXT,
        help=N_("The curve runs from token 0 to here (Llama-4-Scout advertises 10M; at most 2^24 = 16,777,216)."),
        widget="number",
    )
)
register_param(
    ParamSpec("stream_len", "int", 40, N_("Tokens streamed"), 2, MAX_STREAM, help=N_("One row per step of the stream."))
)
register_param(
    ParamSpec(
        "n_sink",
        "int",
        4,
        N_("Sink tokens kept"),
        0,
        32,
        help=N_("StreamingLLM keeps the first 4; 0 = a plain window."),
    )
)
register_param(
    ParamSpec(
        "sink_window", "int", 12, N_("Recent tokens kept"), 1, MAX_STREAM, help=N_("The window of most recent tokens.")
    )
)
