"""The learned family's parameters: where the table comes from (random, built-in, upload), its size and seed."""

from __future__ import annotations

from posenc.drawing.params import ParamSpec, register_param
from posenc.i18n import N_
from posenc_core.encodings import learned, metrics

# the label of each built-in table in the source list (the core's description); one not listed here shows its
# description untranslated
BUILTIN_LABELS = {
    "all-MiniLM-L6-v2": N_("all-MiniLM-L6-v2 (BERT family): 512 trained positions x 384 channels (built in)"),
}

register_param(
    ParamSpec(
        "table_source",
        "choice",
        "random",
        N_("Position table"),
        # every built-in the core knows; the page offers the installed ones (installed_sources), looked up each run
        choices=("random", *learned.BUILTIN_SOURCES, "upload"),
        choice_labels={
            "random": N_("Seeded random table (untrained)"),
            **{
                name: BUILTIN_LABELS.get(name, f"{source.description} (built in)")
                for name, source in learned.BUILTIN_SOURCES.items()
            },
            "upload": N_("Upload a table (.npy, .npz, .safetensors, .pt) or read a model's by id"),
        },
    )
)


def installed_sources() -> tuple[str, ...]:
    """The table sources this app can read now: random, the built-ins installed at this moment, upload."""
    return ("random", *learned.builtin_tables(), "upload")


def opening_source() -> str:
    """The table the Learned page opens on: the first trained built-in installed (a table that shows what training
    put there), else the seeded random one (noise, until it is trained)."""
    return next(iter(learned.builtin_tables()), "random")


def missing_builtins() -> dict[str, str]:
    """Each built-in table not installed now, with the command that installs it."""
    installed = learned.builtin_tables()
    return {name: source.install_command for name, source in learned.BUILTIN_SOURCES.items() if name not in installed}


register_param(
    ParamSpec(
        "upload_sha256",
        "text",
        "",
        N_("Uploaded table (SHA-256)"),
        help=N_("Set by the page from the uploaded file."),
    )
)


register_param(
    ParamSpec("max_len", "int", 512, N_("Table length max_len (rows)"), 2, 8192, help=N_("GPT-2: 1024, BERT: 512."))
)


register_param(
    ParamSpec(
        "std",
        "float",
        0.02,
        N_("Initial std"),
        1e-4,
        10.0,
        log=True,
        help=N_(
            "BERT draws N(0, 0.02²) (its initializer_range, also HF's GPT-2); OpenAI's GPT-2 code drew its "
            "position table with std 0.01."
        ),
    )
)


register_param(ParamSpec("seed", "int", 0, N_("Seed"), 0, 2**32 - 1, help=N_("The same seed gives the same table.")))


SIMILARITY_LABELS = {"cosine": N_("cosine"), "dot": N_("dot")}
"""The similarity's name in the control and in the text (its value, as in the formulas, stays dot/cosine)."""

register_param(
    ParamSpec(
        "similarity",
        "choice",
        "cosine",
        N_("Similarity"),
        choices=metrics.KINDS,
        choice_labels=SIMILARITY_LABELS,
        help=N_("dot: table[p]·table[q]; cosine: the same between unit-length rows."),
    )
)


TABLE_PARAMS = ("table_source", "upload_sha256", "max_len", "d_model", "std", "seed")
