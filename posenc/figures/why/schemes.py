"""The schemes table (:func:`posenc_core.schemes.facts_table`) in the reader's language: the core writes it in
English; the column titles and the cells that are words, not names, are marked here and shown translated. A cell
not marked here (a list of model names, or a scheme registered later) is shown as the core writes it."""

from __future__ import annotations

from posenc.i18n import N_, _
from posenc_core.schemes import facts_table

SCHEME_TEXT = frozenset(
    {
        # column titles
        N_("scheme"),
        N_("trainable"),
        N_("extrapolates past training length"),
        N_("relative"),
        N_("where it acts"),
        N_("used by"),
        # names
        N_("Sinusoidal (absolute)"),
        N_("Learned absolute"),
        N_("Shaw relative"),
        N_("T5 buckets"),
        N_("2-D sin-cos (ViT/MAE)"),
        N_("2-D RoPE (vision towers)"),
        N_("NoPE (no position encoding)"),
        # answers
        N_("yes"),
        N_("no"),
        N_("yes (one scalar per bucket and head)"),
        N_("defined everywhere, poorly used past training"),
        N_("no: no row exists past max_len"),
        N_("yes, distances past k are clipped to k"),
        N_("partly: far distances share the last bucket; perplexity still rises past training, later than RoPE's"),
        N_("yes (linear penalty grows with distance)"),
        N_("not by itself; with scaling (PI, NTK, YaRN, Llama-3, LongRoPE)"),
        N_("as RoPE"),
        N_("defined on any grid; learned ViT tables are resized instead"),
        N_("any grid size (images at their native resolution)"),
        N_("PE(p+k) is a fixed rotation of PE(p)"),
        N_("yes: q_m·k_n depends only on m - n"),
        N_("yes, per axis (time, height, width)"),
        N_("the dot product of two patches depends only on their row and column offsets"),
        N_("yes: q·k depends only on the row and column offsets"),
        N_("added to the input embeddings"),
        N_("added to keys (and values) in every layer"),
        N_("bias on the attention logits"),
        N_("rotates queries and keys in every layer"),
        N_("rotates queries and keys; frequency bands per axis"),
        N_("added to the patch embeddings ([CLS] gets zeros)"),
        N_("rotates queries and keys: half the pairs by the row, half by the column"),
        N_("Transformer (Vaswani 2017), Marian, fairseq models"),
        N_("Music Transformer, early relative models"),
        N_("BLOOM, MPT, Falcon (some)"),
        N_("MAE, MoCo v3, I-JEPA (the original ViT learned its table)"),
        N_("Qwen2-VL and Qwen2.5-VL vision encoders, Pixtral, EVA-02"),
        N_("no: nothing to train"),
        N_(
            "limited: no position to run past, but attention spreads out on long inputs (Wang et al. 2024); "
            "small NoPE decoders extrapolated better than RoPE and ALiBi (Kazemnejad et al. 2023)"
        ),
        N_("implicitly: a causal layer can count the tokens before it"),
        N_("nowhere: the causal mask alone orders the tokens (decoders only)"),
        N_("Llama 4 and SmolLM3 (every 4th layer)"),
    }
)
"""The table's text that is translated (the core's English, marked for the catalogues)."""


def shown(text: str) -> str:
    """A title or cell of the schemes table as the reader sees it: translated when marked above, else as is."""
    return _(text) if text in SCHEME_TEXT else text


def translated_facts_table() -> list[dict[str, str]]:
    """:func:`posenc_core.schemes.facts_table` with its column titles and marked cells in the reader's language (the
    first column, the scheme's name, is titled ``shown("scheme")``)."""
    return [{shown(title): shown(value) for title, value in row.items()} for row in facts_table()]
