"""Every bound the lab holds a model, a run, an evaluation and a checkpoint file to, in one place (the command's
``--help`` and the tests quote these), and the two checks that hold a value to them.

- A model (:class:`posenc_lab.model.LabConfig`): each size within :data:`SIZE_BOUNDS` and all of them within
  :data:`MAX_PARAMETERS`, checked before any weight is allocated. The larger model
  (``posenc_lab.train.LARGE_CONFIG``: d_model 128, 8 heads, 4 layers, d_ff 512: about 0.8 M parameters) fits with
  room.
- A run (:class:`posenc_lab.settings.TrainSettings`): at most :data:`MAX_STEPS` steps of :data:`MAX_BATCH_SIZE`
  sequences; a seed from 0 to :data:`MAX_SEED`.
- An evaluation (:func:`posenc_lab.evaluate.evaluate`): lengths from :data:`MIN_LENGTH` to :data:`MAX_LENGTH`
  tokens, at most :data:`MAX_LENGTHS` different ones, and at most :data:`MAX_EVAL_SCORES` attention scores in all:
  sequences x length² x heads x layers, the work and the memory that grow with length (for the default model,
  4 heads x 2 layers, with 8,192 lm tokens scored per length: one lm length of 4,096 tokens, the copy task up to
  1,023 tokens (511 letters), the passkey task at the eight lengths 0.5 to 8 x L; what fits is computed by
  :func:`posenc_lab.evaluate.longest_fitting`).
- A checkpoint file (:func:`posenc_lab.checkpoints.load`): at most :data:`MAX_CHECKPOINT_BYTES` on disk, a zip
  whose compressed entries would inflate to no more (the Learned page's guard,
  :func:`posenc_core.models.table_files.check_torch_zip`), and a pickle of at most :data:`MAX_PICKLE_BYTES`.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

SIZE_BOUNDS = {
    "vocab_size": (256, 1024),  # byte tokens: at least the 256 bytes the data hold; extra rows go unused
    "d_model": (2, 256),
    "n_heads": (1, 16),
    "n_layers": (1, 8),
    "d_ff": (1, 1024),
    "max_len": (2, 4096),  # the trained length: at most the longest evaluation length
    "t5_buckets": (1, 256),
    "t5_max_distance": (1, 4096),
}
"""(least, most) of each size of a lab model."""
MAX_PARAMETERS = 8_000_000  # 32 MB in float32, 16 MB as a checkpoint (float16)
ROPE_BASE_RANGE = (2.0, 1e9)  # rope_theta: Llama 3's 500,000 and Qwen's 1,000,000 fit

MAX_STEPS = 100_000  # optimiser steps of one run (the shipped copy checkpoints took 6,000)
MAX_BATCH_SIZE = 1024  # sequences per step (the shipped checkpoints used 32)
MAX_SEED = 2**32 - 1

MIN_LENGTH, MAX_LENGTH = 3, 4096  # evaluation lengths: 3 tokens (one copied letter) to 64 x the default L
MAX_LENGTHS = 16  # different lengths in one evaluation (the lab's own use 8)
MAX_EVAL_SCORES = 2**29  # attention scores one evaluation computes: sequences x length² x heads x layers
MAX_BATCH_SCORES = 2**26  # attention scores in one forward pass (256 MB in float32): rows per batch are cut to fit

MAX_CHECKPOINT_BYTES = 2 * MAX_PARAMETERS + (4 << 20)  # float16 weights of the largest model, and room for the rest
MAX_PICKLE_BYTES = 4 << 20  # a checkpoint's pickle: its config, settings, tensor records and up to MAX_STEPS losses


def whole(name: str, value: Any, least: int, most: int) -> int:
    """``value`` if it is a whole number (not a bool) from ``least`` to ``most``, else ValueError naming ``name``."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or not least <= value <= most:
        raise ValueError(f"{name} must be a whole number from {least:,} to {most:,} (got {shown(value)})")
    return int(value)


def finite(name: str, value: Any, least: float, most: float) -> float:
    """``value`` as a float if it is a finite number from ``least`` to ``most``, else ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number from {least:g} to {most:g} (got {shown(value)})")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not (math.isfinite(number) and least <= number <= most):
        raise ValueError(f"{name} must be a finite number from {least:g} to {most:g} (got {shown(value)})")
    return number


def shown(value: Any, limit: int = 60) -> str:
    """``value`` as a message shows it: its repr cut to about ``limit`` characters, a huge whole number by its size
    (a hostile file's 10**100000 is not printed, and Python refuses to print it past 4,300 digits)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and abs(int(value)).bit_length() > 64:
        return f"a whole number of {abs(int(value)).bit_length():,} bits"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    text = repr(value) if isinstance(value, str | int | float | bool | type(None)) else type(value).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"
