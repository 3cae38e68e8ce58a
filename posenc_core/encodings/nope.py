"""NoPE: no position encoding at all. What a causal mask alone tells a model about position, and how Llama 4
mixes NoPE layers with RoPE layers (its "iRoPE" design) and scales their queries up at long range.

A causal mask lets token i see tokens 0..i only. With equal scores (no position signal, nothing learned yet)
its attention is uniform over those i+1 tokens, so its output is the running mean of the values,
o_i = (1 / (i+1)) · Σ_{j<=i} v_j. For zero-mean random values with E‖v‖² = 1 the mean's expected squared norm
is 1 / (i+1): the output's length falls like 1/sqrt(i+1), and a later layer can read i off it
(i ≈ 1/‖o_i‖² - 1). Order is not lost without a position encoding; it is only blurred.

Llama 4 keeps RoPE on most layers and leaves every 4th layer without it (``no_rope_layers``: 1 = RoPE,
0 = NoPE). On the NoPE layers the query is multiplied by a scale that grows with the token's index (HF's
``attn_temperature_tuning``: a larger scale is a lower softmax temperature, sharper attention):
scale(p) = log(floor((p + 1) / floor_scale) + 1) · attn_scale + 1, with p the token's 0-based index in the
sequence (HF: ``arange(new tokens) + tokens already cached``, not ``position_ids``).

Ref: Kazemnejad et al. 2023, arXiv 2305.19466 (NoPE); Haviv et al. 2022, arXiv 2203.16634 (causal models
learn position without encodings); Nakanishi 2025, arXiv 2501.19399 (scalable-softmax temperature);
HF transformers ``models/llama4/modeling_llama4.py`` (``Llama4TextAttention``) and
``configuration_llama4.py`` (``Llama4TextConfig``).
"""

from __future__ import annotations

from typing import Any

import torch

from posenc_core._checks import check_float, check_float_dtype, check_int, check_vector
from posenc_core.device import resolve_device

KEY_CHUNK = 2048  # keys drawn per step: memory stays n_sequences x 2048 x dim


def causal_mean_output_norms(
    positions,
    *,
    dim: int = 64,
    n_sequences: int = 64,
    seed: int = 0,
    device=None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """Measured ‖o_i‖ of uniform causal attention over random values, at each position i given. Shape (P,).

    For each of ``n_sequences`` sequences of values v_j ~ N(0, I/dim) (so E‖v_j‖² = 1; drawn from
    ``seed`` on the CPU in ``dtype``, the same numbers on every device), attention with equal scores under a
    causal mask, w_ij = softmax_j(0 if j <= i else -inf) = 1/(i+1) for j <= i, gives o_i = Σ_j w_ij v_j, the
    running mean (computed from the sums of the values between consecutive positions asked for, drawn in chunks
    of ``KEY_CHUNK`` keys). Returned: the root mean square over the
    sequences of ‖o_i‖, which follows :func:`causal_mean_norm_law` up to sampling noise (relative spread about
    1/sqrt(2 · dim · n_sequences)). Cost: n_sequences · (max(positions)+1) · dim random numbers.
    """
    device = resolve_device(device)
    dtype = check_float_dtype(dtype)
    p = check_vector("positions", positions, device=torch.device("cpu"), integer=True, minimum=0)
    dim = check_int("dim", dim, minimum=1, maximum=4096)
    n_sequences = check_int("n_sequences", n_sequences, minimum=1, maximum=4096)
    seed = check_int("seed", seed, minimum=0)
    if p.numel() == 0:
        return torch.empty(0, device=device, dtype=dtype)
    generator = torch.Generator().manual_seed(seed)
    wanted, index = torch.unique(p, return_inverse=True)  # sorted distinct positions, and where each one went
    segments = torch.zeros(n_sequences, wanted.numel(), dim, dtype=dtype)  # Σ v_j over u_{k-1} < j <= u_k
    n_keys = int(wanted[-1]) + 1
    for start in range(0, n_keys, KEY_CHUNK):
        keys = torch.arange(start, min(start + KEY_CHUNK, n_keys))
        values = torch.randn(n_sequences, keys.numel(), dim, generator=generator, dtype=dtype)  # (S, C, D)
        segments.index_add_(1, torch.searchsorted(wanted, keys), values)
    sums = segments.cumsum(dim=1) / dim**0.5  # (S, U, D): Σ_{j<=i} v_j with v_j ~ N(0, I/dim)
    # the causal softmax of equal scores weighs each visible key by 1/(i+1): o_i = Σ_{j<=i} v_j / (i+1)
    outputs = sums / (wanted.to(dtype) + 1.0)[None, :, None]
    rms = outputs.square().sum(-1).mean(0).sqrt()  # (U,)
    return rms[index].to(device=device)


def causal_mean_norm_law(positions, *, device=None, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The expected law: sqrt(E‖o_i‖²) = 1/sqrt(i+1) for the mean of i+1 independent values with E‖v‖² = 1.
    Shape (P,)."""
    device = resolve_device(device)
    p = check_vector("positions", positions, device=device, integer=True, minimum=0).to(torch.float64)
    return (1.0 / torch.sqrt(p + 1.0)).to(check_float_dtype(dtype))


def position_from_norm(norms, *, device=None, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """What a later layer can read from the mean's length: î = 1/‖o‖² - 1 (the law solved for i). Shape (P,)."""
    device = resolve_device(device)
    n = check_vector("norms", norms, device=device, dtype=torch.float64)
    if n.numel() and bool((n <= 0).any()):
        raise ValueError("norms must all be > 0 (a zero-length mean carries no position)")
    return (1.0 / n.square() - 1.0).to(check_float_dtype(dtype))


def llama4_attention_scale(
    positions,
    *,
    floor_scale: int = 8192,
    attn_scale: float = 0.1,
    device=None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """Llama 4's NoPE-layer query scale (temperature tuning): log(floor((p + 1) / floor_scale) + 1) · attn_scale + 1.

    ``positions`` p are 0-based token indices in the sequence (what HF feeds it: the new tokens' indices after
    the cached ones). 1 for p < floor_scale - 1, then a step up at every multiple of floor_scale. Shape (P,).
    The floor is taken on integers, exactly; HF's float32 gives the same floors for p + 1 < 2**24.
    Ref: HF ``Llama4TextAttention.forward`` (``attn_temperature_tuning``), arXiv 2501.19399.
    """
    device = resolve_device(device)
    p = check_vector("positions", positions, device=device, integer=True, minimum=0)
    floor_scale = check_int("floor_scale", floor_scale, minimum=1)
    attn_scale = check_float("attn_scale", attn_scale, minimum=0.0)
    steps = torch.div(p + 1, floor_scale, rounding_mode="floor").to(torch.float64)
    return (torch.log1p(steps) * attn_scale + 1.0).to(check_float_dtype(dtype))


def llama4_rope_layers(
    num_hidden_layers: int,
    *,
    no_rope_layers: Any = None,
    no_rope_layer_interval: int = 4,
) -> list[bool]:
    """Per layer, True if it applies RoPE, False for a NoPE layer, as HF's ``Llama4TextConfig`` decides.

    ``no_rope_layers`` (despite its name) holds 1 for a RoPE layer and 0 for a NoPE layer, one per layer at
    least (extra entries are unused); None or empty gives HF's default, NoPE on every
    ``no_rope_layer_interval``-th layer: layer l uses RoPE iff (l + 1) % interval != 0 (layers 3, 7, 11, ...
    are NoPE for interval 4). Ref: HF ``configuration_llama4.py`` (``Llama4TextConfig.__post_init__``).
    """
    num_hidden_layers = check_int("num_hidden_layers", num_hidden_layers, minimum=1)
    interval = check_int("no_rope_layer_interval", no_rope_layer_interval, minimum=1)
    if no_rope_layers is None or (hasattr(no_rope_layers, "__len__") and len(no_rope_layers) == 0):
        return [(layer + 1) % interval != 0 for layer in range(num_hidden_layers)]
    if isinstance(no_rope_layers, str | bytes) or not hasattr(no_rope_layers, "__len__"):
        raise ValueError(f"no_rope_layers must be a list of 0/1 per layer (got {no_rope_layers!r})")
    flags = list(no_rope_layers)
    if len(flags) < num_hidden_layers:
        raise ValueError(
            f"no_rope_layers must have at least num_hidden_layers={num_hidden_layers} entries (got {len(flags)})"
        )
    for layer, flag in enumerate(flags[:num_hidden_layers]):
        if flag not in (0, 1) or isinstance(flag, float):
            raise ValueError(f"no_rope_layers must hold 0 (NoPE) or 1 (RoPE) (got {flag!r} at layer {layer})")
    return [bool(flag) for flag in flags[:num_hidden_layers]]
