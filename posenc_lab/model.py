"""The lab's model: a small decoder-only transformer whose only difference from scheme to scheme is position.

Pre-norm blocks (LayerNorm, causal self-attention, LayerNorm, a GELU MLP), a byte vocabulary, tied input and
output embeddings, as GPT-2 and nanoGPT. Position enters through one :class:`posenc_lab.schemes.PositionScheme`
shared by every layer (added to the input, rotating q and k, or biasing the logits).

Attention, per head: logits[i, j] = q_i·k_j / √head_dim + bias[h, i, j], with -inf where j > i; softmax over j.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch.nn import functional as F

from posenc_lab.limits import MAX_PARAMETERS, ROPE_BASE_RANGE, SIZE_BOUNDS, finite, shown, whole
from posenc_lab.schemes import SCHEMES, PositionScheme, attention_scale, build_scheme


@dataclass(frozen=True)
class LabConfig:
    scheme: str = "rope"  # how position enters: one of posenc_lab.schemes.SCHEMES
    vocab_size: int = 256  # bytes
    d_model: int = 64  # width of the residual stream
    n_heads: int = 4  # attention heads (head_dim = d_model / n_heads)
    n_layers: int = 2  # transformer blocks
    d_ff: int = 256  # width of each block's MLP
    max_len: int = 64  # the trained length L: the learned table's rows, RoPE's original_max_position_embeddings
    rope_base: float = 10000.0  # RoPE's base (rope_theta)
    t5_buckets: int = 32  # T5's relative-position buckets (causal: all on one side)
    t5_max_distance: int = 128  # T5's last bucket starts here

    def __post_init__(self):
        """Every size within :data:`posenc_lab.limits.SIZE_BOUNDS` and the parameters within
        :data:`~posenc_lab.limits.MAX_PARAMETERS` (ValueError naming the first that is not): nothing is allocated
        for a config that fails here, whatever a checkpoint declares."""
        if not isinstance(self.scheme, str) or self.scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {', '.join(SCHEMES)} (got {shown(self.scheme)})")
        for name, (least, most) in SIZE_BOUNDS.items():
            whole(name, getattr(self, name), least, most)
        if self.d_model % self.n_heads or (self.d_model // self.n_heads) % 2:
            raise ValueError(
                f"d_model must be a multiple of n_heads with an even head_dim (got d_model={self.d_model}, "
                f"n_heads={self.n_heads})"
            )
        finite("rope_base", self.rope_base, *ROPE_BASE_RANGE)
        if parameter_count(self) > MAX_PARAMETERS:
            raise ValueError(
                f"the model's sizes make {parameter_count(self):,} parameters, more than the {MAX_PARAMETERS:,} a lab "
                f"model may have (d_model={self.d_model}, n_layers={self.n_layers}, d_ff={self.d_ff})"
            )

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    def to_dict(self) -> dict:
        return asdict(self)


def parameter_count(config: LabConfig) -> int:
    """The parameters of :class:`LabModel` for ``config``, counted from its sizes without building it:
    vocab·d (tied embedding) + layers·(4d² + 2·d·d_ff + d_ff + 5d) + 2d (final norm), plus the scheme's own
    (learned: max_len·d; T5: buckets·heads)."""
    d, d_ff = config.d_model, config.d_ff
    block = 4 * d * d + 2 * d * d_ff + d_ff + d + 4 * d  # qkv and out; the MLP with its biases; two LayerNorms
    scheme = {"learned": config.max_len * d, "t5": config.t5_buckets * config.n_heads}.get(config.scheme, 0)
    return config.vocab_size * d + config.n_layers * block + 2 * d + scheme


class Attention(nn.Module):
    """Causal multi-head self-attention; the scheme rotates q and k and biases the logits."""

    def __init__(self, config: LabConfig, scheme: PositionScheme):
        super().__init__()
        self.config, self.scheme = config, [scheme]  # a list: the scheme's parameters belong to the model, once
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model, bias=False)
        self.out = nn.Linear(config.d_model, config.d_model, bias=False)

    def project(self, x: torch.Tensor, positions: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """(q, k, v), each (B, H, T, head_dim), q and k as the scheme turns them."""
        batch, length, _ = x.shape
        heads, head_dim = self.config.n_heads, self.config.head_dim
        q, k, v = (part.view(batch, length, heads, head_dim).transpose(1, 2) for part in self.qkv(x).chunk(3, dim=-1))
        q, k = self.scheme[0].rotate(q, k, positions)
        return q, k, v

    def mask(self, positions: torch.Tensor) -> torch.Tensor | None:
        """What is added to the scaled scores (H, T, T): the scheme's bias with -inf where j > i; None for none."""
        bias = self.scheme[0].attention_bias(positions)
        if bias is None:
            return None
        return bias.masked_fill(_above_diagonal(bias.shape[-1], bias.device), float("-inf"))

    def logits(self, x: torch.Tensor, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits before the softmax (B, H, T, T), with -inf where j > i; values (B, H, T, head_dim)), written out:
        what :meth:`forward` computes in one fused call, for probes and tests."""
        q, k, v = self.project(x, positions)
        logits = (q @ k.transpose(-2, -1)) * attention_scale(self.config.head_dim)  # (B, H, T, T)
        mask = self.mask(positions)
        if mask is None:
            mask = torch.zeros(x.shape[1], x.shape[1], device=x.device)
        return logits.masked_fill(_above_diagonal(x.shape[1], x.device), float("-inf")) + mask, v

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """softmax(q·k/√head_dim + mask)·v through PyTorch's fused attention (the same numbers as :meth:`logits`
        and a softmax, about three times faster on a CPU at 512 tokens)."""
        q, k, v = self.project(x, positions)
        mask = self.mask(positions)
        if mask is None:
            mixed = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            mixed = F.scaled_dot_product_attention(q, k, v, attn_mask=mask.to(q.dtype))
        return self.out(mixed.transpose(1, 2).reshape(x.shape))


def _above_diagonal(length: int, device: torch.device) -> torch.Tensor:
    """(T, T) True where j > i: the keys a causal query may not see."""
    return torch.ones(length, length, dtype=torch.bool, device=device).triu(1)


class Block(nn.Module):
    """x + attention(norm(x)), then x + mlp(norm(x))."""

    def __init__(self, config: LabConfig, scheme: PositionScheme):
        super().__init__()
        self.norm_attention = nn.LayerNorm(config.d_model)
        self.attention = Attention(config, scheme)
        self.norm_mlp = nn.LayerNorm(config.d_model)
        self.mlp = nn.Sequential(
            nn.Linear(config.d_model, config.d_ff), nn.GELU(), nn.Linear(config.d_ff, config.d_model)
        )

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.norm_attention(x), positions)
        return x + self.mlp(self.norm_mlp(x))


class LabModel(nn.Module):
    """Tokens (B, T) in, next-token logits (B, T, vocab) out."""

    def __init__(self, config: LabConfig):
        super().__init__()
        self.config = config
        self.scheme = build_scheme(config)
        self.embed = nn.Embedding(config.vocab_size, config.d_model)
        self.blocks = nn.ModuleList(Block(config, self.scheme) for _ in range(config.n_layers))
        self.norm = nn.LayerNorm(config.d_model)
        nn.init.normal_(self.embed.weight, std=config.d_model**-0.5)

    def positions(self, length: int, device: torch.device) -> torch.Tensor:
        return torch.arange(length, device=device)

    def residual_input(self, tokens: torch.Tensor) -> torch.Tensor:
        """The first block's input: the token embeddings times √d_model, plus the scheme's position embedding if it
        adds one (Vaswani et al. 2017, section 3.4: the scale puts a token's embedding, of norm about √d_model, on a
        par with the sinusoidal table's, whose norm is √(d_model / 2); every scheme gets it, so none differs in
        anything but position)."""
        x = self.embed(tokens) * math.sqrt(self.config.d_model)  # (B, T, d_model)
        added = self.scheme.input_embedding(self.positions(tokens.shape[1], tokens.device))
        return x if added is None else x + added.to(x.dtype)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        positions = self.positions(tokens.shape[1], tokens.device)
        x = self.residual_input(tokens)
        for block in self.blocks:
            x = block(x, positions)
        return self.norm(x) @ self.embed.weight.T  # (B, T, vocab), tied to the input embedding

    def loss(self, tokens: torch.Tensor) -> torch.Tensor:
        """Mean next-token cross-entropy (nats) of ``tokens`` (B, T): each token predicts the one after it."""
        logits = self(tokens[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
