"""Reading an HF ``rope_scaling`` / ``rope_parameters`` dict: required keys, HF's fallbacks, validation.

Every reader raises ``ValueError`` naming the key. Ref: HF ``modeling_rope_utils`` (``standardize_rope_params``,
the ``_compute_*_parameters`` functions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from posenc_core._checks import check_float, check_float_dtype, check_int
from posenc_core.device import resolve_device

REQUIRED = object()


def read_float(params: Mapping[str, Any] | None, key: str, rope_type: str, *, default: Any = REQUIRED, **bounds) -> Any:
    """params[key] as a finite float (> 0 unless ``bounds`` say otherwise); None/missing: default or error."""
    value = (params or {}).get(key)
    if value is None:
        if default is REQUIRED:
            raise ValueError(f"{key} is required in the scaling dict for rope_type {rope_type!r}")
        return default
    return check_float(key, value, **(bounds or {"greater_than": 0.0}))


def read_bool(params: Mapping[str, Any] | None, key: str, *, default: bool) -> bool:
    """params[key] as a bool; None/missing: default."""
    value = (params or {}).get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ValueError(f"{key} must be True or False (got {value!r})")
    return value


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
    return check_int("original_max_position_embeddings", original, minimum=1)


def read_factor_or_ratio(params, max_position_embeddings: int | None, original: int, rope_type: str) -> float:
    """params["factor"], or (v5) max_position_embeddings / original_max_position_embeddings if it is None."""
    factor = (params or {}).get("factor")
    if factor is None and max_position_embeddings is not None:
        return max_position_embeddings / original
    return read_float(params, "factor", rope_type)


def read_factor_list(params, key: str, dim: int, device, dtype: torch.dtype) -> torch.Tensor:
    """LongRoPE rescale factors: a list of d/2 finite positive numbers, as a (d/2,) tensor (d already checked)."""
    values = (params or {}).get(key)
    if values is None:
        raise ValueError(f"{key} is required in the scaling dict for rope_type 'longrope'")
    if isinstance(values, str | bytes) or not hasattr(values, "__len__") or len(values) != dim // 2:
        count = len(values) if hasattr(values, "__len__") else type(values).__name__
        raise ValueError(f"{key} must be a list of dim/2 = {dim // 2} numbers (got {count})")
    values = [check_float(f"{key}[{i}]", value, greater_than=0.0) for i, value in enumerate(values)]
    return torch.tensor(values, dtype=check_float_dtype(dtype), device=resolve_device(device))
