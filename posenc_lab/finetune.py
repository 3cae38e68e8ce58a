"""The published recipe for a longer context: change RoPE's frequencies, then fine-tune briefly at the new length.

Chen et al. (2023, "Extending Context Window of Large Language Models via Positional Interpolation") divide every
position by the factor s (``linear``) and fine-tune about 1,000 steps at the new length; without the fine-tune
their models degrade, with it they recover. Peng et al. (2023, YaRN) fine-tune about 400 steps; NTK-aware scaling
(bloc97 2023) raises the base instead. Here the shipped RoPE language model (trained at L) is fine-tuned at s·L
under each method, and once with no scaling at all (``default``: the same fine-tune, so a reader can tell what the
method adds to what more training at the longer length gives).

The fine-tune continues the model's own training: the same optimiser and schedule (:func:`posenc_lab.train.train`:
warm-up, cosine decay), :data:`FINETUNE_STEPS` steps of :data:`FINETUNE_BATCH` sequences of s·L tokens (as many
tokens a step as the original training), at a third of its peak rate, on the same training text.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import torch

from posenc_core.device import resolve_device
from posenc_lab.checkpoints import Checkpoint
from posenc_lab.scaling import rope_scaling
from posenc_lab.settings import TrainSettings
from posenc_lab.train import train

FINETUNE_METHODS = ("default", "linear", "ntk", "yarn")
"""The methods fine-tuned: none (more training at the longer length only), position interpolation, NTK-aware and
YaRN."""
FINETUNE_FACTOR = 4
FINETUNE_STEPS = 1000  # Chen et al. fine-tune about 1,000 steps
FINETUNE_BATCH = 8  # sequences of s·L = 256 tokens: 2,048 tokens a step, as the original 32 x 64
FINETUNE_RATE = 1e-3  # a third of the original peak rate (3e-3)


def finetune_settings(
    checkpoint: Checkpoint,
    factor: float = FINETUNE_FACTOR,
    *,
    steps: int = FINETUNE_STEPS,
    batch_size: int = FINETUNE_BATCH,
    learning_rate: float = FINETUNE_RATE,
) -> TrainSettings:
    """What :func:`finetune` trains ``checkpoint`` with: the lm task at round(factor·L) tokens, its own seed."""
    return TrainSettings(
        task="lm",
        steps=steps,
        batch_size=batch_size,
        learning_rate=learning_rate,
        seed=checkpoint.settings.seed,
        length=round(factor * checkpoint.config.max_len),
    )


def rope_type_of(checkpoint: Checkpoint) -> str:
    """The rope_type a checkpoint was trained or fine-tuned under (``default`` for none, or for another scheme)."""
    return (getattr(checkpoint.model.scheme, "scaling", None) or {}).get("rope_type", "default")


def finetune(
    checkpoint: Checkpoint,
    rope_type: str,
    factor: float = FINETUNE_FACTOR,
    *,
    steps: int = FINETUNE_STEPS,
    batch_size: int = FINETUNE_BATCH,
    learning_rate: float = FINETUNE_RATE,
    device: str | torch.device = "auto",
    on_step: Callable[[int, int, float], None] | None = None,
) -> Checkpoint:
    """``checkpoint`` (a RoPE language model trained at L) with ``rope_type`` scaling by ``factor``
    (:func:`posenc_lab.scaling.rope_scaling`; ``default``: none), trained ``steps`` more steps on the lm text at
    round(factor·L) tokens, with the seed it was trained with; the result keeps the scaling (saved with it)."""
    config = checkpoint.config
    if config.scheme != "rope":
        raise ValueError(f"checkpoint must be a RoPE model to fine-tune under RoPE scaling (got {config.scheme})")
    if checkpoint.settings.task != "lm":
        raise ValueError(f"checkpoint must be a language model (task lm) to fine-tune (got {checkpoint.settings.task})")
    scaling = rope_scaling(config, rope_type, None if rope_type == "default" else factor)
    settings = finetune_settings(checkpoint, factor, steps=steps, batch_size=batch_size, learning_rate=learning_rate)
    device = resolve_device(device)
    start = checkpoint.model
    before = start.scheme.scaling
    start.scheme.scaling = scaling
    try:
        started = time.perf_counter()
        model, losses = train(config, settings, device=device, on_step=on_step, start=start)
    finally:
        start.scheme.scaling = before
    return Checkpoint(model, settings, losses, time.perf_counter() - started, device.type)
