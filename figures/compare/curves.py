"""Each scheme's curve against the relative distance k, on one footing (1 at k = 0), and the distances drawn."""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import torch

from figures.common import sampled_note
from figures.compare.schemes import Scheme, scheme_slopes
from posenc_core import alibi, learned, metrics, presets, relative, rope, sampling, sinusoidal
from posenc_core.device import resolve_device

CURVE_POINTS = 1024  # distances per curve (4 curves: 4096 points)


def work_device_dtype(p: Mapping[str, Any]) -> tuple[torch.device, torch.dtype]:
    device = resolve_device(p["device"])
    return device, torch.float32 if device.type == "mps" else torch.float64


def rope_frequencies(s: Scheme, p: Mapping[str, Any]) -> tuple[torch.Tensor, float, int]:
    """(inv_freq, attention_factor, head_dim) of a RoPE item: the page's head_dim and base, or the preset's."""
    device, work = work_device_dtype(p)
    if s.preset is None:
        inv, factor = rope.inv_freq(p["head_dim"], p["base"], device=device, dtype=work)
        return inv, factor, p["head_dim"]
    inv, factor = rope.inv_freq(**presets.rope_inputs(s.preset, seq_len=p["seq_len"]), device=device, dtype=work)
    return inv, factor, s.preset.rope_head_dim


@lru_cache(maxsize=4)
def _learned_table(rows: int, d_model: int, builtin: str | None) -> torch.Tensor:
    """A learned table on the CPU (shared read-only): a built-in trained one, or a random N(0, 0.02²) one."""
    if builtin is not None:
        return learned.load_builtin(builtin, device="cpu")
    return learned.random_table(rows, d_model, device="cpu")


def learned_table_of(s: Scheme, p: Mapping[str, Any]) -> torch.Tensor:
    return _learned_table(s.size, p["d_model"], s.table)


@lru_cache(maxsize=4)
def _offset_profile(rows: int, d_model: int, builtin: str | None) -> torch.Tensor:
    """mean over p of T[p]·T[p+k] for every k < rows: the mean of the k-th diagonal of the Gram matrix T·Tᵀ
    (at most 2048 x 2048 here; equal to ``metrics.offset_similarity``, which is slower for all k at once)."""
    gram = metrics.similarity_matrix(_learned_table(rows, d_model, builtin))
    return torch.stack([gram.diagonal(k).mean() for k in range(gram.shape[0])]).to(torch.float64)


def similarity(s: Scheme, ks: torch.Tensor, p: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
    """(distances kept, similarity there) for a non-T5 item; a learned table keeps only k < its rows."""
    device, work = work_device_dtype(p)
    with_zero = torch.cat([torch.zeros(1, dtype=torch.int64), ks.cpu()]).to(device)
    if s.kind == "sinusoidal":
        values = sinusoidal.relative_similarity(with_zero, s.size, device=device, dtype=work)
    elif s.kind == "learned":
        profile = _offset_profile(s.size, p["d_model"], s.table)  # (rows,)
        with_zero = with_zero[with_zero < profile.numel()]
        values = profile[with_zero.cpu()]
    elif s.kind == "rope":
        inv, factor, head_dim = rope_frequencies(s, p)
        ones = torch.ones(head_dim, device=device, dtype=work)
        values = rope.relative_scores(ones, ones, with_zero, inv, key_positions=[0], attention_factor=factor)[:, 0]
    else:
        slope = scheme_slopes(s)[s.head : s.head + 1]
        values = alibi.attention_to_past(slope, int(with_zero.max()), distances=with_zero, device=device, dtype=work)[0]
    return with_zero[1:].cpu(), (values[1:] / values[0]).cpu()


def distinct_buckets(s: Scheme, ks: torch.Tensor) -> torch.Tensor:
    """T5: how many different buckets the distances 0..k (keys k tokens back) fall into, for each k."""
    last = min(int(ks.max()), s.max_distance)  # from max_distance on every distance shares the last bucket
    rel = -torch.arange(last + 1)  # keys k tokens back
    exact = relative.t5_bucket(rel, num_buckets=s.size, max_distance=s.max_distance, device="cpu")
    count = torch.cat([torch.ones(1, dtype=torch.int64), (exact.diff() != 0).long()]).cumsum(0)
    return count[ks.clamp(max=last)]


def distances(p: Mapping[str, Any]) -> tuple[torch.Tensor, str]:
    """Exact distances at display resolution (log-spaced from 1, or evenly spaced from 0) and their note."""
    length = p["seq_len"]
    if length < 2:
        raise ValueError(f"seq_len must be at least 2 to compare distances (got {length})")
    if p["distance_axis"] == "linear":
        ks = sampling.sampled_positions(length, CURVE_POINTS)
        return ks, sampled_note(ks.numel(), length, "distances")
    grid = torch.logspace(0, math.log10(length - 1), CURVE_POINTS, dtype=torch.float64).round().long()
    ks = torch.unique(grid)
    if ks.numel() >= length - 1:
        return ks, f"all distances 1 to {length - 1:,} (k = 0 is 1 by definition; a log axis cannot show it)"
    return ks, f"sampled: {ks.numel():,} of {length - 1:,} distances, log-spaced (exact values at those distances)"
