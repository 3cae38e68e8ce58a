"""RoPE inverse frequencies and their context-extension variants (STUB: to be completed).

Ref: HF transformers ``src/transformers/modeling_rope_utils.py``.
"""

from __future__ import annotations

import torch

from posenc_core._checks import check_float, check_int
from posenc_core.device import resolve_device


def default_inv_freq(dim: int, base: float = 10000.0, *, device=None, dtype=torch.float32) -> torch.Tensor:
    """inv_freq_i = base^(-2i/d), i = 0..d/2-1. Shape (d/2,). Ref: Su et al. 2021, arXiv 2104.09864."""
    dim = check_int("dim", dim, minimum=2)
    if dim % 2:
        raise ValueError(f"dim (the rotary dimension) must be even (got {dim})")
    base = check_float("base", base, greater_than=1.0)
    exponents = torch.arange(0, dim, 2, dtype=torch.int64, device=resolve_device(device)).float() / dim
    return (1.0 / base**exponents).to(dtype)
