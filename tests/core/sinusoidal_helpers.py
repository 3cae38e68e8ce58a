"""Shared by the posenc_core.encodings.sinusoidal tests: slow oracles written from the papers, one loop per formula,
and F64."""

from __future__ import annotations

import math

import torch

F64 = torch.float64


def vaswani_oracle(positions, d, base=10000.0):
    """PE(p, 2i) = sin(p / base^(2i/d)), PE(p, 2i+1) = cos(p / base^(2i/d)) (Vaswani et al. 2017 §3.5)."""
    table = []
    for p in positions:
        row = []
        for j in range(d):
            angle = p / base ** (2 * (j // 2) / d)
            row.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
        table.append(row)
    return torch.tensor(table, dtype=F64)


def marian_oracle(positions, d, base=10000.0):
    """Same angles; sin(angle[:, 0::2]) in the first ceil(d/2) channels, cos(angle[:, 1::2]) after (HF Marian)."""
    sentinel = d // 2 if d % 2 == 0 else d // 2 + 1
    table = []
    for p in positions:
        row = [0.0] * d
        for j in range(d):
            angle = p / base ** (2 * (j // 2) / d)
            if j % 2 == 0:
                row[j // 2] = math.sin(angle)
            else:
                row[sentinel + j // 2] = math.cos(angle)
        table.append(row)
    return torch.tensor(table, dtype=F64)


def t2t_oracle(positions, d, base=10000.0):
    """inv_timescale_i = exp(-i·ln(max/min)/(d//2 - 1)), min 1, max base; [sin..., cos...], odd d zero-padded
    (tensor2tensor get_timing_signal_1d, fairseq get_embedding)."""
    half = d // 2
    increment = math.log(base / 1.0) / (half - 1)
    table = []
    for p in positions:
        scaled = [p * 1.0 * math.exp(-i * increment) for i in range(half)]
        row = [math.sin(a) for a in scaled] + [math.cos(a) for a in scaled] + [0.0] * (d % 2)
        table.append(row)
    return torch.tensor(table, dtype=F64)


ORACLES = {"interleaved": vaswani_oracle, "half": marian_oracle, "t2t": t2t_oracle}
