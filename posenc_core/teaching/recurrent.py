"""A tiny recurrent network, the contrast that opens the lesson: an RNN reads one token after another, so the
position of a token is the step at which it is read and word order is in the state by construction.

    h_t = tanh(W h_{t-1} + U x_t),   h_{-1} = 0,   t = 0 .. L-1

W (H, H) and U (H, d) are fixed random matrices (seeded). The state after token t depends on every token before
it, in order: "the cat sat on the mat" and "the mat sat on the cat" end in different final states h_{L-1},
whereas self-attention without a position signal gives the same outputs, only permuted
(:mod:`posenc_core.teaching.attention`).
Ref: Elman 1990, "Finding structure in time", Cognitive Science 14(2); Vaswani et al. 2017, arXiv 1706.03762,
section 3.5 (why attention needs position).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from posenc_core._checks import check_float, check_float_dtype, check_int
from posenc_core.device import resolve_device


@dataclass(frozen=True)
class RnnWeights:
    recurrent: torch.Tensor  # W, (H, H), N(0, gain²/H): spectral radius about gain
    input: torch.Tensor  # U, (H, d), N(0, 1): U x has entries of about unit size for ‖x‖ ≈ 1


def rnn_weights(
    input_dim: int,
    hidden_dim: int,
    *,
    gain: float = 1.0,
    seed: int = 2,
    device=None,
    dtype: torch.dtype = torch.float32,
) -> RnnWeights:
    """Fixed random W ~ N(0, gain²/H) of shape (H, H) and U ~ N(0, 1) of shape (H, d), from ``seed``.

    gain ≈ 1 keeps the state neither dying out nor saturating over a sentence (Elman networks are usually
    initialised this way).
    """
    input_dim = check_int("input_dim", input_dim, minimum=1)
    hidden_dim = check_int("hidden_dim", hidden_dim, minimum=1)
    gain = check_float("gain", gain, greater_than=0.0)
    generator = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    recurrent = torch.randn(hidden_dim, hidden_dim, generator=generator, dtype=torch.float64) * gain
    recurrent = recurrent / math.sqrt(hidden_dim)
    input_matrix = torch.randn(hidden_dim, input_dim, generator=generator, dtype=torch.float64)
    dtype, device = check_float_dtype(dtype), resolve_device(device)
    return RnnWeights(recurrent.to(device=device, dtype=dtype), input_matrix.to(device=device, dtype=dtype))


def rnn_states(x: torch.Tensor, weights: RnnWeights) -> torch.Tensor:
    """Every state h_0 .. h_{L-1} of h_t = tanh(W h_{t-1} + U x_t) from h_{-1} = 0. x: (L, d) -> (L, H).

    The loop is the point: step t cannot start before step t-1 is done, which is why an RNN needs no position
    encoding (and why it cannot be parallelised over the sequence).
    """
    if x.dim() != 2 or x.shape[0] == 0:
        raise ValueError(f"x must have shape (L, d) with L >= 1 (got {tuple(x.shape)})")
    if x.shape[1] != weights.input.shape[1]:
        raise ValueError(f"x has {x.shape[1]} channels but weights.input expects {weights.input.shape[1]}")
    w, u = weights.recurrent.to(x), weights.input.to(x)
    projected = x @ u.T  # (L, H): U x_t for every t at once; only the recurrence is sequential
    state = torch.zeros(w.shape[0], dtype=x.dtype, device=x.device)
    states = []
    for t in range(x.shape[0]):
        state = torch.tanh(w @ state + projected[t])
        states.append(state)
    return torch.stack(states)


def matched_gaps(
    tokens_a: Sequence[str], outputs_a: torch.Tensor, tokens_b: Sequence[str], outputs_b: torch.Tensor
) -> torch.Tensor:
    """For each token of A, max_c |out_A[t, c] - out_B[t', c]| where t' is the same word in B (repeated words
    matched in order of occurrence, case-insensitive). Shape (L,). All zeros means B's outputs are A's, reordered.
    """
    if sorted(t.lower() for t in tokens_a) != sorted(t.lower() for t in tokens_b):
        raise ValueError("tokens_b must be a reordering of tokens_a")
    if outputs_a.shape[0] != len(tokens_a) or outputs_b.shape[0] != len(tokens_b):
        raise ValueError(
            f"outputs_a and outputs_b must have one row per token (got {outputs_a.shape[0]} and {outputs_b.shape[0]} "
            f"rows for {len(tokens_a)} tokens)"
        )
    remaining: dict[str, list[int]] = {}
    for index, token in enumerate(tokens_b):
        remaining.setdefault(token.lower(), []).append(index)
    order = [remaining[token.lower()].pop(0) for token in tokens_a]
    return (outputs_a - outputs_b[order]).abs().amax(dim=-1)
