"""Parameters shared by several pages; family-specific ones are registered next to their figures.

The ranges are the app's limits for real models (1M-token contexts, 128 heads, head_dim 512, d_model 8192,
scaling factors up to 64); larger values are refused with a message.
"""

from posenc.drawing.params import ParamSpec, index_below, register_param
from posenc.i18n import N_
from posenc_core.rope.scaling import ROPE_SCALING_FUNCTIONS

MAX_SEQ_LEN = 1_048_576
MAX_D_MODEL = 8192
MAX_HEAD_DIM = 512
MAX_HEADS = 128
MAX_FACTOR = 64.0

SEQ_LEN = register_param(
    ParamSpec("seq_len", "int", 1024, N_("Sequence length (positions)"), 1, MAX_SEQ_LEN, help=N_("Positions 0 .. L-1."))
)
D_MODEL = register_param(ParamSpec("d_model", "int", 128, N_("Model dimension d_model"), 2, MAX_D_MODEL))
HEAD_DIM = register_param(
    ParamSpec("head_dim", "int", 128, N_("Head dimension"), 2, MAX_HEAD_DIM, even=True, help=N_("RoPE rotates pairs."))
)
BASE = register_param(
    ParamSpec(
        "base",
        "float",
        10000.0,
        N_("Base (rope_theta)"),
        1.0001,
        1e12,
        log=True,
        help=N_("Wavelengths grow as base^(2i/d)."),
    )
)
N_HEADS = register_param(ParamSpec("n_heads", "int", 8, N_("Attention heads"), 1, MAX_HEADS))
FACTOR = register_param(
    ParamSpec(
        "factor",
        "float",
        4.0,
        N_("Scaling factor s"),
        0.01,
        MAX_FACTOR,
        log=True,
        help=N_("Target / original context."),
    )
)
ROPE_TYPE = register_param(
    ParamSpec("rope_type", "choice", "yarn", N_("RoPE scaling"), choices=tuple(ROPE_SCALING_FUNCTIONS))
)
ORIGINAL_MAX = register_param(
    ParamSpec("original_max_position_embeddings", "int", 4096, N_("Original (trained) context L"), 16, MAX_SEQ_LEN)
)
PARTIAL_ROTARY = register_param(
    ParamSpec("partial_rotary_factor", "float", 1.0, N_("Partial rotary factor"), 0.0625, 1.0)
)
ROPE_LAYOUT = register_param(
    ParamSpec("rope_layout", "choice", "half", N_("RoPE layout"), choices=("half", "interleaved"))
)


START = register_param(
    ParamSpec(
        "start",
        "int",
        0,
        N_("Window start (position)"),
        0,
        MAX_SEQ_LEN - 1,
        limits=index_below("seq_len", N_("the sequence has {n} positions")),
    )
)
VIEW = register_param(
    ParamSpec(
        "view",
        "choice",
        "overview",
        N_("View"),
        choices=("overview", "window"),
        choice_labels={"overview": N_("overview"), "window": N_("window")},
        help=N_("Overview: evenly spaced exact positions over the whole range. Window: every position from start."),
    )
)
DEVICE = register_param(
    ParamSpec("device", "choice", "auto", N_("Compute device"), choices=("auto", "cpu", "cuda", "mps"))
)
THEME = register_param(
    ParamSpec(
        "theme",
        "choice",
        "screen",
        N_("Figure style"),
        choices=("screen", "slides-light", "slides-dark"),
        choice_labels={"screen": N_("Screen"), "slides-light": N_("Slides, white"), "slides-dark": N_("Slides, dark")},
    )
)
