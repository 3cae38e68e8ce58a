"""What one training run asks for: :class:`TrainSettings` (the task, steps, batch size, learning rate and seed,
each within the bounds of :mod:`posenc_lab.limits`) and the :data:`TASKS` a model can learn.

Its own module so that a checkpoint (``posenc_lab.checkpoints``, which records the settings it was trained with)
and the training (``posenc_lab.train``, which returns a checkpoint) do not import each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from posenc_lab.limits import MAX_BATCH_SIZE, MAX_LENGTH, MAX_SEED, MAX_STEPS, shown, whole

TASKS = ("lm", "copy", "passkey")
"""What a model learns: ``lm`` (the generated text, each byte predicting the next), ``copy`` or ``passkey``
(:mod:`posenc_lab.data`)."""


@dataclass(frozen=True)
class TrainSettings:
    task: str = "lm"  # what the model learns: "lm" (the generated text), "copy" or "passkey"
    steps: int = 400  # optimiser steps
    batch_size: int = 32  # sequences per step
    learning_rate: float = 3e-3  # AdamW's peak rate
    seed: int = 0  # the model's initial weights and the order of the batches
    length: int | None = None  # tokens per training sequence; None: the model's trained length L (its max_len)

    def __post_init__(self):
        """Each setting within the bounds of :mod:`posenc_lab.limits` (ValueError naming the first that is not)."""
        if not isinstance(self.task, str) or self.task not in TASKS:
            raise ValueError(f"task must be one of {', '.join(TASKS)} (got {shown(self.task)})")
        whole("steps", self.steps, 1, MAX_STEPS)
        whole("batch_size", self.batch_size, 1, MAX_BATCH_SIZE)
        whole("seed", self.seed, 0, MAX_SEED)
        if self.length is not None:
            whole("length", self.length, 2, MAX_LENGTH)
        if isinstance(self.learning_rate, bool) or not isinstance(self.learning_rate, int | float):
            raise ValueError(f"learning_rate must be between 0 and 1 (got {shown(self.learning_rate)})")
        if not 0 < self.learning_rate < 1:  # also False for NaN
            raise ValueError(f"learning_rate must be between 0 and 1 (got {shown(self.learning_rate)})")
