"""The methods table in the reader's language: the core's rows (``posenc_core.rope.methods.methods_table``) with
their column names and their words translated; the rope_type codes, formulas and model names stay as they are."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from posenc.i18n import N_, _

COLUMN_LABELS = {
    "method": N_("method"),
    "what it changes": N_("what it changes"),
    "fine-tuning": N_("fine-tuning"),
    "attention factor": N_("attention factor"),
    "used by": N_("used by"),
}
"""The core's column names (``rope.methods.COLUMNS``) and the label each is shown under (rope_type, the index,
keeps its name: it is the key of an HF config)."""

CELL_TEXTS = frozenset(
    (
        N_("RoPE (no scaling)"),
        N_("nothing: θ_i = base^(−2i/d)"),
        N_("no (the model's own context only)"),
        N_("Llama 2, Mistral 7B, Qwen2 within 32k: every RoPE model at its trained length"),
        N_("Linear (position interpolation)"),
        N_("every θ_i divided by s: positions squeezed s times, fast pairs too"),
        N_("yes, briefly (about 1,000 steps in Chen et al. 2023)"),
        N_("Gemma 3's global layers (s = 8), Vicuna v1.5 16k, LongChat"),
        N_("NTK-aware (static)"),
        N_("the base, raised to base·s^(d/(d−2)): the slowest pair divided by s, fast pairs almost kept"),
        N_("no (proposed for use without; better with)"),
        N_("community Llama extensions (2023); not a rope_type of HF transformers, which has dynamic NTK only"),
        N_("Dynamic NTK"),
        N_("the base, grown with the sequence length once it passes L (unchanged within L)"),
        N_("no (designed for use without)"),
        N_("Qwen-7B v1 (use_dynamic_ntk), Llama models loaded with rope_type dynamic"),
        N_("slow pairs divided by s, fast pairs kept, a ramp between; cos and sin scaled up (DeepSeek: mscale)"),
        N_("yes, briefly (400 steps, about 0.1% of pre-training, in Peng et al. 2023); works less well without"),
        N_("Qwen2.5 at 128k (s = 4), DeepSeek-V2/V3 (s = 40), Nous Yarn-Llama-2"),
        N_("each pair divided by its own searched factor, a short list within L and a long one past it"),
        N_("yes: the factors are searched per model, then the model is fine-tuned with them"),
        N_("long wavelengths (above L/low_freq_factor) divided by s, short ones kept, blended between"),
        N_("yes: part of Llama 3.1's long-context continued pre-training"),
        N_("Llama 3.1 and 3.3 (s = 8), Llama 3.2 1B/3B (s = 32)"),
    )
)
"""The words of the core's method facts (``posenc_core.rope.scaling_keys``) that are prose, marked for the
catalogues; a cell that is a name or a formula only ("YaRN", "0.1·ln(s) + 1 = 1.277") is shown as it is."""


def cell(text: str) -> str:
    """``text`` of a methods-table cell in the reader's language (as it is when it is not prose)."""
    return _(text) if text in CELL_TEXTS else text


def translated_rows(rows: Iterable[Mapping[str, str]]) -> list[dict[str, str]]:
    """The rows with their column names and prose cells in the reader's language (rope_type codes kept)."""
    return [
        {
            (_(COLUMN_LABELS[key]) if key in COLUMN_LABELS else key): (value if key == "rope_type" else cell(value))
            for key, value in row.items()
        }
        for row in rows
    ]
