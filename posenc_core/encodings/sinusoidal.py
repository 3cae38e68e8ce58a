"""Absolute sinusoidal position encodings in their three published channel layouts.

Every layout is made of pairs: pair i has frequency ω_i and contributes a sin channel sin(p·ω_i) and a cos
channel cos(p·ω_i). The layouts differ in ω_i and in where the two channels of a pair sit (d = d_model):

- ``interleaved`` (Vaswani, HF DistilBERT/XLM): ω_i = base^(-2i/d); channel 2i = sin, 2i+1 = cos.
- ``half`` (HF Marian): same ω_i; the sin channels fill [0, ceil(d/2)), the cos channels follow.
- ``t2t`` (tensor2tensor = fairseq): ω_i = base^(-i/(d//2 - 1)) (timescales 1 .. base), [sin..., cos...].

Odd d leaves one unpaired sin channel, the last pair i = d//2. In ``t2t`` it is the zero padding, written
here as a sin of frequency 0 (sin(p·0) = 0), so every layout has ceil(d/2) frequencies.

A full pair turns by the angle k·ω_i when the position moves by k, so PE(p+k) = M_k PE(p) with M_k block
rotations, and PE(p)·PE(p+k) = Σ_i cos(k·ω_i) does not depend on p.

Precision: angles p·ω are computed in float64 and rounded once to ``dtype`` (HF DistilBERT and Marian do the
same with numpy). Float32 angles would be wrong by up to 0.03 rad at p ≈ 1e6 (the float32 spacing there is
0.0625). On mps, which has no float64, they are computed in float32.

Ref: Vaswani et al. 2017, arXiv 1706.03762 §3.5; HF transformers ``create_sinusoidal_embeddings``
(modeling_distilbert.py) and ``MarianSinusoidalPositionalEmbedding._init_weight``; tensor2tensor
``common_attention.get_timing_signal_1d``; fairseq ``SinusoidalPositionalEmbedding.get_embedding``.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from posenc_core._checks import check_choice, check_float, check_float_dtype, check_int, check_vector
from posenc_core.device import resolve_device, work_dtype

LAYOUTS = ("interleaved", "half", "t2t")
MAX_ENCODING_ELEMENTS = 2**28  # 1 GiB of float32: 32768 x 8192
"""Most values one ``encoding`` call returns (8192 x 8192; 256 MiB in float32)."""
_CHUNK_ELEMENTS = 2**22  # angles are computed this many at a time, so float64 temporaries stay small


def inv_freq(
    d_model: int, *, base: float = 10000.0, layout: str = "interleaved", device=None, dtype=torch.float32
) -> torch.Tensor:
    """ω_i = base^(-2i/d) (interleaved, half) or base^(-i/(d//2 - 1)) (t2t), i = 0 .. ceil(d/2)-1.

    Shape (ceil(d/2),). For t2t with odd d the last entry is 0.0: the zero-padding channel.
    Ref: Vaswani et al. 2017 §3.5; tensor2tensor ``get_timing_signal_1d`` (min_timescale 1, max = base).
    """
    d_model, base, layout = _check_shape_args(d_model, base, layout)
    dtype = check_float_dtype(dtype)
    device, work = _work(device)
    return _inv_freq(d_model, base, layout, device, work).to(dtype)


def channel_pair_index(d_model: int, layout: str = "interleaved", *, device=None) -> torch.Tensor:
    """The pair (frequency) index of every channel: j//2 (interleaved), j mod ceil(d/2) (half), j mod d//2
    (t2t; its odd padding channel gets d//2). Shape (d,), int64."""
    d_model, _, layout = _check_shape_args(d_model, 10000.0, layout)
    return _channel_layout(d_model, layout, resolve_device(device))[0]


def wavelengths(
    d_model: int, *, base: float = 10000.0, layout: str = "interleaved", device=None, dtype=torch.float32
) -> torch.Tensor:
    """λ_j = 2π / ω_pair(j) for every channel j, from the PAIR index (spec §9(d)). Shape (d,).

    The sin and cos channel of a pair share one wavelength; the t2t padding channel is constant (λ = inf).
    """
    d_model, base, layout = _check_shape_args(d_model, base, layout)
    dtype = check_float_dtype(dtype)
    device, work = _work(device)
    pair, _ = _channel_layout(d_model, layout, device)
    return (2.0 * math.pi / _inv_freq(d_model, base, layout, device, work)[pair]).to(dtype)


def encoding(
    seq_len: int | None,
    d_model: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    positions: Any = None,
    channels: Any = None,
    device=None,
    dtype=torch.float32,
) -> torch.Tensor:
    """PE[p, j] = sin(p·ω_pair(j)) or cos(p·ω_pair(j)), per ``layout``. Shape (L, d), or (P, C) when subset.

    ``positions`` (1-D, ints or floats) replaces range(seq_len), e.g. 1000 positions spread over 1,048,576;
    ``seq_len`` is then not used (may be None). ``channels`` (1-D ints in [0, d)) keeps only those columns.
    Angles in float64 (see the module docstring), rounded once to ``dtype``.
    Ref: HF ``create_sinusoidal_embeddings`` / Marian ``_init_weight``; tensor2tensor ``get_timing_signal_1d``.
    """
    d_model, base, layout = _check_shape_args(d_model, base, layout)
    dtype = check_float_dtype(dtype)
    device, work = _work(device)
    if positions is None:
        pos = torch.arange(check_int("seq_len", seq_len, minimum=0), device=device, dtype=work)
    else:
        if seq_len is not None:
            check_int("seq_len", seq_len, minimum=0)
        pos = check_vector("positions", positions, device=device, dtype=work)
    pair, is_sin = _channel_layout(d_model, layout, device)
    if channels is not None:
        chosen = check_vector("channels", channels, device=device, integer=True, minimum=0, maximum=d_model - 1)
        pair, is_sin = pair[chosen], is_sin[chosen]
    if pos.numel() * pair.numel() > MAX_ENCODING_ELEMENTS:
        raise ValueError(
            f"seq_len/positions x channels must be at most {MAX_ENCODING_ELEMENTS} values (e.g. 32768 x 8192) "
            f"(got {pos.numel()} x {pair.numel()}); pass fewer positions or channels"
        )
    freq = _inv_freq(d_model, base, layout, device, work)[pair]  # (C,)
    sin_cols, cos_cols = is_sin.nonzero().squeeze(1), (~is_sin).nonzero().squeeze(1)
    out = torch.empty(pos.numel(), pair.numel(), device=device, dtype=dtype)
    rows = max(1, _CHUNK_ELEMENTS // max(1, pair.numel()))
    for start in range(0, pos.numel(), rows):
        block = pos[start : start + rows, None]  # (rows, 1), float64
        out[start : start + rows, sin_cols] = torch.sin(block * freq[sin_cols]).to(dtype)
        out[start : start + rows, cos_cols] = torch.cos(block * freq[cos_cols]).to(dtype)
    return out


def relative_similarity(
    offsets: Any,
    d_model: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    position: float = 0.0,
    device=None,
    dtype=torch.float32,
) -> torch.Tensor:
    """s(k) = PE(p)·PE(p+k) = Σ_{full pairs} cos(k·ω_i) + sin(p·ω_u)·sin((p+k)·ω_u). Shape (K,).

    Exact for every k (ints or floats). Each full pair gives sin(pω)sin((p+k)ω) + cos(pω)cos((p+k)ω) = cos(kω),
    whatever p. The last term exists only for odd d: the unpaired sin channel u. In t2t that channel is the
    zero padding (ω_u = 0), so the term is 0. In interleaved and half it is (cos(kω_u) - cos((2p+k)ω_u))/2,
    which depends on p: the result is then exact for p = ``position`` (default 0, where the term is 0).
    For even d (and for t2t) the result is the same for every ``position``.
    """
    d_model, base, layout = _check_shape_args(d_model, base, layout)
    position = check_float("position", position)
    dtype = check_float_dtype(dtype)
    device, work = _work(device)
    k = check_vector("offsets", offsets, device=device, dtype=work)
    freq = _inv_freq(d_model, base, layout, device, work)
    full, unpaired = freq[: d_model // 2], freq[d_model // 2 :]  # unpaired: 0 or 1 frequency
    out = torch.empty(k.numel(), device=device, dtype=dtype)
    rows = max(1, _CHUNK_ELEMENTS // max(1, full.numel()))
    for start in range(0, k.numel(), rows):
        kk = k[start : start + rows, None]  # (rows, 1)
        paired = torch.cos(kk * full).sum(-1)
        lone = (torch.sin(position * unpaired) * torch.sin((position + kk) * unpaired)).sum(-1)
        out[start : start + rows] = paired + lone
    return out


def linear_map(
    offset: float,
    d_model: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    device=None,
    dtype=torch.float32,
) -> torch.Tensor:
    """M_k with PE(p+k) = M_k PE(p): on each pair [sin; cos] -> [[cos kω, sin kω], [-sin kω, cos kω]]. (d, d).

    Exact for every full pair (sin(a+b) = sin a cos b + cos a sin b). The unpaired sin channel of an odd d gets
    cos(kω_u) on the diagonal: exact for t2t (the zero channel, ω_u = 0); for interleaved and half that row
    misses cos(pω_u)·sin(kω_u), because that channel has no cos partner to rotate with.
    """
    d_model, base, layout = _check_shape_args(d_model, base, layout)
    offset = check_float("offset", offset)
    dtype = check_float_dtype(dtype)
    device, work = _work(device)
    angle = offset * _inv_freq(d_model, base, layout, device, work)  # (P,)
    pair, is_sin = _channel_layout(d_model, layout, device)
    channel = torch.arange(d_model, device=device)
    sin_of = torch.empty_like(angle, dtype=torch.int64)
    sin_of[pair[is_sin]] = channel[is_sin]  # the sin channel of each pair
    cos_of = torch.empty(d_model // 2, device=device, dtype=torch.int64)
    cos_of[pair[~is_sin]] = channel[~is_sin]  # the cos channel of each full pair
    full = slice(0, d_model // 2)
    m = torch.zeros(d_model, d_model, device=device, dtype=work)
    m[sin_of, sin_of] = torch.cos(angle)
    m[cos_of, cos_of] = torch.cos(angle[full])
    m[sin_of[full], cos_of] = torch.sin(angle[full])
    m[cos_of, sin_of[full]] = -torch.sin(angle[full])
    return m.to(dtype)


def _check_shape_args(d_model: Any, base: Any, layout: Any) -> tuple[int, float, str]:
    d_model = check_int("d_model", d_model, minimum=1)
    base = check_float("base", base, greater_than=1.0)
    layout = check_choice("layout", layout, LAYOUTS)
    if layout == "t2t" and d_model < 4:
        raise ValueError(
            f"d_model must be >= 4 for layout 't2t' (got {d_model}): its frequencies base^(-i/(d_model//2 - 1)) "
            "divide by zero when d_model//2 == 1"
        )
    return d_model, base, layout


def _work(device) -> tuple[torch.device, torch.dtype]:
    """The device, and the dtype angles are computed in there (float64; mps has none, so float32)."""
    device = resolve_device(device)
    return device, work_dtype(device)


def _inv_freq(d: int, base: float, layout: str, device: torch.device, work: torch.dtype) -> torch.Tensor:
    pair = torch.arange((d + 1) // 2, device=device, dtype=work)
    if layout != "t2t":
        return base ** (-2.0 * pair / d)
    freq = base ** (-pair / (d // 2 - 1))
    if d % 2:
        freq[-1] = 0.0  # the zero padding of an odd d_model
    return freq


def _channel_layout(d: int, layout: str, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """(pair index (d,) int64, is_sin (d,) bool) of every channel."""
    channel = torch.arange(d, device=device)
    if layout == "interleaved":
        return channel // 2, channel % 2 == 0
    n_sin = (d + 1) // 2 if layout == "half" else d // 2
    is_sin = channel < n_sin
    pair = torch.where(is_sin, channel, channel - n_sin)
    if layout == "t2t" and d % 2:
        pair[-1], is_sin[-1] = n_sin, True  # the padding: a sin of frequency 0
    return pair, is_sin
