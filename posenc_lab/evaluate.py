"""Evaluating a lab model at lengths other than the one it was trained at.

- ``lm``: next-token loss (nats) and perplexity exp(loss) on the held-out generated text
  (:func:`posenc_lab.data.evaluation_text`, pinned by hash). Two ways to cut the text into windows of the
  evaluation length n, which change the picture (Press et al. 2022, appendix B):

  - ``nonoverlapping``: consecutive windows of n tokens, every token scored. Early tokens in a window see little
    context, so a model that breaks only past its trained length L is averaged with its good early tokens.
  - ``sliding``: windows of n tokens moved by a stride s = n / 2; only each window's last s tokens are scored, so
    every scored token has at least n / 2 tokens before it. At n >= 2L every scored token sits past the trained
    length, so a model that breaks past L shows it fully.

  Both score about :data:`SCORED_TOKENS` tokens per length, the same tokens for every scheme.
- ``copy``: ``<n letters>|<the same letters>\\n`` (Kazemnejad et al. 2023), a sequence of 2n + 1 input tokens
  for an evaluation length of 2n + 1. ``accuracy`` is the share of :data:`COPY_EXAMPLES` examples whose every
  copied letter and the newline is the model's top choice (with the true prefix given: the same as greedy
  decoding's exact match); ``loss`` is the mean loss on those tokens.
- ``passkey``: :data:`PASSKEY_EXAMPLES` retrieval examples that fill the evaluation length, the passkey set within
  the first :data:`PASSKEY_LEAD` bytes, so that its distance to the question grows with the length
  (:func:`posenc_lab.data.passkey_example`). ``accuracy`` is exact match of the asked digits, as for copy.

Every result carries its standard error: over windows for lm (a window's scored tokens are not independent, so
the error is the spread of the per-window means over √windows), sqrt(p(1 - p) / examples) for an accuracy.

A learned table asked past its last row reports it (``past_table``, no loss) instead of raising or clamping.

What one evaluation may ask for is bounded before any model runs (:mod:`posenc_lab.limits`): lengths from
:data:`MIN_LENGTH` to :data:`MAX_LENGTH` tokens, each once (a repeated length is evaluated once), at most
:data:`~posenc_lab.limits.MAX_LENGTHS` of them, and :func:`attention_scores` (sequences x length² x heads x layers,
what time and memory grow with) at most :data:`~posenc_lab.limits.MAX_EVAL_SCORES`; one forward pass holds at most
:data:`~posenc_lab.limits.MAX_BATCH_SCORES` scores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import torch
from torch.nn import functional as F

from posenc_lab.data import (
    EVAL_BYTES,
    EVAL_SEED,
    PASSKEY_DIGITS,
    PASSKEY_FIXED,
    SplitMix64,
    copy_example,
    evaluation_text,
    passkey_distance,
    passkey_example,
)
from posenc_lab.limits import MAX_BATCH_SCORES, MAX_EVAL_SCORES, MAX_LENGTH, MAX_LENGTHS, MIN_LENGTH, shown
from posenc_lab.model import LabConfig, LabModel
from posenc_lab.schemes import PastTheTable
from posenc_lab.train import IGNORE, TASKS

MODES = ("sliding", "nonoverlapping")
SCORED_TOKENS = 8192  # tokens scored per length and mode (lm): the same tokens for every scheme
COPY_EXAMPLES = 64  # examples per length (copy)
PASSKEY_EXAMPLES = 60  # examples per length (passkey): 0.5 to 8 x L of the default model within one evaluation's bound
PASSKEY_LEAD = 8  # the passkey is set after 0 to PASSKEY_LEAD - 1 bytes of filler
EXAMPLES = {"copy": COPY_EXAMPLES, "passkey": PASSKEY_EXAMPLES}


@dataclass(frozen=True)
class LengthResult:
    """One evaluation length's result; ``loss`` is None where the model has no answer (``past_table``)."""

    length: int
    loss: float | None
    accuracy: float | None = None  # copy and passkey: exact-match share of the examples
    past_table: bool = False  # a learned table asked for positions it has no row for
    note: str = ""  # why there is no loss, in one sentence
    loss_se: float | None = None  # the loss's standard error (lm: over windows; else over examples)
    accuracy_se: float | None = None  # sqrt(p (1 - p) / examples)
    distance: float | None = None  # passkey: the mean distance from the set digits to the asked ones

    @property
    def perplexity(self) -> float | None:
        """exp(loss); None without a loss, or where it is past a float's range (a loss over about 709 nats)."""
        if self.loss is None or not math.isfinite(self.loss) or self.loss > math.log(torch.finfo(torch.float64).max):
            return None
        return math.exp(self.loss)

    def to_dict(self, task: str) -> dict:
        row = {"length": self.length, "loss": self.loss, "loss_se": self.loss_se, "perplexity": self.perplexity}
        if task in EXAMPLES:
            row["accuracy"], row["accuracy_se"] = self.accuracy, self.accuracy_se
        if task == "copy":
            row["letters"] = (self.length - 1) // 2
        if task == "passkey":
            row["distance"] = self.distance
        if self.past_table:
            row["past_table"] = True
            row["note"] = self.note
        return row


def check_lengths(lengths) -> tuple[int, ...]:
    """``lengths`` as a tuple of different whole numbers from :data:`MIN_LENGTH` to :data:`MAX_LENGTH`, in the order
    given, each once (a repeat is dropped), at most :data:`~posenc_lab.limits.MAX_LENGTHS` of them; or ValueError."""
    if isinstance(lengths, int | str | bytes) or not lengths:
        raise ValueError(f"lengths must be a non-empty list of whole numbers (got {shown(lengths)})")
    for length in lengths:
        if not isinstance(length, int) or isinstance(length, bool) or not MIN_LENGTH <= length <= MAX_LENGTH:
            raise ValueError(
                f"lengths must be whole numbers from {MIN_LENGTH} to {MAX_LENGTH} tokens (got {shown(length)})"
            )
    different = tuple(dict.fromkeys(lengths))
    if len(different) > MAX_LENGTHS:
        raise ValueError(f"lengths must hold at most {MAX_LENGTHS} different lengths (got {len(different)})")
    return different


def sequences_at(task: str, length: int, mode: str = "sliding", scored_tokens: int = SCORED_TOKENS) -> int:
    """How many sequences of ``length`` tokens an evaluation runs: :data:`EXAMPLES` for copy and passkey, the lm
    text's windows (:func:`lm_windows`) for lm."""
    if task in EXAMPLES:
        return EXAMPLES[task]
    stride = length if check_mode(mode) == "nonoverlapping" else max(length // 2, 1)
    count = max(scored_tokens // stride, 1)
    return max(min(count, (EVAL_BYTES - length - 1) // stride + 1), 1)


def attention_scores(
    config: LabConfig, task: str, lengths, mode: str = "sliding", scored_tokens: int = SCORED_TOKENS
) -> int:
    """The attention scores an evaluation computes: Σ over lengths n of sequences(n) · n² · heads · layers (each
    layer's heads score every pair of a sequence's tokens; time and memory grow with it)."""
    per_pair = config.n_heads * config.n_layers
    return sum(sequences_at(task, n, mode, scored_tokens) * n * n * per_pair for n in lengths)


def longest_fitting(
    config: LabConfig, task: str, mode: str = "sliding", scored_tokens: int = SCORED_TOKENS
) -> int | None:
    """The longest single length (copy: an odd one, 2n + 1 for n letters) whose evaluation of ``task`` fits
    :data:`~posenc_lab.limits.MAX_EVAL_SCORES` for ``config``; None if not even :data:`MIN_LENGTH` fits."""
    step = 2 if task == "copy" else 1
    top = MAX_LENGTH if MAX_LENGTH % 2 or step == 1 else MAX_LENGTH - 1
    longest = range(top, MIN_LENGTH - 1, -step)
    return next(
        (n for n in longest if attention_scores(config, task, [n], mode, scored_tokens) <= MAX_EVAL_SCORES), None
    )


def check_work(
    config: LabConfig, task: str, lengths, mode: str = "sliding", scored_tokens: int = SCORED_TOKENS
) -> tuple[int, ...]:
    """``lengths`` checked (:func:`check_lengths`) and within :data:`~posenc_lab.limits.MAX_EVAL_SCORES`
    attention scores for ``config``; a ValueError saying the bound and the longest length that fits, if not."""
    lengths = check_lengths(lengths)
    scores = attention_scores(config, task, lengths, mode, scored_tokens)
    if scores <= MAX_EVAL_SCORES:
        return lengths
    fits = longest_fitting(config, task, mode, scored_tokens)
    model = f"{config.n_heads} heads x {config.n_layers} layers"
    if task == "copy":
        asked = f"{COPY_EXAMPLES} copy examples at each length, {model}"
        longest = "" if fits is None else f"; one copy length up to {fits} tokens ({(fits - 1) // 2} letters) fits"
    elif task == "passkey":
        asked = f"{PASSKEY_EXAMPLES} passkey examples at each length, {model}"
        longest = "" if fits is None else f"; one passkey length up to {fits} tokens fits"
    else:
        asked = f"{mode} lm windows at each length, {model}"
        longest = "" if fits is None else f"; one lm length up to {fits} tokens fits"
    raise ValueError(
        f"lengths ask for {scores:,} attention scores (sequences x length² x heads x layers: {asked}), more than "
        f"the {MAX_EVAL_SCORES:,} one evaluation may compute{longest}"
    )


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)} (got {mode!r})")
    return mode


@cache
def evaluation_tokens() -> torch.Tensor:
    """The held-out text as byte tokens (int64), checked against its pinned hash once per process."""
    return torch.tensor(list(evaluation_text()), dtype=torch.long)


def lm_windows(length: int, mode: str, scored_tokens: int = SCORED_TOKENS) -> tuple[torch.Tensor, int]:
    """(windows (N, length + 1) of the evaluation text, the first scored target position in each window), about
    ``scored_tokens`` targets scored in all."""
    text, mode = evaluation_tokens(), check_mode(mode)
    stride = length if mode == "nonoverlapping" else max(length // 2, 1)
    count = sequences_at("lm", length, mode, scored_tokens)
    starts = torch.arange(count) * stride
    windows = text[starts[:, None] + torch.arange(length + 1)]
    return windows, length - stride


def batch_rows(config: LabConfig, length: int, batch_tokens: int) -> int:
    """Sequences of ``length`` per forward pass: about ``batch_tokens`` tokens, and at most
    :data:`~posenc_lab.limits.MAX_BATCH_SCORES` attention scores (rows · heads · length²) held at once; at least 1."""
    by_scores = MAX_BATCH_SCORES // (config.n_heads * length * length)
    return max(min(batch_tokens // length, by_scores), 1)


def token_losses(model: LabModel, windows: torch.Tensor, batch_tokens: int = 16384) -> torch.Tensor:
    """Each target's loss (N, length) for windows (N, length + 1), in batches of about ``batch_tokens`` tokens
    (:func:`batch_rows`)."""
    device = next(model.parameters()).device
    rows = batch_rows(model.config, windows.shape[1] - 1, batch_tokens)
    parts = []
    with torch.no_grad():
        for start in range(0, windows.shape[0], rows):
            batch = windows[start : start + rows].to(device)
            logits = model(batch[:, :-1])
            loss = F.cross_entropy(logits.transpose(1, 2), batch[:, 1:], reduction="none")
            parts.append(loss.float().cpu())
    return torch.cat(parts)


def lm_result(model: LabModel, length: int, mode: str, scored_tokens: int = SCORED_TOKENS) -> LengthResult:
    """The mean next-token loss at evaluation ``length`` cut per ``mode``, with its standard error over windows
    (the spread of the windows' mean losses over √windows; 0 for one window)."""
    windows, first = lm_windows(length, mode, scored_tokens)
    try:
        losses = token_losses(model, windows)
    except PastTheTable as error:
        return LengthResult(length, None, past_table=True, note=str(error))
    per_window = losses[:, first:].double().mean(dim=1)
    spread = float(per_window.std()) / math.sqrt(per_window.numel()) if per_window.numel() > 1 else 0.0
    return LengthResult(length, float(losses[:, first:].double().mean()), loss_se=spread)


def position_losses(model: LabModel, length: int) -> torch.Tensor | None:
    """Mean loss at each position 0..length-1 over non-overlapping windows (None past a learned table)."""
    windows, _ = lm_windows(check_lengths([length])[0], "nonoverlapping")
    try:
        return token_losses(model, windows).mean(dim=0)
    except PastTheTable:
        return None


@cache
def copy_examples(length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs (COPY_EXAMPLES, length), targets with IGNORE except on the copy) for strings of (length-1)//2."""
    letters = (length - 1) // 2
    rng = SplitMix64(EVAL_SEED + letters)
    inputs = torch.zeros(COPY_EXAMPLES, length, dtype=torch.long)
    targets = torch.full((COPY_EXAMPLES, length), IGNORE, dtype=torch.long)
    for row in range(COPY_EXAMPLES):
        example, start = copy_example(rng, letters)
        tokens = torch.tensor(list(example), dtype=torch.long)
        inputs[row, : tokens.numel() - 1] = tokens[:-1]
        targets[row, start - 1 : tokens.numel() - 1] = tokens[start:]
    return inputs, targets


@cache
def passkey_examples(length: int) -> tuple[torch.Tensor, torch.Tensor, float]:
    """(inputs (PASSKEY_EXAMPLES, length), targets with IGNORE except on the asked digits, the mean distance) for
    passkeys set after 0 to :data:`PASSKEY_LEAD` - 1 bytes of filler (fewer where ``length`` has no room)."""
    if length + 1 < PASSKEY_FIXED:
        raise ValueError(f"lengths must be at least {PASSKEY_FIXED - 1} tokens for the passkey task (got {length})")
    rng = SplitMix64(EVAL_SEED + 1_000_000 + length)
    lead = min(PASSKEY_LEAD, length + 2 - PASSKEY_FIXED)
    inputs = torch.zeros(PASSKEY_EXAMPLES, length, dtype=torch.long)
    targets = torch.full((PASSKEY_EXAMPLES, length), IGNORE, dtype=torch.long)
    distances = []
    for row in range(PASSKEY_EXAMPLES):
        before = rng.below(lead)
        example, start = passkey_example(rng, length, before)
        tokens = torch.tensor(list(example), dtype=torch.long)
        inputs[row] = tokens[:-1]
        targets[row, start - 1 : start - 1 + PASSKEY_DIGITS] = tokens[start : start + PASSKEY_DIGITS]
        distances.append(passkey_distance(length, before))
    return inputs, targets, sum(distances) / len(distances)


def exact_result(model: LabModel, task: str, length: int, batch_tokens: int = 16384) -> LengthResult:
    """Exact-match accuracy (every answer token the model's first choice, with the true prefix given: greedy
    decoding's exact match) and mean loss on the answer tokens of ``task``'s examples that fill ``length`` tokens,
    each with its standard error over the examples."""
    if task == "copy":
        (inputs, targets), distance = copy_examples(length), None
    else:
        inputs, targets, distance = passkey_examples(length)
    device = next(model.parameters()).device
    rows = batch_rows(model.config, length, batch_tokens)
    losses, right = [], []
    try:
        with torch.no_grad():
            for start in range(0, inputs.shape[0], rows):
                logits = model(inputs[start : start + rows].to(device)).float().cpu()
                target = targets[start : start + rows]
                loss = F.cross_entropy(logits.transpose(1, 2), target, ignore_index=IGNORE, reduction="none")
                losses.append(loss.double().sum(dim=1) / (target != IGNORE).sum(dim=1))
                right.append(((logits.argmax(dim=-1) == target) | (target == IGNORE)).all(dim=1))
    except PastTheTable as error:
        return LengthResult(length, None, past_table=True, note=str(error))
    per_example, correct = torch.cat(losses), torch.cat(right).double()
    answered = (targets != IGNORE).sum(dim=1).double()
    loss = float((per_example * answered).sum() / answered.sum())  # per answer token, as the training loss
    share, count = float(correct.mean()), correct.numel()
    return LengthResult(
        length,
        loss,
        accuracy=share,
        loss_se=float(per_example.std()) / math.sqrt(count),
        accuracy_se=math.sqrt(share * (1 - share) / count),
        distance=distance,
    )


def evaluate(
    model: LabModel, task: str, lengths, mode: str = "sliding", scored_tokens: int = SCORED_TOKENS
) -> list[LengthResult]:
    """``model`` on ``task`` at each of ``lengths`` (``mode`` cuts the lm text, about ``scored_tokens`` targets
    scored per length; copy has one way); ValueError before any work when the lengths ask for more than
    :func:`check_work` allows."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)} (got {task!r})")
    mode = check_mode(mode)
    if not isinstance(scored_tokens, int) or isinstance(scored_tokens, bool) or scored_tokens < 1:
        raise ValueError(f"scored_tokens must be a whole number of at least 1 (got {shown(scored_tokens)})")
    lengths = check_work(model.config, task, lengths, mode, scored_tokens)
    model.eval()
    if task in EXAMPLES:
        return [exact_result(model, task, length) for length in lengths]
    return [lm_result(model, length, mode, scored_tokens) for length in lengths]
