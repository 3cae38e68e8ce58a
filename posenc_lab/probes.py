"""Looking inside a trained lab model: one head's attention, and which RoPE frequency pairs its queries and keys use.

- :func:`attention` — the softmax of one layer's logits (H, T, T) on a window of the evaluation text, the
  layer's input computed by the model itself.
- :func:`pair_norms` — for a RoPE model, the mean norm of each rotation pair of the queries and keys before they
  are turned, per head: ‖(x_i, x_{i+d/2})‖ in the half layout, pair i turning at θ_i = base^(-2i/d). Pairs with
  large norms carry the attention; Barbero et al. (2025, "Round and round we go! What makes Rotary Positional
  Encodings useful?") find trained models lean on the slowest pairs for meaning and the fastest for position.
"""

from __future__ import annotations

import torch

from posenc_lab.evaluate import evaluation_tokens
from posenc_lab.model import LabModel


def window(length: int, start: int = 0) -> torch.Tensor:
    """Tokens ``start..start+length-1`` of the evaluation text, shape (1, length)."""
    return evaluation_tokens()[start : start + length].unsqueeze(0)


def _check_layer(model: LabModel, layer: int) -> int:
    layers = model.config.n_layers
    if not isinstance(layer, int) or isinstance(layer, bool) or not 0 <= layer < layers:
        raise ValueError(f"layer must be a whole number from 0 to {layers - 1} (got {layer!r})")
    return layer


def layer_input(model: LabModel, tokens: torch.Tensor, layer: int) -> torch.Tensor:
    """The normalised input of block ``layer``'s attention for ``tokens`` (B, T)."""
    positions = model.positions(tokens.shape[1], tokens.device)
    x = model.residual_input(tokens)
    for block in model.blocks[:layer]:
        x = block(x, positions)
    return model.blocks[layer].norm_attention(x)


def attention(model: LabModel, tokens: torch.Tensor, layer: int = 0) -> torch.Tensor:
    """Attention weights of every head of block ``layer`` for ``tokens`` (1, T): (H, T, T), rows sum to 1."""
    layer = _check_layer(model, layer)
    device = next(model.parameters()).device
    with torch.no_grad():
        tokens = tokens.to(device)
        x = layer_input(model, tokens, layer)
        logits, _ = model.blocks[layer].attention.logits(x, model.positions(tokens.shape[1], device))
        return logits.softmax(dim=-1)[0].cpu()


def pair_norms(model: LabModel, tokens: torch.Tensor, layer: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """(query, key) mean pair norms of block ``layer`` before rotation, each (H, head_dim / 2)."""
    layer = _check_layer(model, layer)
    device = next(model.parameters()).device
    config = model.config
    with torch.no_grad():
        tokens = tokens.to(device)
        x = layer_input(model, tokens, layer)
        q, k, _ = model.blocks[layer].attention.qkv(x).chunk(3, dim=-1)
        half = config.head_dim // 2

        def norms(part: torch.Tensor) -> torch.Tensor:
            heads = part.view(*part.shape[:2], config.n_heads, config.head_dim)  # (B, T, H, head_dim)
            pairs = torch.stack((heads[..., :half], heads[..., half:]), dim=-1)  # (B, T, H, half, 2)
            return pairs.norm(dim=-1).mean(dim=(0, 1)).cpu()  # (H, half)

        return norms(q), norms(k)
