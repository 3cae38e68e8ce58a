"""Relative positions: Shaw et al.'s clipped indices and T5's log-spaced buckets.

relative position = key position - query position (negative = the key is in the past). When
``q_len < k_len`` the queries are the last ``q_len`` of the ``k_len`` keys: query i sits at key position
``i + (k_len - q_len)`` (tensor2tensor ``range_vec_k[-length_q:]``; HF T5 ``compute_bias`` with
``past_seen_tokens``), so ``k_len >= q_len``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import torch

from posenc_core._checks import check_indices, check_int
from posenc_core.device import resolve_device

Indices = Sequence[int] | torch.Tensor | range | None


class BucketRange(NamedTuple):
    """The relative positions (key - query) one T5 bucket covers: ``min_rel..max_rel``, ±inf if unbounded."""

    bucket: int
    min_rel: float
    max_rel: float


def relative_positions(
    q_len: int,
    k_len: int | None = None,
    *,
    query_positions: Indices = None,
    key_positions: Indices = None,
    device=None,
) -> torch.Tensor:
    """rel[i,j] = j - p_i with p_i = i + (k_len - q_len). int64, shape (Q', K').

    ``query_positions`` (query indices 0..q_len-1) and ``key_positions`` (0..k_len-1) pick rows and
    columns: the result equals slicing the full matrix. Ref: tensor2tensor ``common_attention``
    ``_generate_relative_positions_matrix``.
    """
    q_len = check_int("q_len", q_len, minimum=1)
    k_len = q_len if k_len is None else check_int("k_len", k_len, minimum=q_len)
    device = resolve_device(device)
    queries = check_indices("query_positions", query_positions, q_len, device) + (k_len - q_len)  # (Q',)
    keys = check_indices("key_positions", key_positions, k_len, device)  # (K',)
    return keys[None, :] - queries[:, None]


def shaw_index(
    q_len: int,
    k_len: int | None,
    max_distance: int,
    *,
    query_positions: Indices = None,
    key_positions: Indices = None,
    device=None,
) -> torch.Tensor:
    """index[i,j] = clip(j - p_i, -k, k) + k in 0..2k (an embedding table of 2k+1 rows), k = max_distance.

    ``k_len=None`` means ``q_len``; cached decoding (t2t ``cache=True``) is the ``q_len=1`` row.
    int64, shape (Q', K'). Ref: Shaw et al. 2018, arXiv 1803.02155; tensor2tensor
    ``_generate_relative_positions_matrix``.
    """
    max_distance = check_int("max_distance", max_distance, minimum=1)
    rel = relative_positions(q_len, k_len, query_positions=query_positions, key_positions=key_positions, device=device)
    return rel.clamp(-max_distance, max_distance) + max_distance


def t5_bucket(
    relative_position: int | Sequence[int] | torch.Tensor,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
    device=None,
) -> torch.Tensor:
    """T5's bucket of rel = key - query. Bidirectional: half the buckets per sign (rel > 0 adds num_buckets/2),
    n = |rel|; causal: n = max(-rel, 0). With e = (buckets per side)/2: bucket n for n < e, else
    e + trunc(ln(n/e)/ln(max_distance/e)·(buckets per side - e)), capped at buckets per side - 1.

    Float32 log math and truncation as HF, so the buckets match bit for bit (exact rationals such as
    ln 4/ln 32 can land a float64 version one bucket lower). An odd bidirectional ``num_buckets`` leaves
    its last bucket unused, as in HF. int64, same shape as ``relative_position`` (and on its device if a
    tensor, else on ``device``). Ref: Raffel et al. 2020, arXiv 1910.10683; HF ``modeling_t5``
    ``T5Attention._relative_position_bucket`` (from Mesh TensorFlow).
    """
    side_buckets, max_exact = _check_bucket_args(bidirectional, num_buckets, max_distance)
    rel = _integer_tensor(relative_position, device)
    if bidirectional:
        bucket_offset = (rel > 0).to(torch.int64) * side_buckets
        distance = rel.abs()
    else:
        bucket_offset = torch.zeros_like(rel)
        distance = (-rel).clamp(min=0)
    is_exact = distance < max_exact
    safe_distance = distance.clamp(min=max_exact).float()  # no log(0): those entries take the exact branch
    log_bucket = (
        torch.log(safe_distance / max_exact) / math.log(max_distance / max_exact) * (side_buckets - max_exact)
    ).to(torch.int64)  # truncation toward zero, as HF
    large = (max_exact + log_bucket).clamp(max=side_buckets - 1)
    return bucket_offset + torch.where(is_exact, distance, large)


def t5_bucket_matrix(
    q_len: int,
    k_len: int | None = None,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
    query_positions: Indices = None,
    key_positions: Indices = None,
    device=None,
) -> torch.Tensor:
    """bucket[i,j] = t5_bucket(j - p_i), p_i = i + (k_len - q_len) (HF ``compute_bias``). int64, shape (Q', K')."""
    rel = relative_positions(q_len, k_len, query_positions=query_positions, key_positions=key_positions, device=device)
    return t5_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)


def t5_bucket_ranges(bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128) -> list[BucketRange]:
    """Every used bucket with the relative positions it covers, sorted by bucket.

    Found by evaluating :func:`t5_bucket` on every rel in [-(max_distance+1), max_distance+1] (beyond
    max_distance nothing changes, so an end bucket reaching that far is unbounded: ±inf). Buckets no
    rel reaches (bidirectional bucket num_buckets/2, as rel > 0 has n >= 1) are left out.
    """
    _check_bucket_args(bidirectional, num_buckets, max_distance)
    reach = max_distance + 1
    rel = torch.arange(-reach, reach + 1, dtype=torch.int64, device="cpu")
    buckets = t5_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    ranges = []
    for bucket in torch.unique(buckets).tolist():
        covered = rel[buckets == bucket]
        low, high = int(covered.min()), int(covered.max())
        ranges.append(BucketRange(bucket, -math.inf if low == -reach else low, math.inf if high == reach else high))
    return ranges


def _check_bucket_args(bidirectional: bool, num_buckets: int, max_distance: int) -> tuple[int, int]:
    """Return (buckets per side, max_exact); T5's formula needs max_exact >= 1 and max_distance > max_exact."""
    if not isinstance(bidirectional, bool):
        raise ValueError(f"bidirectional must be True or False (got {bidirectional!r})")
    minimum_buckets = 4 if bidirectional else 2
    num_buckets = check_int("num_buckets", num_buckets, minimum=minimum_buckets)
    side_buckets = num_buckets // 2 if bidirectional else num_buckets
    max_exact = side_buckets // 2
    max_distance = check_int("max_distance", max_distance, minimum=max_exact + 1)
    return side_buckets, max_exact


def _integer_tensor(values: int | Sequence[int] | torch.Tensor, device) -> torch.Tensor:
    if isinstance(values, torch.Tensor):
        if values.is_floating_point() or values.is_complex() or values.dtype == torch.bool:
            raise ValueError(f"relative_position must hold integers (got dtype {values.dtype})")
        return values.to(torch.int64)
    if isinstance(values, int) and not isinstance(values, bool):
        return torch.tensor(values, dtype=torch.int64, device=resolve_device(device))
    if isinstance(values, Sequence) and not isinstance(values, str):
        checked = [check_int("relative_position", value) for value in values]
        return torch.tensor(checked, dtype=torch.int64, device=resolve_device(device))
    raise ValueError(f"relative_position must be an integer, a sequence of integers or a tensor (got {values!r})")
