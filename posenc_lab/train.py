"""Training the lab's models: the same data and steps for every scheme, deterministic for a seed on one device.

- ``lm``: windows of L + 1 bytes of the generated training text (another seed than the evaluation text), each
  byte predicting the next.
- ``copy``: one example per row, ``<n letters>|<the same letters>\\n`` with n from 1 to :data:`COPY_LETTERS` (and
  (L - 1) // 2, so that it fits the trained length L); the loss is on the copied letters only (the task), padding
  ignored. "Trained on strings up to 20 letters, asked for 40" (Kazemnejad et al. 2023).
- ``passkey``: one retrieval example of L tokens per row (:func:`posenc_lab.data.passkey_example`), the passkey set
  at a random place, so that its distance to the question runs over every distance that fits L; the loss is on the
  asked digits only.

AdamW with a linear warm-up and a cosine decay (as nanoGPT). ``on_step(step, steps, loss)`` is called after each
step, for a progress bar.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from functools import cache

import torch
from torch.nn import functional as F

from posenc_core.device import resolve_device
from posenc_lab.checkpoints import Checkpoint
from posenc_lab.data import PASSKEY_DIGITS, PASSKEY_FIXED, SplitMix64, copy_example, generated_text, passkey_example
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.settings import TASKS, TrainSettings  # noqa: F401  (TASKS: still posenc_lab.train.TASKS)

TRAIN_SEED = 1  # the training text's seed (the evaluation text has its own: posenc_lab.data.EVAL_SEED)
TRAIN_BYTES = 1 << 20
IGNORE = -100  # a target the loss skips (cross_entropy's ignore_index)
DEFAULT_STEPS = {"lm": 2000, "copy": 6000, "passkey": 3000}  # the shipped checkpoints' steps per task
COPY_LETTERS = 20  # the longest training string of the copy task (its example is 2n + 1 = 41 tokens, within L)


@cache
def training_text() -> torch.Tensor:
    """The generated training text as byte tokens (int64), made once per process."""
    return torch.tensor(list(generated_text(TRAIN_BYTES, TRAIN_SEED)), dtype=torch.long)


def lm_batch(text: torch.Tensor, rng: SplitMix64, length: int, batch_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs, targets), each (B, length): windows of the text at seeded offsets, targets shifted by one."""
    starts = [rng.below(text.numel() - length - 1) for _ in range(batch_size)]
    rows = torch.stack([text[start : start + length + 1] for start in starts])
    return rows[:, :-1], rows[:, 1:]


def copy_batch(rng: SplitMix64, length: int, batch_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs, targets), each (B, 2n + 1) for the longest string n that fits ``length``: one copy example per row
    from position 0, targets only on the copy."""
    most = max(min((length - 1) // 2, COPY_LETTERS), 1)
    inputs = torch.zeros(batch_size, 2 * most + 1, dtype=torch.long)
    targets = torch.full((batch_size, 2 * most + 1), IGNORE, dtype=torch.long)
    for row in range(batch_size):
        example, start = copy_example(rng, 1 + rng.below(most))
        tokens = torch.tensor(list(example), dtype=torch.long)
        inputs[row, : tokens.numel() - 1] = tokens[:-1]
        targets[row, start - 1 : tokens.numel() - 1] = tokens[start:]  # the copied letters and the newline
    return inputs, targets


def passkey_batch(rng: SplitMix64, length: int, batch_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs, targets), each (B, ``length``): one passkey example per row, set after 0 to all the filler there is
    room for (uniform), targets only on the asked digits."""
    room = length + 1 - PASSKEY_FIXED
    if room < 0:
        raise ValueError(f"length must be at least {PASSKEY_FIXED - 1} tokens for the passkey task (got {length})")
    inputs = torch.zeros(batch_size, length, dtype=torch.long)
    targets = torch.full((batch_size, length), IGNORE, dtype=torch.long)
    for row in range(batch_size):
        example, start = passkey_example(rng, length, rng.below(room + 1))
        tokens = torch.tensor(list(example), dtype=torch.long)
        inputs[row] = tokens[:-1]
        targets[row, start - 1 : start - 1 + PASSKEY_DIGITS] = tokens[start : start + PASSKEY_DIGITS]
    return inputs, targets


def task_batch(task: str, text: torch.Tensor | None, rng: SplitMix64, length: int, batch_size: int):
    """One training batch of ``task`` (``text``: the lm task's training text)."""
    if task == "lm":
        return lm_batch(text, rng, length, batch_size)
    if task == "copy":
        return copy_batch(rng, length, batch_size)
    return passkey_batch(rng, length, batch_size)


def learning_rate(step: int, settings: TrainSettings) -> float:
    """Linear warm-up over the first 10% of the steps, then a cosine decay to a tenth of the peak."""
    warm = max(settings.steps // 10, 1)
    if step < warm:
        return settings.learning_rate * (step + 1) / warm
    progress = (step - warm) / max(settings.steps - warm, 1)
    return settings.learning_rate * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def train(
    config: LabConfig,
    settings: TrainSettings,
    *,
    device: str | torch.device = "cpu",
    on_step: Callable[[int, int, float], None] | None = None,
    start: LabModel | None = None,
) -> tuple[LabModel, list[float]]:
    """A model of ``config`` trained per ``settings`` on ``device`` (from ``start``'s weights and RoPE scaling if
    given, else from seeded random weights) on sequences of ``settings.length`` tokens (L if None); and its loss at
    every step."""
    torch.manual_seed(settings.seed)
    model = LabModel(config).to(device)
    if start is not None:
        model.load_state_dict(start.state_dict())
        if hasattr(start.scheme, "scaling"):  # RoPE: fine-tuned under the scaling it will be used with
            model.scheme.scaling = start.scheme.scaling
    length = settings.length or config.max_len
    optimiser = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=0.01)
    rng = SplitMix64(settings.seed)
    text = training_text() if settings.task == "lm" else None
    losses = []
    model.train()
    for step in range(settings.steps):
        inputs, targets = task_batch(settings.task, text, rng, length, settings.batch_size)
        inputs, targets = inputs.to(device), targets.to(device)
        logits = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=IGNORE)
        for group in optimiser.param_groups:
            group["lr"] = learning_rate(step, settings)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        losses.append(float(loss.detach()))
        if on_step is not None:
            on_step(step + 1, settings.steps, losses[-1])
    model.eval()
    return model, losses


LARGE_CONFIG = {"d_model": 128, "n_heads": 8, "n_layers": 4, "d_ff": 512}
"""A larger model (about 0.8 M parameters, the same trained length), never the default on any device: pass
``replace(LabConfig(scheme=...), **LARGE_CONFIG)`` as ``config`` and save it under a name of its own, so that a GPU
run of ``make lab`` trains the same models as the shipped ones."""


def default_config(scheme: str, device: str | torch.device = "cpu") -> LabConfig:
    """The default model of ``scheme``: :class:`LabConfig`'s defaults, the same on every device (``device`` is
    accepted for callers that pass it; it changes nothing)."""
    return LabConfig(scheme=scheme)


def train_checkpoint(
    scheme: str,
    settings: TrainSettings,
    *,
    device: str | torch.device = "auto",
    config: LabConfig | None = None,
    on_step: Callable[[int, int, float], None] | None = None,
):
    """Train ``scheme`` per ``settings`` on ``device`` ("auto": the GPU if there is one) and return it as a
    :class:`posenc_lab.checkpoints.Checkpoint`, with its training time. ``config`` defaults to
    :func:`default_config` (the shipped models' size, on every device)."""
    device = resolve_device(device)
    config = config or default_config(scheme, device)
    if config.scheme != scheme:
        raise ValueError(f"config.scheme must be the scheme trained (got {config.scheme!r} for {scheme!r})")
    started = time.perf_counter()
    model, losses = train(config, settings, device=device, on_step=on_step)
    return Checkpoint(model, settings, losses, time.perf_counter() - started, device.type)
