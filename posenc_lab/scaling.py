"""RoPE scaling for a trained lab model, built as the config reader builds it from a ``config.json``.

:func:`rope_scaling` writes the ``config.json`` a Llama-style model of the lab's size would carry (hidden size,
heads, ``max_position_embeddings`` = the trained length, ``rope_theta``, and a ``rope_scaling`` block whose
``original_max_position_embeddings`` is the trained length) and reads it with
:func:`posenc_core.models.hf_config.from_hf_config`, the reader behind the app's config upload. The dict it
returns is the one that reader would hand the figures, checked key by key as transformers checks it; the RoPE
scheme then computes its frequencies from it with ``posenc_core.rope.scaling.inv_freq``.

Keys a method needs that a person may not give get published values: Llama 3.1's ``low_freq_factor`` 1 and
``high_freq_factor`` 4; for LongRoPE, ``short_factor`` all ones. LongRoPE's ``long_factor`` has no published
default: the method searches it per model (:mod:`posenc_lab.longrope_search` does, for the lab's RoPE models), so
it must be given.
"""

from __future__ import annotations

from typing import Any

from posenc_core.models.hf_config import from_hf_config
from posenc_core.rope import scaling as core_scaling
from posenc_lab.model import LabConfig

SCALING_TYPES = tuple(core_scaling.ROPE_SCALING_FUNCTIONS)
"""Every ``rope_type`` the core knows, ``default`` (no scaling) first."""
LLAMA3_DEFAULTS = {"low_freq_factor": 1.0, "high_freq_factor": 4.0}  # Llama 3.1's config.json


def scaling_block(config: LabConfig, rope_type: str, factor: float | None = None, **keys: Any) -> dict | None:
    """The ``rope_scaling`` block of a config.json for ``rope_type`` (None for ``default``), before reading."""
    if rope_type not in SCALING_TYPES:
        raise ValueError(f"scaling must be one of {', '.join(SCALING_TYPES)} (got {rope_type!r})")
    if rope_type == "default":
        return None
    block: dict[str, Any] = {"rope_type": rope_type, "original_max_position_embeddings": config.max_len}
    if factor is not None:
        block["factor"] = factor
    if rope_type == "llama3":
        block.update({key: value for key, value in LLAMA3_DEFAULTS.items() if key not in keys})
    if rope_type == "longrope":
        if keys.get("long_factor") is None:
            raise ValueError(
                "long_factor must be given for longrope: LongRoPE searches its per-pair factors for each model "
                "(the lab's searched ones are in results.json, by_seed.<seed>.longrope.factors)"
            )
        block.setdefault("short_factor", [1.0] * (config.head_dim // 2))
    block.update({key: value for key, value in keys.items() if value is not None})
    return block


def config_json(config: LabConfig, block: dict | None) -> dict:
    """The config.json of a Llama-style model of ``config``'s size with ``block`` as its ``rope_scaling``."""
    text = {
        "model_type": "llama",
        "hidden_size": config.d_model,
        "num_attention_heads": config.n_heads,
        "head_dim": config.head_dim,
        "max_position_embeddings": config.max_len,
        "rope_theta": config.rope_base,
    }
    if block is not None:
        text["rope_scaling"] = block
    return text


def rope_scaling(config: LabConfig, rope_type: str, factor: float | None = None, **keys: Any) -> dict | None:
    """The ``rope_scaling`` dict the config reader makes of ``rope_type`` with ``factor`` and ``keys`` for a model
    trained at ``config.max_len`` (None for ``default``); ValueError naming the key for a value out of range."""
    return read_block(config, scaling_block(config, rope_type, factor, **keys))


def read_block(config: LabConfig, block: dict | None) -> dict | None:
    """``block`` (a config.json ``rope_scaling``, None for none) as the config reader makes it for a model of
    ``config``, checked key by key and by the frequencies it gives; ValueError naming what is wrong."""
    if block is None:
        return None
    if not isinstance(block, dict):
        raise ValueError(f"rope_scaling must be a dict or None (got {type(block).__name__})")
    scaling = from_hf_config(config_json(config, block)).preset.rope_scaling
    kind = block.get("rope_type", block.get("type"))
    if scaling is None and block and kind != "default":  # the reader ignores what it does not know: refuse it here
        raise ValueError(f"rope_scaling.rope_type must be one of {', '.join(SCALING_TYPES)} (got {kind!r})")
    core_scaling.inv_freq(  # the checks the frequencies themselves make (e.g. list lengths), before a model runs
        config.head_dim, config.rope_base, scaling, seq_len=config.max_len, max_position_embeddings=config.max_len
    )
    return scaling
