"""Shared by the posenc_core.rope tests: the default frequencies in float64, slow 2x2-rotation oracles (Su et al.)."""

from __future__ import annotations

import math

import torch

from posenc_core.rope import scaling as rope_scaling

F64 = torch.float64


def default_freq(dim, base=10000.0, *, device="cpu", dtype=F64):
    return rope_scaling.default_inv_freq(dim, base, device=device, dtype=dtype)


def pairs_of(dim, layout):
    """The channels (a, b) of pair i: (2i, 2i+1) interleaved, (i, i + d/2) half."""
    return [(2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + dim // 2) for i in range(dim // 2)]


def rotation_oracle(x, positions, freq, layout, rotary_dim=None, attention_factor=1.0):
    """R(m) x with explicit 2x2 rotations [[cos, -sin], [sin, cos]] of angle m·θ_i per pair (Su et al. eq. 13)."""
    rotary_dim = rotary_dim or 2 * len(freq)
    out = []
    for row, m in zip(x.tolist(), positions, strict=True):
        new = list(row)
        for i, (a, b) in enumerate(pairs_of(rotary_dim, layout)):
            c, s = math.cos(m * freq[i]), math.sin(m * freq[i])
            new[a] = attention_factor * (c * row[a] - s * row[b])
            new[b] = attention_factor * (s * row[a] + c * row[b])
        out.append(new)
    return torch.tensor(out, dtype=F64)


def meta_complex_oracle(x, positions, freq):
    """Meta llama ``apply_rotary_emb``: view pairs (2i, 2i+1) as complex numbers, multiply by polar(1, m·θ_i)."""
    theta = torch.outer(torch.tensor(positions, dtype=F64), torch.tensor(freq, dtype=F64))
    rotated = torch.view_as_complex(x.reshape(x.shape[0], -1, 2).contiguous()) * torch.polar(
        torch.ones_like(theta), theta
    )
    return torch.view_as_real(rotated).flatten(-2)


def score_oracle(q, k, m, n, freq, layout):
    """(R_m q)·(R_n k) by rotating both with the 2x2 loop and summing the products."""
    rq = rotation_oracle(q[None], [m], freq, layout)[0]
    rk = rotation_oracle(k[None], [n], freq, layout)[0]
    rest = q.shape[0] - 2 * len(freq)
    tail = float(q[-rest:] @ k[-rest:]) if rest else 0.0
    return float(rq[: 2 * len(freq)] @ rk[: 2 * len(freq)]) + tail
