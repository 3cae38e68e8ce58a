"""Shared by the posenc_core.rope.scaling tests: HF's LlamaConfig defaults, scaling blocks, the ``rope`` shorthand."""

from __future__ import annotations

import torch

from posenc_core.rope.scaling import inv_freq

# HF LlamaConfig() defaults used by HF's tests: head_dim 4096/32 = 128, rope_theta 1e4, max_position_embeddings 2048.
LLAMA = {"head_dim": 128, "base": 10000.0, "max_position_embeddings": 2048}
LLAMA31 = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


def rope(scaling=None, *, head_dim=128, base=10000.0, device="cpu", **kwargs) -> tuple[torch.Tensor, float]:
    return inv_freq(head_dim, base, scaling, device=device, **kwargs)


def phi3_scaling(short=1.0, long=2.0, **extra):
    return {"rope_type": "longrope", "short_factor": [short] * 48, "long_factor": [long] * 48, **extra}


def registry_params(dim: int) -> dict:
    """One dict every registry function accepts (each reads its own keys and ignores the rest)."""
    return {
        "factor": 4.0,
        "original_max_position_embeddings": 1024,
        "short_factor": [1.0 + i / dim for i in range(dim // 2)],
        "long_factor": [2.0 + i for i in range(dim // 2)],
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "unused_key": "ignored",
    }
