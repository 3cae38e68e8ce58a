"""The position schemes of the lab's model, one registry (:data:`SCHEMES`) of same-shaped modules.

A scheme touches the model in up to three places, each a method every scheme has (the default does nothing):

- ``input_embedding(positions)``: a (T, d_model) tensor added to the token embeddings, or None;
- ``rotate(q, k, positions)``: the queries and keys (B, H, T, head_dim) as the attention sees them;
- ``attention_bias(positions)``: a (H, T, T) tensor added to the attention logits, or None.

``positions`` are the absolute positions 0..T-1 of the tokens (int64, shape (T,)). The causal mask is the
model's, not a scheme's. Each scheme calls the core's own function for its formula:

==========  ========================================================  ==========================================
scheme      what it does                                              core function
==========  ========================================================  ==========================================
nope        nothing: the causal mask alone orders the tokens          (none; Kazemnejad et al. 2023)
sinusoidal  adds PE(p) to the token embedding                         ``encodings.sinusoidal.encoding``
learned     adds row p of a trained table (max_len rows)              (a parameter; GPT-2)
t5          adds a trained bias per head and distance bucket          ``encodings.relative.t5_bucket_matrix``
alibi       adds -m_h·(i - j) to the logits                           ``encodings.alibi.bias``
rope        rotates q and k by m·θ_i (any ``rope_type`` at eval)      ``rope.scaling.inv_freq``, ``rope.rotary``
==========  ========================================================  ==========================================
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch import nn

from posenc_core.encodings import alibi, relative, sinusoidal
from posenc_core.rope import rotary
from posenc_core.rope import scaling as rope_scaling


class PositionScheme(nn.Module):
    """No position at all (NoPE): every hook leaves the model as it is. The other schemes override one hook."""

    name = "nope"

    def __init__(self, config: Any):
        super().__init__()
        self.config = config

    def input_embedding(self, positions: torch.Tensor) -> torch.Tensor | None:
        return None

    def rotate(self, q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return q, k

    def attention_bias(self, positions: torch.Tensor) -> torch.Tensor | None:
        return None


class Sinusoidal(PositionScheme):
    """PE(p) of Vaswani et al. 2017 (interleaved sin/cos, base 10000) added to the token embedding."""

    name = "sinusoidal"

    def input_embedding(self, positions: torch.Tensor) -> torch.Tensor:
        table = sinusoidal.encoding(None, self.config.d_model, positions=positions, device=positions.device)
        return table  # (T, d_model)


class Learned(PositionScheme):
    """A trained table of ``max_len`` rows (GPT-2): row p added to the token embedding. It has no row past its
    last: asked for one, it raises :class:`PastTheTable`, which evaluation reports instead of clamping."""

    name = "learned"

    def __init__(self, config: Any):
        super().__init__(config)
        self.table = nn.Parameter(torch.randn(config.max_len, config.d_model) * 0.02)

    def input_embedding(self, positions: torch.Tensor) -> torch.Tensor:
        last = int(positions.max()) if positions.numel() else -1
        if last >= self.table.shape[0]:
            raise PastTheTable(f"learned: position {last} is past the table of {self.table.shape[0]} positions")
        return self.table[positions]  # (T, d_model)


class PastTheTable(ValueError):
    """A learned table asked for a position it has no row for."""


class T5Bias(PositionScheme):
    """T5's relative bias (Raffel et al. 2020): a trained scalar per head and bucket of j - i, causal buckets
    (a decoder), shared by every layer as in T5."""

    name = "t5"

    def __init__(self, config: Any):
        super().__init__(config)
        self.buckets = nn.Embedding(config.t5_buckets, config.n_heads)
        nn.init.zeros_(self.buckets.weight)

    def attention_bias(self, positions: torch.Tensor) -> torch.Tensor:
        bucket = relative.t5_bucket_matrix(
            positions.numel(),
            bidirectional=False,
            num_buckets=self.config.t5_buckets,
            max_distance=self.config.t5_max_distance,
            device=positions.device,
        )  # (T, T)
        return self.buckets(bucket).permute(2, 0, 1)  # (H, T, T)


class ALiBi(PositionScheme):
    """ALiBi (Press et al. 2022): -m_h·(i - j) added to head h's logits, slopes from Press's rule (the core's
    causal bias, which is -inf above the diagonal as the model's own mask is)."""

    name = "alibi"

    def attention_bias(self, positions: torch.Tensor) -> torch.Tensor:
        return alibi.bias(self.config.n_heads, positions.numel(), mode="causal", device=positions.device)  # (H, T, T)


class RoPE(PositionScheme):
    """RoPE (Su et al. 2021), half layout as Llama: q and k turned by m·θ_i. ``scaling`` (a config.json
    ``rope_scaling``, None for none) is applied at evaluation with no retraining; the frequencies and the
    attention factor are the core's (equal to transformers'), ``original_max_position_embeddings`` the
    trained length."""

    name = "rope"

    def __init__(self, config: Any):
        super().__init__(config)
        self.scaling: Mapping[str, Any] | None = None

    def frequencies(self, seq_len: int) -> tuple[torch.Tensor, float]:
        """(inv_freq, attention_factor) for a sequence of ``seq_len`` tokens under :attr:`scaling`."""
        head_dim = self.config.d_model // self.config.n_heads
        return rope_scaling.inv_freq(
            head_dim,
            self.config.rope_base,
            self.scaling,
            seq_len=seq_len,
            max_position_embeddings=self.config.max_len,
        )

    def rotate(self, q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        inv_freq, factor = self.frequencies(int(positions.max()) + 1 if positions.numel() else 1)
        turn = dict(inv_freq=inv_freq, attention_factor=factor)
        return rotary.apply(q, positions, **turn), rotary.apply(k, positions, **turn)


SCHEMES: dict[str, Callable[[Any], PositionScheme]] = {
    scheme.name: scheme for scheme in (PositionScheme, Sinusoidal, Learned, T5Bias, ALiBi, RoPE)
}


def build_scheme(config: Any) -> PositionScheme:
    """The scheme ``config.scheme`` names, built for ``config``."""
    if config.scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)} (got {config.scheme!r})")
    return SCHEMES[config.scheme](config)


def attention_scale(head_dim: int) -> float:
    """1/√head_dim, the logits' scale in every scheme (Vaswani et al. 2017)."""
    return 1.0 / math.sqrt(head_dim)
