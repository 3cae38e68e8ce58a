"""Rotary position embedding (RoPE): angles, cos/sin tables, the two channel layouts, partial rotary and
the attention score of one rotated query/key pair.

Pair i turns by θ_{m,i} = m·inv_freq[i] at position m. The layouts differ only in which channels form pair i:

- ``half`` (GPT-NeoX, HF Llama/Mistral/Qwen/Gemma/Phi): channels (i, i + d/2); ``rotate_half``.
- ``interleaved`` (GPT-J, Meta's complex form, DeepSeek official): channels (2i, 2i+1); ``rotate_every_two``.

They are equal up to ``layout_permutation``: half(P x) == P·interleaved(x). Weights trained with one layout
must never be run with the other. With ``rotary_dim < head_dim`` only the first ``rotary_dim`` channels turn.

Precision: angles are computed like HF, in float32 (float64 when an input is float64): integer positions are
exact there, and the product m·inv_freq is rounded once (0.06 rad at m = 1e6 in float32).

Ref: Su et al. 2021, arXiv 2104.09864 (RoFormer §3.4); HF transformers ``modeling_llama.rotate_half`` /
``apply_rotary_pos_emb``, ``modeling_gptj.rotate_every_two``, ``modeling_gpt_neox`` (``rotary_pct``).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from posenc_core._checks import check_choice, check_float, check_float_dtype, check_int
from posenc_core.device import resolve_device
from posenc_core.rope.scaling import inv_freq  # re-exported: ``posenc_core.rope.inv_freq``

__all__ = [
    "LAYOUTS",
    "angles",
    "apply",
    "channel_pair_index",
    "cos_sin",
    "inv_freq",
    "layout_permutation",
    "relative_scores",
    "rotate_every_two",
    "rotate_half",
    "wavelengths",
]

LAYOUTS = ("half", "interleaved")


def angles(positions: Any, inv_freq: torch.Tensor) -> torch.Tensor:
    """θ[m, i] = positions[m] · inv_freq[i]. Shape (P, d/2), float32 (float64 if an input is float64).

    ``positions``: 1-D tensor or sequence of ints/floats (negative allowed), put on inv_freq's device.
    Ref: Su et al. 2021 eq. (15); HF ``LlamaRotaryEmbedding.forward`` (``inv_freq ⊗ position_ids``).
    """
    freq = _check_inv_freq(inv_freq)
    pos = _as_positions(positions, freq.device)
    work = torch.float64 if torch.float64 in (pos.dtype, freq.dtype) else torch.float32
    return torch.outer(pos.to(work), freq.to(work))


def wavelengths(inv_freq: torch.Tensor) -> torch.Tensor:
    """λ_i = 2π / inv_freq[i]: the positions pair i needs for one full turn. Shape (d/2,)."""
    return 2.0 * math.pi / _check_inv_freq(inv_freq)


def cos_sin(
    positions: Any,
    inv_freq: torch.Tensor,
    *,
    attention_factor: float = 1.0,
    layout: str = "half",
    device=None,
    dtype: torch.dtype = torch.float32,
) -> tuple[torch.Tensor, torch.Tensor]:
    """cos = attention_factor·cos(θ), sin = attention_factor·sin(θ), θ expanded to every channel. Each (P, d).

    half: θ repeated as cat(θ, θ); interleaved: θ.repeat_interleave(2). ``attention_factor`` multiplies both,
    as in HF, so q·k is scaled by its square. Ref: HF ``LlamaRotaryEmbedding.forward``, ``modeling_gptj``.
    """
    layout = check_choice("layout", layout, LAYOUTS)
    attention_factor = check_float("attention_factor", attention_factor, greater_than=0.0)
    dtype = check_float_dtype(dtype)
    device = resolve_device(device)
    theta = _expand(angles(positions, _check_inv_freq(inv_freq).to(device)), layout)
    return (theta.cos() * attention_factor).to(dtype), (theta.sin() * attention_factor).to(dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """cat(-x[..., d/2:], x[..., :d/2]): turns pair (i, i + d/2) by 90°. Ref: HF ``modeling_llama``."""
    half = _even_last_dim("x", x) // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotate_every_two(x: torch.Tensor) -> torch.Tensor:
    """(x0, x1, x2, x3, ...) -> (-x1, x0, -x3, x2, ...): turns pair (2i, 2i+1) by 90°. Ref: HF ``modeling_gptj``."""
    _even_last_dim("x", x)
    return torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)


def layout_permutation(dim: int, *, device=None) -> torch.Tensor:
    """P = [0, 2, 4, ..., 1, 3, 5, ...] (dim,), int64, with apply(x[..., P], layout="half") ==
    apply(x, layout="interleaved")[..., P]. Ref: HF ``convert_llama_weights_to_hf.permute`` (its inverse)."""
    dim = _check_dim(dim)
    channel = torch.arange(dim, device=resolve_device(device))
    return torch.cat((channel[0::2], channel[1::2]))


def channel_pair_index(dim: int, layout: str = "half", *, device=None) -> torch.Tensor:
    """The frequency index of each channel: j mod d/2 (half), j // 2 (interleaved). Shape (dim,), int64."""
    dim = _check_dim(dim)
    layout = check_choice("layout", layout, LAYOUTS)
    channel = torch.arange(dim, device=resolve_device(device))
    return channel % (dim // 2) if layout == "half" else channel // 2


def apply(
    x: torch.Tensor,
    positions: Any,
    inv_freq: torch.Tensor,
    *,
    layout: str = "half",
    rotary_dim: int | None = None,
    attention_factor: float = 1.0,
) -> torch.Tensor:
    """R(m) x: x[..., :r]·cos + rot(x[..., :r])·sin, x[..., r:] passed through (r = rotary_dim). Same shape as x.

    x: (..., P, head_dim) float; positions: P values; inv_freq: (r/2,), r = rotary_dim (default 2·len(inv_freq)).
    rot = rotate_half (half) or rotate_every_two (interleaved). Computed in float32 (float64 for float64 x)
    on x's device, returned in x's dtype. Ref: HF ``apply_rotary_pos_emb``; GPT-NeoX/Phi partial rotary.
    """
    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.dim() < 2:
        raise ValueError(f"x must be a float tensor of shape (..., P, head_dim) (got {_describe(x)})")
    layout = check_choice("layout", layout, LAYOUTS)
    freq = _check_inv_freq(inv_freq).to(x.device)
    head_dim = x.shape[-1]
    rotary_dim = _check_rotary_dim(rotary_dim, freq, head_dim)
    pos = _as_positions(positions, x.device)
    if pos.numel() != x.shape[-2]:
        raise ValueError(f"positions must have x.shape[-2] = {x.shape[-2]} values (got {pos.numel()})")
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = cos_sin(
        pos, freq, attention_factor=attention_factor, layout=layout, device=x.device, dtype=work
    )  # (P, r)
    x_rot, x_pass = x[..., :rotary_dim].to(work), x[..., rotary_dim:]
    turn = rotate_half if layout == "half" else rotate_every_two
    rotated = x_rot * cos + turn(x_rot) * sin
    return torch.cat((rotated.to(x.dtype), x_pass), dim=-1)


def relative_scores(
    q: torch.Tensor,
    k: torch.Tensor,
    positions: Any,
    inv_freq: torch.Tensor,
    *,
    key_positions: Any = None,
    layout: str = "half",
    attention_factor: float = 1.0,
) -> torch.Tensor:
    """S[a, b] = (R(m_a) q)·(R(n_b) k) for m = positions, n = key_positions (default positions). Shape (P, K).

    q, k: single vectors (head_dim,) of equal length; channels past 2·len(inv_freq) pass through. Only
    depends on m - n: Σ_i A_i cos((m-n)θ_i) - C_i sin((m-n)θ_i) (+ the pass-through dot). Builds (P, d) and
    (K, d) rotated copies and one matmul, so sampled positions over a long context cost O((P + K)·d + P·K).
    Ref: Su et al. 2021 eq. (16) (q^T R_{n-m} k).
    """
    for name, vector in (("q", q), ("k", k)):
        if not isinstance(vector, torch.Tensor) or not vector.is_floating_point() or vector.dim() != 1:
            raise ValueError(f"{name} must be a 1-D float tensor (head_dim,) (got {_describe(vector)})")
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same length (got {q.shape[0]} and {k.shape[0]})")
    pos = _as_positions(positions, q.device)
    keys = pos if key_positions is None else _as_positions(key_positions, q.device, name="key_positions")
    rotated_q = apply(q.expand(pos.numel(), -1), pos, inv_freq, layout=layout, attention_factor=attention_factor)
    rotated_k = apply(
        k.to(q.device).expand(keys.numel(), -1), keys, inv_freq, layout=layout, attention_factor=attention_factor
    )
    return rotated_q @ rotated_k.T


def _expand(theta: torch.Tensor, layout: str) -> torch.Tensor:
    """(P, d/2) pair angles -> (P, d) channel angles in ``layout``."""
    return torch.cat((theta, theta), dim=-1) if layout == "half" else theta.repeat_interleave(2, dim=-1)


def _check_inv_freq(inv_freq: Any) -> torch.Tensor:
    if not isinstance(inv_freq, torch.Tensor) or not inv_freq.is_floating_point() or inv_freq.dim() != 1:
        raise ValueError(f"inv_freq must be a 1-D float tensor (d/2,) (got {_describe(inv_freq)})")
    if inv_freq.numel() == 0 or not bool(torch.isfinite(inv_freq).all()) or bool((inv_freq <= 0).any()):
        raise ValueError("inv_freq must be non-empty, finite and > 0 (got empty, NaN, inf or <= 0 values)")
    return inv_freq


def _check_dim(dim: Any) -> int:
    dim = check_int("dim", dim, minimum=2)
    if dim % 2:
        raise ValueError(f"dim (the rotary dimension) must be even (got {dim})")
    return dim


def _check_rotary_dim(rotary_dim: Any, freq: torch.Tensor, head_dim: int) -> int:
    expected = 2 * freq.numel()
    if rotary_dim is None:
        rotary_dim = expected
    rotary_dim = check_int("rotary_dim", rotary_dim, minimum=2, maximum=head_dim)
    if rotary_dim % 2:
        raise ValueError(f"rotary_dim must be even (got {rotary_dim})")
    if rotary_dim != expected:
        raise ValueError(f"rotary_dim must equal 2 * len(inv_freq) = {expected} (got {rotary_dim})")
    return rotary_dim


def _even_last_dim(name: str, x: Any) -> int:
    if not isinstance(x, torch.Tensor) or x.dim() < 1 or x.shape[-1] % 2:
        raise ValueError(f"{name} must be a tensor with an even last dimension (got {_describe(x)})")
    return x.shape[-1]


def _as_positions(values: Any, device: torch.device, *, name: str = "positions") -> torch.Tensor:
    """``values`` as a 1-D int64 or float tensor on ``device``, or a ValueError naming ``name``."""
    try:
        vector = torch.as_tensor(values)
    except (TypeError, ValueError, RuntimeError) as error:
        raise ValueError(f"{name} must be a 1-D sequence of numbers (got {type(values).__name__})") from error
    if vector.dim() != 1:
        raise ValueError(f"{name} must be 1-D (got shape {tuple(vector.shape)})")
    if vector.dtype == torch.bool or vector.is_complex():
        raise ValueError(f"{name} must hold real numbers (got dtype {vector.dtype})")
    if vector.is_floating_point() and not bool(torch.isfinite(vector).all()):
        raise ValueError(f"{name} must hold finite numbers (got NaN or inf)")
    return vector.to(device)


def _describe(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"{value.dtype} tensor of shape {tuple(value.shape)}"
    return type(value).__name__
