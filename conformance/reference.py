"""The reference: HF transformers on the tiny model's config.json merged with a planner block.

log p(x_{i+1} | x_0..x_i) for every position i of the prompt, from one float32 forward pass on the CPU with
eager attention (no fused kernel, so the numbers are transformers' own formulas).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def model_folder(tiny: Path, folder: Path, config: Mapping[str, Any]) -> Path:
    """A copy of the tiny model whose config.json is ``config`` (the weights and tokenizer are linked, not copied)."""
    folder.mkdir(parents=True, exist_ok=True)
    for item in tiny.iterdir():
        if item.name != "config.json":
            target = folder / item.name
            if not target.exists():
                target.symlink_to(item.resolve())
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    return folder


def remove_folder(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def prompt_logprobs(folder: Path, tokens: list[int]) -> list[float]:
    """transformers' log-probability of each next prompt token: element i is log p(tokens[i+1] | tokens[:i+1])."""
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager")
    model.eval()
    ids = torch.tensor([tokens])
    with torch.no_grad():
        logits = model(ids).logits[0].to(torch.float64)
    logprobs = torch.log_softmax(logits[:-1], dim=-1)
    return logprobs.gather(1, ids[0, 1:, None]).squeeze(1).tolist()


def transformers_version() -> str:
    import transformers

    return transformers.__version__
