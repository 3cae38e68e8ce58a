"""A small single-head self-attention, to show why attention needs position.

softmax(Q Kᵀ / √d) V is permutation-equivariant: permuting the input tokens permutes the outputs the same
way, so without a positional signal "the cat sat on the mat" and "the mat sat on the cat" give the same
multiset of outputs. Adding a position-dependent vector to each embedding breaks the symmetry.
Ref: Vaswani et al. 2017, arXiv 1706.03762, section 3.5.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from posenc_core._checks import check_int
from posenc_core.device import resolve_device


@dataclass(frozen=True)
class AttentionResult:
    outputs: torch.Tensor  # (L, d)
    weights: torch.Tensor  # (L, L), rows sum to 1


def token_embeddings(tokens: Sequence[str], d_model: int, *, seed: int = 0, device=None) -> torch.Tensor:
    """A fixed random vector per distinct token (case-insensitive), N(0, 1/d). Shape (L, d)."""
    d_model = check_int("d_model", d_model, minimum=1)
    if len(tokens) == 0:
        raise ValueError("tokens must hold at least one token (got an empty sequence)")
    vocabulary = sorted({token.lower() for token in tokens})
    generator = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    table = torch.randn(len(vocabulary), d_model, generator=generator) / math.sqrt(d_model)
    rows = [vocabulary.index(token.lower()) for token in tokens]
    return table[rows].to(resolve_device(device))


def self_attention(x: torch.Tensor, *, seed: int = 1) -> AttentionResult:
    """One head: W_q, W_k, W_v fixed random (seeded); weights = softmax(Q Kᵀ/√d), outputs = weights V.

    x: (L, d). No mask, so every token sees every other token (an encoder).
    """
    if x.dim() != 2:
        raise ValueError(f"x must have shape (L, d) (got {tuple(x.shape)})")
    d_model = x.shape[1]
    generator = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    w_q, w_k, w_v = (torch.randn(d_model, d_model, generator=generator) / math.sqrt(d_model) for _ in range(3))
    w_q, w_k, w_v = (w.to(device=x.device, dtype=x.dtype) for w in (w_q, w_k, w_v))
    scores = (x @ w_q) @ (x @ w_k).T / math.sqrt(d_model)
    weights = torch.softmax(scores, dim=-1)
    return AttentionResult(outputs=weights @ (x @ w_v), weights=weights)


def token_output_gap(tokens_a: Sequence[str], result_a: AttentionResult, tokens_b: Sequence[str], result_b) -> float:
    """Largest difference between the outputs of equal tokens in two sentences (0 = same up to order).

    Both sentences must hold the same multiset of tokens. Repeated tokens are matched in order of occurrence.
    """
    if sorted(t.lower() for t in tokens_a) != sorted(t.lower() for t in tokens_b):
        raise ValueError("tokens_b must be a reordering of tokens_a")
    remaining = {}
    for index, token in enumerate(tokens_b):
        remaining.setdefault(token.lower(), []).append(index)
    gap = 0.0
    for index, token in enumerate(tokens_a):
        match = remaining[token.lower()].pop(0)
        gap = max(gap, float((result_a.outputs[index] - result_b.outputs[match]).abs().max()))
    return gap
