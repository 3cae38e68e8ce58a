"""Reading an HF ``rope_scaling`` / ``rope_parameters`` dict: required keys, HF's fallbacks, validation.

Each key's kind, bounds and default come from ``rope.scaling_keys.SCALING_KEYS``; every reader raises
``ValueError`` naming the key. Ref: HF ``modeling_rope_utils`` (``standardize_rope_params``,
the ``_compute_*_parameters`` functions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from posenc_core._checks import check_float, check_float_dtype, check_int
from posenc_core.device import resolve_device
from posenc_core.rope.scaling_keys import SCALING_KEYS


def read_required(params: Mapping[str, Any] | None, key: str, rope_type: str) -> Any:
    """params[key] checked by its :class:`ScalingKey` (kind and bounds); None/missing: ValueError naming it."""
    value = (params or {}).get(key)
    if value is None:
        raise ValueError(f"{key} is required in the scaling dict for rope_type {rope_type!r}")
    return SCALING_KEYS[key].check(value)


def read_optional(params: Mapping[str, Any] | None, key: str) -> Any:
    """params[key] checked by its :class:`ScalingKey`; None/missing: the key's HF default (None: derive it)."""
    value = (params or {}).get(key)
    return SCALING_KEYS[key].default if value is None else SCALING_KEYS[key].check(value)


def check_lengths(seq_len: int | None, max_position_embeddings: int | None) -> tuple[int | None, int | None]:
    """seq_len (int >= 0) and max_position_embeddings (int >= 1), each may be None."""
    if seq_len is not None:
        seq_len = check_int("seq_len", seq_len, minimum=0)
    if max_position_embeddings is not None:
        max_position_embeddings = check_int("max_position_embeddings", max_position_embeddings, minimum=1)
    return seq_len, max_position_embeddings


def read_original_length(params: Mapping[str, Any] | None, max_position_embeddings: int | None, rope_type: str) -> int:
    """original_max_position_embeddings from the dict, else max_position_embeddings (as HF standardizes)."""
    original = (params or {}).get("original_max_position_embeddings")
    original = max_position_embeddings if original is None else original
    if original is None:
        raise ValueError(
            f"original_max_position_embeddings is required for rope_type {rope_type!r} "
            "(in the scaling dict, or pass max_position_embeddings)"
        )
    return SCALING_KEYS["original_max_position_embeddings"].check(original)


def read_factor_or_ratio(params, max_position_embeddings: int | None, original: int, rope_type: str) -> float:
    """params["factor"], or (v5) max_position_embeddings / original_max_position_embeddings if it is None."""
    factor = (params or {}).get("factor")
    if factor is None and max_position_embeddings is not None:
        return max_position_embeddings / original
    return read_required(params, "factor", rope_type)


def read_factor_list(params, key: str, dim: int, device, dtype: torch.dtype) -> torch.Tensor:
    """LongRoPE rescale factors: a list of d/2 finite positive numbers, as a (d/2,) tensor (d already checked)."""
    values = (params or {}).get(key)
    if values is None:
        raise ValueError(f"{key} is required in the scaling dict for rope_type 'longrope'")
    if isinstance(values, str | bytes) or not hasattr(values, "__len__") or len(values) != dim // 2:
        count = len(values) if hasattr(values, "__len__") else type(values).__name__
        raise ValueError(f"{key} must be a list of dim/2 = {dim // 2} numbers (got {count})")
    bounds = SCALING_KEYS[key].bounds()
    values = [check_float(f"{key}[{i}]", value, **bounds) for i, value in enumerate(values)]
    return torch.tensor(values, dtype=check_float_dtype(dtype), device=resolve_device(device))
