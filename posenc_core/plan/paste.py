"""Settings to paste, from one method's :class:`~posenc_core.plan.methods.Settings`: the config.json keys (HF
transformers 4's ``rope_scaling`` and transformers 5's ``rope_parameters``) and each serving runtime's flags.

:data:`RUNTIMES` is a registry of same-signature writers ``(settings, model_id, target) -> str`` with the methods
each runtime implements. What each needs:

- vLLM: ``--hf-overrides`` with ``rope_parameters`` (its older ``--rope-scaling`` flag is gone) and
  ``--max-model-len T``. vLLM accepts a max-model-len up to the length it derives from the config: L·s for
  linear, dynamic and YaRN, max_position_embeddings for llama3 and longrope (so those two also override it), and
  max_position_embeddings for a plain base (overridden too).
- SGLang: ``--json-model-override-args`` with ``rope_scaling`` and ``--context-length T``; it derives the
  length the same way.
- llama.cpp: ``--rope-scaling {linear,yarn}``, ``--rope-scale s``, ``--yarn-orig-ctx L``, ``--rope-freq-base b``,
  ``-c T``. Llama 3.1's and LongRoPE's per-pair factors live in the GGUF file (``rope_freqs``, written by
  ``convert_hf_to_gguf.py`` from config.json), and it has no dynamic NTK.

Ref: vLLM docs "Context Extension" (``--hf-overrides``) and ``_get_and_verify_max_len``; SGLang ``server_args``;
llama.cpp ``common/arg.cpp``; Qwen's model cards (YaRN on vLLM, SGLang and llama.cpp).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from posenc_core.plan.methods import Settings

IMPLEMENTED, AT_CONVERSION = "yes", "at conversion"
CONFIG_BLOCKS = ("config.json", "config.json (transformers 5)")
"""The names of the config.json blocks in :func:`paste_blocks` (the others are runtimes' flags)."""


def config_keys(settings: Settings) -> dict[str, Any]:
    """The config.json keys in transformers 4's form: ``rope_scaling``, ``rope_theta``, ``max_position_embeddings``."""
    keys: dict[str, Any] = {}
    if settings.scaling is not None:
        keys["rope_scaling"] = dict(settings.scaling)
    keys["rope_theta"] = settings.rope_theta
    keys["max_position_embeddings"] = settings.max_position_embeddings
    return keys


def rope_parameters(settings: Settings) -> dict[str, Any]:
    """transformers 5's ``rope_parameters``: the scaling block with the base inside (``rope_type`` default when
    there is no scaling)."""
    block = dict(settings.scaling or {"rope_type": "default"})
    return {"rope_type": block.pop("rope_type"), "rope_theta": settings.rope_theta, **block}


def config_keys_v5(settings: Settings) -> dict[str, Any]:
    """The config.json keys in transformers 5's form: ``rope_parameters`` and ``max_position_embeddings``."""
    return {"rope_parameters": rope_parameters(settings), "max_position_embeddings": settings.max_position_embeddings}


def _json(value: Mapping[str, Any]) -> str:
    return json.dumps(value, separators=(", ", ": "))


def _rope_type(settings: Settings) -> str:
    return (settings.scaling or {}).get("rope_type", "default")


def _override_length(settings: Settings) -> bool:
    """Whether a vLLM / SGLang override must raise max_position_embeddings for the runtime to accept T."""
    return _rope_type(settings) in ("llama3", "longrope", "default")


def vllm_flags(settings: Settings, model_id: str, target: int) -> str:
    """``vllm serve`` with ``--hf-overrides`` (rope_parameters) and ``--max-model-len``."""
    overrides: dict[str, Any] = {"rope_parameters": rope_parameters(settings)}
    if _override_length(settings):
        overrides["max_position_embeddings"] = settings.max_position_embeddings
    return f"vllm serve {shlex.quote(model_id)} --hf-overrides {shlex.quote(_json(overrides))} --max-model-len {target}"


def sglang_flags(settings: Settings, model_id: str, target: int) -> str:
    """``sglang.launch_server`` with ``--json-model-override-args`` (rope_scaling) and ``--context-length``."""
    overrides: dict[str, Any] = {"rope_theta": settings.rope_theta}
    if settings.scaling is not None:
        overrides["rope_scaling"] = dict(settings.scaling)
    if _override_length(settings):
        overrides["max_position_embeddings"] = settings.max_position_embeddings
    return (
        f"python -m sglang.launch_server --model-path {shlex.quote(model_id)} "
        f"--json-model-override-args {shlex.quote(_json(overrides))} --context-length {target}"
    )


def llama_cpp_flags(settings: Settings, model_id: str, target: int) -> str:
    """``llama-server`` flags: scaling type, scale, original context, base, context size."""
    rope_type, scaling = _rope_type(settings), settings.scaling or {}
    flags = ["llama-server", "-m", shlex.quote(f"{model_id.rstrip('/').rsplit('/', 1)[-1]}.gguf")]
    if rope_type in ("linear", "yarn"):
        flags += ["--rope-scaling", rope_type, "--rope-scale", f"{scaling['factor']:g}"]
    if rope_type == "yarn":
        flags += ["--yarn-orig-ctx", str(scaling["original_max_position_embeddings"])]
        flags += [f"--yarn-beta-fast {scaling['beta_fast']:g}"] if "beta_fast" in scaling else []
        flags += [f"--yarn-beta-slow {scaling['beta_slow']:g}"] if "beta_slow" in scaling else []
    flags += ["--rope-freq-base", f"{settings.rope_theta:g}", "-c", str(target)]
    command = " ".join(flags)
    if rope_type in ("llama3", "longrope"):
        return (
            "# convert_hf_to_gguf.py with the config.json keys above (the factors go into the GGUF), then\n" + command
        )
    return command


@dataclass(frozen=True)
class Runtime:
    """A serving runtime: its name, the methods it implements ("yes" or "at conversion"), its flags writer."""

    label: str
    methods: Mapping[str, str]
    flags: Callable[[Settings, str, int], str] | None  # None: config.json only (transformers)


_EVERY = {method: IMPLEMENTED for method in ("linear", "dynamic", "yarn", "llama3", "longrope", "base")}

RUNTIMES: dict[str, Runtime] = {
    "transformers": Runtime("HF transformers", _EVERY, None),
    "vllm": Runtime("vLLM", _EVERY, vllm_flags),
    "sglang": Runtime("SGLang", _EVERY, sglang_flags),
    "llama.cpp": Runtime(
        "llama.cpp",
        {
            "linear": IMPLEMENTED,
            "yarn": IMPLEMENTED,
            "base": IMPLEMENTED,
            "llama3": AT_CONVERSION,
            "longrope": AT_CONVERSION,
        },
        llama_cpp_flags,
    ),
}
"""The runtimes a plan writes settings for, by the name ``posenc plan --runtime`` takes."""


def paste_blocks(settings: Settings, method: str, model_id: str, target: int) -> dict[str, str]:
    """Every block to paste, as text: ``config.json`` (transformers 4), ``config.json (transformers 5)``, then each
    runtime's flags (a runtime that lacks the method gets no block)."""
    forms = (config_keys(settings), config_keys_v5(settings))
    blocks = {name: json.dumps(keys, indent=2) for name, keys in zip(CONFIG_BLOCKS, forms, strict=True)}
    for name, runtime in RUNTIMES.items():
        if runtime.flags is not None and method in runtime.methods:
            blocks[name] = runtime.flags(settings, model_id, target)
    return blocks
