"""Full-tensor core functions against straightforward seed-style NumPy versions of the same computation."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import torch

from posenc_core import rope
from posenc_core.device import resolve_device
from posenc_core.encodings import alibi, sinusoidal


def seed_sinusoidal(length: int, d_model: int) -> np.ndarray:
    """The tutorial version: float64 NumPy, sin on even and cos on odd channels."""
    pe = np.zeros((length, d_model))
    position = np.arange(length)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * -(np.log(10000.0) / d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def seed_rope_cos_sin(length: int, head_dim: int) -> tuple[np.ndarray, np.ndarray]:
    inv_freq = 1.0 / 10000.0 ** (np.arange(0, head_dim, 2) / head_dim)
    freqs = np.outer(np.arange(length), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb), np.sin(emb)


def seed_alibi(n_heads: int, length: int) -> np.ndarray:
    slopes = 2.0 ** (-8.0 * np.arange(1, n_heads + 1) / n_heads)
    distance = np.arange(length)[:, None] - np.arange(length)[None, :]
    bias = -slopes[:, None, None] * distance[None]
    bias[:, distance < 0] = -np.inf
    return bias


def _best_seconds(function: Callable[[], object], repeats: int, synchronize: Callable[[], None]) -> float:
    function()  # warm-up
    synchronize()
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        synchronize()
        best = min(best, time.perf_counter() - started)
    return best


def run(repeats: int = 3) -> dict:
    device = resolve_device("auto")
    synchronize = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    inv_freq, _ = rope.inv_freq(128, 10000.0, device=device)
    cases = {
        "sinusoidal 32768 x 4096": (
            lambda: sinusoidal.encoding(32768, 4096, device=device),
            lambda: seed_sinusoidal(32768, 4096),
            32768 * 4096 * 4,
        ),
        "RoPE cos/sin 1,048,576 x 128": (
            lambda: rope.cos_sin(torch.arange(1 << 20, device=device), inv_freq, device=device),
            lambda: seed_rope_cos_sin(1 << 20, 128),
            2 * (1 << 20) * 128 * 4,
        ),
        "ALiBi 32 x 4096 x 4096": (
            lambda: alibi.bias(32, 4096, device=device),
            lambda: seed_alibi(32, 4096),
            32 * 4096 * 4096 * 4,
        ),
    }
    results = []
    for name, (ours, seed, output_bytes) in cases.items():
        ours_s = _best_seconds(ours, repeats, synchronize)
        seed_s = _best_seconds(seed, repeats, lambda: None)
        row = {"function": name, "ours_s": round(ours_s, 4), "numpy_s": round(seed_s, 4)}
        row["speedup"] = round(seed_s / ours_s, 2)
        if device.type == "cuda":
            row["copy_s"] = round(_copy_seconds(output_bytes, repeats), 5)
            row["vs_copy"] = round(ours_s / row["copy_s"], 2)
        results.append(row)
    return {"device": str(device), "torch_threads": torch.get_num_threads(), "functions": results}


def _copy_seconds(n_bytes: int, repeats: int) -> float:
    """Time to copy the same number of bytes on the GPU (read + write): the bandwidth floor."""
    source = torch.empty(n_bytes // 4, dtype=torch.float32, device="cuda")
    target = torch.empty_like(source)
    return _best_seconds(lambda: target.copy_(source), repeats, torch.cuda.synchronize)
