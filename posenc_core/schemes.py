"""The positional-encoding schemes the project knows, one registered entry each.

Everything that lists schemes reads this registry: a preset's ``scheme`` (:mod:`posenc_core.models.presets`), the
config reader's guess from a ``model_type`` (:mod:`posenc_core.models.hf_config`), the schemes table on the Why page,
and the Compare page (which compares the registered schemes that have a Compare curve in their figure package).
Adding a scheme is its core module, one ``register_scheme`` call here, its figure package, its page and its
tests: see ``docs/ADDING_A_SCHEME.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

from posenc_core._checks import check_choice

FACT_COLUMNS = {
    "name": "scheme",
    "trainable": "trainable",
    "extrapolation": "extrapolates past training length",
    "relative": "relative",
    "acts_on": "where it acts",
    "used_by": "used by",
}
"""The schemes table's columns: field name -> column title."""


@dataclass(frozen=True)
class Scheme:
    """One scheme: its key (a preset's ``scheme``), its name, what the schemes table says of it, and the HF
    ``model_type`` values whose config.json the reader takes for this scheme when the config itself does not say
    (a ``rope_theta``, an ``alibi`` flag or ``mrope_section`` decides first)."""

    key: str
    name: str
    trainable: str
    extrapolation: str
    relative: str
    acts_on: str
    used_by: str
    hf_model_types: frozenset[str] = frozenset()

    def facts(self) -> dict[str, str]:
        """The scheme's row of the schemes table, keyed by column title."""
        return {title: getattr(self, field) for field, title in FACT_COLUMNS.items()}


SCHEMES: dict[str, Scheme] = {}


def register_scheme(scheme: Scheme) -> Scheme:
    """Add ``scheme`` to :data:`SCHEMES` (each key once; a model_type belongs to one scheme only)."""
    if scheme.key in SCHEMES:
        raise ValueError(f"scheme {scheme.key!r} is registered twice")
    for other in SCHEMES.values():
        shared = scheme.hf_model_types & other.hf_model_types
        if shared:
            raise ValueError(f"model types {sorted(shared)} are claimed by {other.key!r} and {scheme.key!r}")
    SCHEMES[scheme.key] = scheme
    return scheme


def get_scheme(key: str) -> Scheme:
    """The registered scheme ``key``; a ValueError lists the known ones."""
    return SCHEMES[check_choice("scheme", key, tuple(SCHEMES))]


def scheme_for_model_type(model_type: str) -> str | None:
    """The key of the scheme registered for an HF ``model_type``, or None."""
    return next((s.key for s in SCHEMES.values() if model_type in s.hf_model_types), None)


def facts_table() -> list[dict[str, str]]:
    """One row per registered scheme (in registration order) for the schemes table."""
    return [scheme.facts() for scheme in SCHEMES.values()]


register_scheme(
    Scheme(
        "sinusoidal",
        "Sinusoidal (absolute)",
        trainable="no",
        extrapolation="defined everywhere, poorly used past training",
        relative="PE(p+k) is a fixed rotation of PE(p)",
        acts_on="added to the input embeddings",
        used_by="Transformer (Vaswani 2017), Marian, fairseq models",
        hf_model_types=frozenset({"marian", "fsmt", "pegasus", "xglm", "m2m_100", "speech_to_text"}),
    )
)
register_scheme(
    Scheme(
        "learned",
        "Learned absolute",
        trainable="yes",
        extrapolation="no: no row exists past max_len",
        relative="no",
        acts_on="added to the input embeddings",
        used_by="BERT, GPT-2, RoBERTa, OPT",
        hf_model_types=frozenset({"gpt2", "gpt_neo", "gpt_bigcode", "opt", "bert", "roberta", "biogpt"}),
    )
)
register_scheme(
    Scheme(
        "shaw",
        "Shaw relative",
        trainable="yes",
        extrapolation="yes, distances past k are clipped to k",
        relative="yes",
        acts_on="added to keys (and values) in every layer",
        used_by="Music Transformer, early relative models",
    )
)
register_scheme(
    Scheme(
        "t5",
        "T5 buckets",
        trainable="yes (one scalar per bucket and head)",
        extrapolation=(
            "partly: far distances share the last bucket; perplexity still rises past training, later than RoPE's"
        ),
        relative="yes",
        acts_on="bias on the attention logits",
        used_by="T5, Flan-T5, mT5",
        hf_model_types=frozenset({"t5", "mt5", "umt5", "longt5", "switch_transformers"}),
    )
)
register_scheme(
    Scheme(
        "alibi",
        "ALiBi",
        trainable="no",
        extrapolation="yes (linear penalty grows with distance)",
        relative="yes",
        acts_on="bias on the attention logits",
        used_by="BLOOM, MPT, Falcon (some)",
        hf_model_types=frozenset({"bloom"}),
    )
)
register_scheme(
    Scheme(
        "rope",
        "RoPE",
        trainable="no",
        extrapolation="not by itself; with scaling (PI, NTK, YaRN, Llama-3, LongRoPE)",
        relative="yes: q_m·k_n depends only on m - n",
        acts_on="rotates queries and keys in every layer",
        used_by="Llama, Mistral, Qwen, Gemma, Phi, DeepSeek, GPT-NeoX, GPT-J",
        hf_model_types=frozenset(
            {"llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2", "phi", "phi3", "gpt_neox"}
        ),
    )
)
register_scheme(
    Scheme(
        "mrope",
        "M-RoPE",
        trainable="no",
        extrapolation="as RoPE",
        relative="yes, per axis (time, height, width)",
        acts_on="rotates queries and keys; frequency bands per axis",
        used_by="Qwen2-VL, Qwen2.5-VL",
    )
)
register_scheme(
    Scheme(
        "sincos_2d",
        "2-D sin-cos (ViT/MAE)",
        trainable="no",
        extrapolation="defined on any grid; learned ViT tables are resized instead",
        relative="the dot product of two patches depends only on their row and column offsets",
        acts_on="added to the patch embeddings ([CLS] gets zeros)",
        used_by="MAE, MoCo v3, I-JEPA (the original ViT learned its table)",
    )
)
register_scheme(
    Scheme(
        "rope_2d",
        "2-D RoPE (vision towers)",
        trainable="no",
        extrapolation="any grid size (images at their native resolution)",
        relative="yes: q·k depends only on the row and column offsets",
        acts_on="rotates queries and keys: half the pairs by the row, half by the column",
        used_by="Qwen2-VL and Qwen2.5-VL vision encoders, Pixtral, EVA-02",
    )
)
register_scheme(
    Scheme(
        "nope",
        "NoPE (no position encoding)",
        trainable="no: nothing to train",
        extrapolation=(
            "limited: no position to run past, but attention spreads out on long inputs (Wang et al. 2024); "
            "small NoPE decoders extrapolated better than RoPE and ALiBi (Kazemnejad et al. 2023)"
        ),
        relative="implicitly: a causal layer can count the tokens before it",
        acts_on="nowhere: the causal mask alone orders the tokens (decoders only)",
        used_by="Llama 4 and SmolLM3 (every 4th layer)",
    )
)
