"""The layered models' parameter: which preset's layers to draw (the presets that describe their layers)."""

from __future__ import annotations

from posenc.drawing.params import ParamSpec, register_param
from posenc.i18n import N_
from posenc_core.models.presets import PRESETS

LAYERED = tuple(key for key, preset in PRESETS.items() if preset.n_layers is not None)
# The choice labels are model names, the same in every language; the controls show a label with _(), so the
# catalogues hold them (a test checks that every layered preset's name is here).
MODEL_NAMES = (N_("Gemma-3-27B"), N_("Llama-4-Scout-17B-16E"))
# Their sources, which the figure's note cites, shown with _() (the same test checks them).
MODEL_SOURCES = (
    N_(
        "google/gemma-3-27b-it config.json on the Hugging Face hub, text_config; Gemma3TextConfig defaults where it "
        "is silent"
    ),
    N_("meta-llama/Llama-4-Scout-17B-16E config.json on the Hugging Face hub, text_config (transformers 4.51.0)"),
)

register_param(
    ParamSpec(
        "layered_model",
        "choice",
        "gemma-3-27b",
        N_("Model (layer by layer)"),
        choices=LAYERED,
        choice_labels={key: PRESETS[key].name for key in LAYERED},
        help=N_("A model whose layers use different RoPE bases, or none (NoPE)."),
    )
)
