"""A small LongRoPE search: per-pair rescale factors for the lab's RoPE model, found on held-out loss.

Ding et al. (2024, "LongRoPE: Extending LLM Context Window Beyond 2 Million Tokens", §3.2) do not fix one rule
for the frequencies: they search one rescale factor λ_i per rotary pair (θ_i becomes θ_i / λ_i) by an
evolutionary search whose fitness is the model's perplexity on samples at the target length. Their search space
keeps λ_i in [1, 1.25·s] and non-decreasing from the fastest pair to the slowest (a slower pair is stretched at
least as much), and their first population holds the rules it should beat: position interpolation, NTK-aware
and YaRN, with mutations of them.

This is that search at the lab's size (8 pairs), deterministic for a seed:

- the first population: PI (every λ_i = s), NTK-aware (λ_i = s^(2i / (d - 2)), the base raised), YaRN's per-pair
  divisors (read off the core's YaRN frequencies), and mutations of them up to :data:`POPULATION`;
- each generation keeps the :data:`PARENTS` lowest losses, and fills the rest with children: a pair-by-pair
  crossover of two parents, then each λ_i multiplied by exp(N(0, σ)) with probability :data:`MUTATE`, clipped to
  [1, 1.25·s] and sorted (non-decreasing);
- fitness: the mean loss at s·L on :data:`SEARCH_TOKENS` tokens of a text of its own seed (:data:`SEARCH_SEED`),
  which neither the training nor the evaluation text shares, under rope_type ``longrope`` with the candidate as
  ``long_factor`` (and its attention factor √(1 + ln s / ln L), as transformers applies it).

Left out: LongRoPE's n̂ (the first tokens kept unscaled), which neither the ``longrope`` config.json block nor
transformers' rotary module reads, and its progressive extension to 2M tokens.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import torch

from posenc_core.rope.scaling import default_inv_freq, inv_freq
from posenc_lab.checkpoints import Checkpoint
from posenc_lab.data import SplitMix64, generated_text
from posenc_lab.evaluate import token_losses
from posenc_lab.scaling import rope_scaling

SEARCH_SEED = 20240221  # the search text's seed: neither the training text's (1) nor the evaluation text's
SEARCH_TOKENS = 4096  # tokens scored per candidate (sliding windows at s·L, the last half of each scored)
POPULATION = 16
PARENTS = 4
GENERATIONS = 10
MUTATE = 0.4  # each pair's chance of a mutation in a child
SIGMA = 0.25  # a mutation multiplies λ_i by exp(N(0, SIGMA))


@dataclass(frozen=True)
class SearchResult:
    """The factors found and how the search went."""

    factors: list[float]  # λ_i, pair 0 (fastest) first: the ``long_factor`` of a longrope block
    loss: float  # its loss on the search text at s·L
    history: list[float]  # the best loss after each generation (the first: the first population's best)
    starts: dict[str, float]  # the loss of each rule in the first population (pi, ntk, yarn) on the search text
    evaluated: int  # candidates scored


@cache
def search_windows(length: int, tokens: int = SEARCH_TOKENS) -> tuple[torch.Tensor, int]:
    """(windows (N, length + 1) of the search text moved by length / 2, the first scored position)."""
    stride = max(length // 2, 1)
    count = max(tokens // stride, 1)
    text = torch.tensor(list(generated_text(count * stride + length + 1, SEARCH_SEED)), dtype=torch.long)
    starts = torch.arange(count) * stride
    return text[starts[:, None] + torch.arange(length + 1)], length - stride


def rule_factors(checkpoint: Checkpoint, factor: float) -> dict[str, list[float]]:
    """The per-pair divisors λ_i = θ_i / θ'_i that PI, NTK-aware and YaRN give the model at ``factor``."""
    config = checkpoint.config
    plain = default_inv_freq(config.head_dim, config.rope_base).double()
    rules = {}
    for name, rope_type in (("pi", "linear"), ("ntk", "ntk"), ("yarn", "yarn")):
        scaled, _ = inv_freq(
            config.head_dim,
            config.rope_base,
            rope_scaling(config, rope_type, factor),
            seq_len=round(factor * config.max_len),
            max_position_embeddings=config.max_len,
        )
        rules[name] = [float(value) for value in plain / scaled.double()]
    return rules


def candidate_loss(checkpoint: Checkpoint, factors: list[float], factor: float) -> float:
    """The model's mean loss on the search text at round(factor·L) tokens with ``factors`` as LongRoPE's
    ``long_factor``."""
    config, scheme = checkpoint.config, checkpoint.model.scheme
    pairs = len(factors)
    length = round(factor * config.max_len)
    windows, first = search_windows(length, SEARCH_TOKENS)  # the constant read at each call, not fixed at import
    before = scheme.scaling
    scheme.scaling = rope_scaling(config, "longrope", factor, short_factor=[1.0] * pairs, long_factor=list(factors))
    try:
        return float(token_losses(checkpoint.model, windows)[:, first:].double().mean())
    finally:
        scheme.scaling = before


def _normal(rng: SplitMix64) -> float:
    """A standard normal draw (Box-Muller on two uniform draws)."""
    u1 = (rng.next() + 1) / 2.0**64
    u2 = rng.next() / 2.0**64
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def _legal(factors: list[float], factor: float) -> list[float]:
    """Clipped to [1, 1.25·factor] and sorted non-decreasing (the search space of Ding et al.)."""
    return sorted(min(max(value, 1.0), 1.25 * factor) for value in factors)


def _child(rng: SplitMix64, mother: list[float], father: list[float], factor: float) -> list[float]:
    mixed = [mother[i] if rng.below(2) else father[i] for i in range(len(mother))]
    mutated = [value * math.exp(SIGMA * _normal(rng)) if rng.below(1000) < 1000 * MUTATE else value for value in mixed]
    return _legal(mutated, factor)


def search(
    checkpoint: Checkpoint,
    factor: float = 4.0,
    *,
    seed: int = 0,
    generations: int = GENERATIONS,
    on_generation: Callable[[int, int, float], None] | None = None,
) -> SearchResult:
    """LongRoPE's evolutionary search of per-pair factors for ``checkpoint`` (a RoPE model) at ``factor``,
    ``generations`` rounds of :data:`POPULATION` candidates, deterministic for ``seed``;
    ``on_generation(done, generations, best loss)`` after each round."""
    if checkpoint.config.scheme != "rope":
        raise ValueError(f"checkpoint must be a RoPE model to search LongRoPE factors (got {checkpoint.config.scheme})")
    if isinstance(factor, bool) or not isinstance(factor, int | float) or not 1 < factor <= 64:
        raise ValueError(f"factor must be a number above 1 and at most 64 (got {factor!r})")
    if isinstance(generations, bool) or not isinstance(generations, int) or not 0 <= generations <= 100:
        raise ValueError(f"generations must be a whole number from 0 to 100 (got {generations!r})")
    rng = SplitMix64(seed)
    rules = {name: _legal(values, factor) for name, values in rule_factors(checkpoint, factor).items()}
    scored: dict[tuple[float, ...], float] = {}

    def score(candidate: list[float]) -> float:
        key = tuple(round(value, 6) for value in candidate)
        if key not in scored:
            scored[key] = candidate_loss(checkpoint, list(key), factor)
        return scored[key]

    starts = {name: score(values) for name, values in rules.items()}
    population = list(rules.values())
    while len(population) < POPULATION:
        parent = population[rng.below(len(rules))]
        population.append(_child(rng, parent, parent, factor))
    ranked = sorted(population, key=score)
    history = [score(ranked[0])]
    for done in range(1, generations + 1):
        parents = ranked[:PARENTS]
        children = [
            _child(rng, parents[rng.below(PARENTS)], parents[rng.below(PARENTS)], factor)
            for _ in range(POPULATION - PARENTS)
        ]
        ranked = sorted(parents + children, key=score)
        history.append(score(ranked[0]))
        if on_generation is not None:
            on_generation(done, generations, history[-1])
    best = [round(value, 6) for value in ranked[0]]
    return SearchResult(best, score(best), history, starts, len(scored))
