"""SGLang's reading of the planner's ``--json-model-override-args`` block for the tiny Llama, rule by rule.

SGLang cannot run on these machines (``pip install sglang`` 0.5.23 pins a CUDA torch 2.14.1 and CUDA-only kernels,
and ``sglang.srt.configs.model_config`` imports torchvision, which PyPI builds only against CUDA torch:
docs/CONFORMANCE.md). So each rule the planner relies on is restated here in our words from SGLang 0.5.23's
source (the wheel on PyPI) and applied to a real transformers config object holding the tiny model's config.json
(SGLang 0.5.23 pins transformers 5.19; this suite runs the project's 5.23):

1. ``python/sglang/srt/utils/hf_transformers/config.py`` (``get_config``): each key of the override is set on the
   loaded config; a dict given for ``rope_scaling`` or ``rope_parameters`` is merged into the model's own dict
   (the override's keys win, the model's other keys stay); any other key replaces the attribute.
2. ``python/sglang/srt/utils/hf_transformers/common.py`` (``get_context_length``): the derived context is
   max_position_embeddings times the scaling block's ``factor``, except that a block holding
   ``original_max_position_embeddings`` or of type llama3 counts a factor of 1 (transformers 5's
   ``rope_scaling`` is its ``rope_parameters``).
3. ``python/sglang/srt/configs/model_config.py`` (``_derive_context_length``): a ``--context-length`` above the
   derived context is refused with ValueError (unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is set, which a
   pasted block must not need).
4. ``python/sglang/srt/models/llama.py`` (``LlamaDecoderLayer``): when the config has ``rope_parameters`` the
   base is ``rope_parameters["rope_theta"]`` (10000 when absent) and the whole dict is the scaling block given
   to ``get_rope``; a top-level ``rope_theta`` is then never read.
5. ``python/sglang/srt/layers/rotary_embedding/factory.py`` (``get_rope``) builds dynamic NTK with max_position =
   max_position_embeddings, and ``rope_variant.py`` (``DynamicNTKScalingRotaryEmbedding._compute_cos_sin_cache``)
   computes its base once, for a cache of max_position x factor tokens.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest

from conformance.blocks import CONFIG_V5, MODEL_ID, plan_methods
from conformance.tiny import CONFIG, TARGET, TRAINED_LENGTH

METHODS = ("linear", "dynamic", "yarn", "llama3", "base")


@pytest.fixture(scope="module")
def planned() -> dict[str, Any]:
    return {plan.method: plan for plan in plan_methods(CONFIG, TARGET, METHODS)}


def sglang_command(block: str) -> tuple[dict[str, Any], int]:
    """The override and --context-length of the planner's ``sglang.launch_server`` line."""
    argv = shlex.split(block)
    assert argv[:5] == ["python", "-m", "sglang.launch_server", "--model-path", MODEL_ID], argv
    flags = dict(zip(argv[5::2], argv[6::2], strict=True))
    assert set(flags) == {"--json-model-override-args", "--context-length"}, flags
    return json.loads(flags["--json-model-override-args"]), int(flags["--context-length"])


def overridden(override: dict[str, Any]) -> Any:
    """Rule 1 on the tiny model's config as transformers loads it."""
    from transformers import LlamaConfig

    config = LlamaConfig(**CONFIG)
    for key, value in override.items():
        current = getattr(config, key, None)
        if key in ("rope_scaling", "rope_parameters") and isinstance(value, dict) and isinstance(current, dict):
            setattr(config, key, {**current, **value})
        else:
            setattr(config, key, value)
    return config


def derived_context(config: Any) -> int:
    """Rule 2."""
    scaling = getattr(config, "rope_scaling", None) or {}
    factor = scaling.get("factor", 1) if scaling else 1
    if "original_max_position_embeddings" in scaling or scaling.get("rope_type") == "llama3":
        factor = 1
    return int(factor * config.max_position_embeddings)


@pytest.mark.parametrize("method", METHODS)
def test_sglang_accepts_the_planned_length(planned, method):
    """Rules 1-3: the context SGLang derives from the overridden config reaches --context-length = T."""
    override, context = sglang_command(planned[method].blocks["sglang"])
    assert context == TARGET
    assert derived_context(overridden(override)) >= context


@pytest.mark.parametrize("method", METHODS)
def test_sglang_builds_the_planned_rope(planned, method):
    """Rules 1 and 4: the base and scaling block SGLang's Llama takes, and max_position_embeddings, are the
    plan's own (its transformers 5 block), with nothing of the model's old settings left over."""
    override, _ = sglang_command(planned[method].blocks["sglang"])
    config = overridden(override)
    planned_keys = json.loads(planned[method].blocks[CONFIG_V5])
    rope = dict(config.rope_parameters)
    assert rope.get("rope_theta", 10000) == planned_keys["rope_parameters"]["rope_theta"]
    assert rope == planned_keys["rope_parameters"]
    assert config.max_position_embeddings == planned_keys["max_position_embeddings"]


def test_sglang_dynamic_ntk_is_computed_for_the_target(planned):
    """Rule 5: SGLang computes dynamic NTK's base once, for max_position_embeddings x factor tokens: the plan
    keeps max_position_embeddings at L so that this is T (the length transformers' dynamic NTK reaches)."""
    override, _ = sglang_command(planned["dynamic"].blocks["sglang"])
    config = overridden(override)
    assert config.max_position_embeddings == TRAINED_LENGTH
    assert config.rope_parameters["factor"] * config.max_position_embeddings == TARGET
