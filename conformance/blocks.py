"""The planner's blocks for the tiny model, and what a person does with each: merge a config.json block into the
model's file, or take a runtime's command line as printed.

Pure functions (no runtime imported), so the unit tests in tests/conformance cover them in seconds.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MODEL_ID = "tiny-llama"
"""The model id the plans are made for; each command's id is then replaced with the local folder or GGUF file."""
CONFIG_V4, CONFIG_V5 = "config.json", "config.json (transformers 5)"
"""The names of the planner's two config.json blocks (transformers 4's ``rope_scaling``, 5's ``rope_parameters``)."""


@dataclass(frozen=True)
class PlannedMethod:
    """One method's plan for the tiny model: its blocks, or why the planner refused it; its findings (warnings and
    notes, each "severity code: reason")."""

    method: str
    blocks: dict[str, str] = field(default_factory=dict)
    refused: str | None = None  # the planner's ValueError, when it refuses the method for this model
    warnings: tuple[str, ...] = ()
    versions: dict[str, str] = field(default_factory=dict)  # block name -> runtime version the planner names


def plan_methods(config: Mapping[str, Any], target: int, methods: tuple[str, ...]) -> list[PlannedMethod]:
    """Ask the planner's public API for each method's blocks: ``posenc_core.plan.plan_config`` (a config.json in,
    the plan out), or ``plan_extension`` on the preset read from it where the planner has no ``plan_config``."""
    import posenc_core.plan as planner

    if hasattr(planner, "plan_config"):

        def plan_for(method: str) -> Any:
            return planner.plan_config(dict(config), target, method, model_id=MODEL_ID)
    else:
        from posenc_core.models.hf_config import from_hf_config

        model = from_hf_config(dict(config)).preset

        def plan_for(method: str) -> Any:
            return planner.plan_extension(model, target, method, model_id=MODEL_ID)

    planned = []
    for method in methods:
        try:
            plan = plan_for(method)
        except ValueError as refusal:
            planned.append(PlannedMethod(method, refused=str(refusal)))
            continue
        warnings = tuple(f"{finding.severity} {finding.code}: {finding.reason}" for finding in plan.findings)
        versions = dict(getattr(plan, "paste_versions", {}) or {})
        planned.append(PlannedMethod(method, dict(plan.paste), warnings=warnings, versions=versions))
    return planned


def merge_config(config: Mapping[str, Any], block: str) -> dict[str, Any]:
    """``config`` with the block's top-level keys replaced, as a person edits a config.json (a key the block does
    not name stays; a nested block replaces the old one whole). ValueError when the block is not a JSON object."""
    keys = json.loads(block)
    if not isinstance(keys, dict):
        raise ValueError(f"block must be a JSON object of config.json keys (got {type(keys).__name__})")
    return {**config, **keys}


VLLM_HARNESS_FLAGS = ("--dtype", "float32", "--seed", "0")
"""What the harness adds to the planner's ``vllm serve`` line, and why: float32 (the CPU comparison's precision,
not the checkpoint's; the tiny model is float32 already) and a fixed seed. The port and host are added too."""


def vllm_command(block: str, model_dir: str, port: int) -> list[str]:
    """The planner's ``vllm serve`` line as argv, its model id replaced by ``model_dir``, then the harness's flags
    (:data:`VLLM_HARNESS_FLAGS`, ``--host 127.0.0.1 --port``). ValueError when the block is not one ``vllm serve
    MODEL_ID ...`` line or already sets a flag the harness adds."""
    lines = [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    argv = shlex.split(lines[0]) if len(lines) == 1 else []
    if argv[:3] != ["vllm", "serve", MODEL_ID]:
        raise ValueError(f"block must be one 'vllm serve {MODEL_ID} ...' line (got {lines!r})")
    added = (*VLLM_HARNESS_FLAGS, "--host", "127.0.0.1", "--port", str(port))
    clashing = sorted(flag for flag in added[::2] if flag in argv)
    if clashing:
        raise ValueError(f"block already sets {clashing}: the harness would override the planner's value")
    return ["vllm", "serve", model_dir, *argv[3:], *added]


def llama_cpp_block(block: str) -> tuple[bool, str]:
    """(whether the GGUF must be converted from the config.json with the planner's keys, the command text).
    The planner prefixes the llama3 and longrope blocks with a comment saying so."""
    comments = [line for line in block.splitlines() if line.lstrip().startswith("#")]
    return any("convert_hf_to_gguf" in line for line in comments), block
