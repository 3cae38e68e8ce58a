"""The shape of a model's own config.json, as far as the blocks a plan writes depend on it.

A block is merged into the model's real config.json by replacing keys, so it must name the keys that file uses
and null the ones that would otherwise win over it. :class:`ConfigShape` records what decides that: where the
language model's keys live (top level, or ``text_config`` for Qwen2-VL, Gemma 3 and Llama 4 as saved by newer
transformers), which RoPE block the file holds (``rope_scaling`` is read before ``rope_parameters`` by
transformers 5), the key of the base (GPT-NeoX's ``rotary_emb_base``; GPT-J has none: 10000 is fixed in its
code), the key of the length (GPT-J's ``n_positions``) and Phi-3's top-level ``original_max_position_embeddings``.

:func:`shape_of` reads it from a config.json's dict; :data:`PRESET_SHAPES` holds it for each preset, as read from
the config.json that preset's numbers come from (``tests/core/plan/test_shape.py`` reads every fixture again).

Ref: HF transformers 5 ``modeling_rope_utils.py`` (``convert_rope_params_to_dict``: ``rope_scaling or
rope_parameters``; a top-level ``rope_theta`` only fills a block without one), ``configuration_gpt_neox.py``
(``rotary_emb_base``, ``rotary_pct``), ``configuration_phi3.py``, ``configuration_qwen2_vl.py`` (text keys moved
into ``text_config``), ``configuration_gemma3.py`` (``rope_parameters`` per layer type).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from posenc_core.models.preset_type import ModelPreset

TEXT_CONFIG = "text_config"
NESTED_TYPES = ("qwen2_vl", "gemma3", "llama4")
"""Model types whose transformers 5 config keeps the language model's RoPE settings and length in ``text_config``
(a runtime's override must go there; a config.json block goes there when the file has a ``text_config``)."""
PER_LAYER_TYPES = ("gemma3",)
"""Model types whose transformers 5 ``rope_parameters`` are nested per layer type (full and sliding attention)."""


@dataclass(frozen=True)
class ConfigShape:
    """Where a config.json keeps what a plan replaces."""

    model_type: str = "llama"
    nest: str | None = None  # "text_config" when the file keeps the language model's keys there
    rope_block: str | None = None  # the RoPE block the file holds at that level: rope_scaling, rope_parameters
    theta_key: str | None = "rope_theta"  # rotary_emb_base (GPT-NeoX); None: the base is fixed in code (GPT-J)
    length_key: str = "max_position_embeddings"  # n_positions (GPT-J)
    top_original: bool = False  # Phi-3: original_max_position_embeddings at the top level, which wins

    @property
    def runtime_nest(self) -> str | None:
        """Where a runtime's override of the loaded config must put the RoPE keys (transformers 5's sub-config)."""
        return TEXT_CONFIG if self.model_type in NESTED_TYPES else None

    @property
    def per_layer_type(self) -> bool:
        return self.model_type in PER_LAYER_TYPES


def shape_of(config: Mapping[str, Any]) -> ConfigShape:
    """The :class:`ConfigShape` of a config.json's dict (the one :func:`posenc_core.models.hf_config.from_hf_config`
    reads)."""
    text = config.get(TEXT_CONFIG)
    nested = isinstance(text, Mapping) and any(
        key in text for key in ("rope_scaling", "rope_parameters", "rope_theta", "max_position_embeddings")
    )
    level = text if nested else config
    block = next((key for key in ("rope_scaling", "rope_parameters") if level.get(key) is not None), None)
    theta = "rotary_emb_base" if "rotary_emb_base" in level else None if "rotary_dim" in level else "rope_theta"
    return ConfigShape(
        model_type=str(config.get("model_type") or "llama"),
        nest=TEXT_CONFIG if nested else None,
        rope_block=block,
        theta_key=theta,
        length_key="n_positions"
        if "n_positions" in level and "max_position_embeddings" not in level
        else ("max_position_embeddings"),
        top_original="original_max_position_embeddings" in config and not nested,
    )


_LLAMA = ConfigShape("llama")
_SCALED = ConfigShape("llama", rope_block="rope_scaling")
PRESET_SHAPES: dict[str, ConfigShape] = {
    "llama-2-7b": _LLAMA,
    "llama-3-8b": _LLAMA,
    "llama-3.1-8b": _SCALED,
    "mistral-7b": ConfigShape("mistral"),
    "qwen2.5-7b": ConfigShape("qwen2"),
    "qwen2.5-7b-128k-yarn": ConfigShape("qwen2", rope_block="rope_scaling"),
    "gemma-2-9b": ConfigShape("gemma2"),
    "phi-3-mini-128k": ConfigShape("phi3", rope_block="rope_scaling", top_original=True),
    "phi-2": ConfigShape("phi"),
    "deepseek-v3": ConfigShape("deepseek_v3", rope_block="rope_scaling"),
    "deepseek-v2-lite": ConfigShape("deepseek_v2", rope_block="rope_scaling"),
    "gpt-neox-20b": ConfigShape("gpt_neox", theta_key="rotary_emb_base"),
    "gpt-j-6b": ConfigShape("gptj", theta_key=None, length_key="n_positions"),
    "qwen2-vl-7b": ConfigShape("qwen2_vl", rope_block="rope_scaling"),
    "llama-4-scout": ConfigShape("llama4", nest=TEXT_CONFIG, rope_block="rope_scaling"),
    "gemma-3-27b": ConfigShape("gemma3", nest=TEXT_CONFIG, rope_block="rope_scaling"),
}
"""Each RoPE preset's shape, read from the config.json its numbers come from (``source``)."""


def shape_for(model: ModelPreset) -> ConfigShape:
    """The shape of a preset's config.json; a model that is no preset gets a plain Llama config's shape (a block
    for it names ``rope_scaling``, ``rope_theta`` and ``max_position_embeddings`` at the top level)."""
    from posenc_core.models.presets import PRESETS

    for key, preset in PRESETS.items():
        if preset == model:
            return PRESET_SHAPES.get(key, _LLAMA)
    return _LLAMA
