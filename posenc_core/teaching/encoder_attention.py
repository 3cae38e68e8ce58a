"""A real BERT encoder's attention, computed from its weights: how much each layer and head attends to the first
token ([CLS]) and to [SEP], the "attention sink" tokens that take attention a head has nowhere better to put.

Forward pass (post-LayerNorm BERT, no dropout, one sentence, no padding), x: (L, H), h heads of size d = H/h:

    x_0 = LayerNorm(E_word[ids] + E_pos[0..L-1] + E_type[0])
    per layer:  Q, K, V = x W_q^T + b_q, ...   (split into h heads of d channels)
                A = softmax(Q K^T / sqrt(d))   (h, L, L): the attention probabilities returned
                x = LayerNorm(x + (A V merged) W_o^T + b_o)
                x = LayerNorm(x + GELU(x W_1^T + b_1) W_2^T + b_2)   (GELU with erf)

Ref: Devlin et al. 2019, arXiv 1810.04805; Vaswani et al. 2017, arXiv 1706.03762; HF transformers
``modeling_bert.py`` (BertEmbeddings, BertSelfAttention with ``eager_attention_forward``, BertLayer). Sinks:
Clark et al. 2019, arXiv 1906.04341 ("What does BERT look at?", attention to [CLS] and [SEP]); Xiao et al. 2023,
arXiv 2309.17453 (StreamingLLM).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import torch

from posenc_core._checks import check_float_dtype
from posenc_core.device import resolve_device
from posenc_core.encodings import learned

BUILTIN_ENCODER = "all-MiniLM-L6-v2"  # the built-in learned table's package holds the whole encoder


@dataclass(frozen=True)
class BertEncoder:
    """A BERT encoder's configuration and weights (tensor name -> tensor, HF's names without a ``bert.``)."""

    folder: Path
    n_layers: int
    n_heads: int
    hidden_size: int
    layer_norm_eps: float
    max_positions: int
    weights: dict[str, torch.Tensor]


def builtin_encoder_folder() -> Path | None:
    """The folder of the built-in all-MiniLM-L6-v2 (config.json, model.safetensors, vocab.txt), found as
    ``posenc_core.encodings.learned.builtin_tables`` finds its table; None when its package is not installed."""
    table = learned.builtin_tables().get(BUILTIN_ENCODER)
    return None if table is None else table.path.parent


def load_encoder(folder: str | Path, *, device=None, dtype: torch.dtype = torch.float32) -> BertEncoder:
    """Read config.json and model.safetensors of a BERT model folder."""
    from safetensors.torch import load_file  # safetensors comes with transformers; only this loader needs it

    folder = Path(folder)
    config_path, weights_path = folder / "config.json", folder / "model.safetensors"
    if not config_path.is_file() or not weights_path.is_file():
        raise ValueError(f"folder must hold config.json and model.safetensors (got {str(folder)!r})")
    config = json.loads(config_path.read_text(encoding="utf-8"))
    if config.get("model_type") != "bert" or config.get("hidden_act", "gelu") != "gelu":
        raise ValueError(f"folder must hold a BERT model with GELU (got model_type {config.get('model_type')!r})")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError("folder must hold a BERT model with absolute position embeddings")
    device, dtype = resolve_device(device), check_float_dtype(dtype)
    tensors = load_file(str(weights_path), device="cpu")
    weights = {name.removeprefix("bert."): t.to(device=device, dtype=dtype) for name, t in tensors.items()}
    return BertEncoder(
        folder,
        int(config["num_hidden_layers"]),
        int(config["num_attention_heads"]),
        int(config["hidden_size"]),
        float(config["layer_norm_eps"]),
        int(config["max_position_embeddings"]),
        weights,
    )


def _linear(x: torch.Tensor, weights: dict[str, torch.Tensor], name: str) -> torch.Tensor:
    return x @ weights[f"{name}.weight"].T + weights[f"{name}.bias"]


def _layer_norm(x: torch.Tensor, weights: dict[str, torch.Tensor], name: str, eps: float) -> torch.Tensor:
    shape = x.shape[-1:]
    return torch.nn.functional.layer_norm(x, shape, weights[f"{name}.weight"], weights[f"{name}.bias"], eps)


def attention_probabilities(encoder: BertEncoder, input_ids) -> torch.Tensor:
    """softmax(Q K^T / sqrt(d)) of every layer and head for one sequence of token ids (with its [CLS] and [SEP]).
    Shape (layers, heads, L, L), rows (queries) summing to 1."""
    w = encoder.weights
    device = w["embeddings.word_embeddings.weight"].device
    ids = torch.as_tensor(input_ids, dtype=torch.int64, device=device)
    if ids.dim() != 1 or not 1 <= ids.numel() <= encoder.max_positions:
        raise ValueError(f"input_ids must be 1-D with 1 to {encoder.max_positions} ids (got shape {tuple(ids.shape)})")
    vocab_size = w["embeddings.word_embeddings.weight"].shape[0]
    if int(ids.min()) < 0 or int(ids.max()) >= vocab_size:
        raise ValueError(f"input_ids must be in 0..{vocab_size - 1} (got {int(ids.min())}..{int(ids.max())})")
    length, heads, eps = ids.numel(), encoder.n_heads, encoder.layer_norm_eps
    head_size = encoder.hidden_size // heads
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:length]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = _layer_norm(x, w, "embeddings.LayerNorm", eps)  # (L, H)
    probabilities = []
    for layer in range(encoder.n_layers):
        prefix = f"encoder.layer.{layer}"
        q, k, v = (
            _linear(x, w, f"{prefix}.attention.self.{name}").view(length, heads, head_size).transpose(0, 1)
            for name in ("query", "key", "value")
        )  # (h, L, d) each
        attention = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(head_size), dim=-1)  # (h, L, L)
        probabilities.append(attention)
        context = (attention @ v).transpose(0, 1).reshape(length, encoder.hidden_size)  # heads merged: (L, H)
        x = _layer_norm(
            x + _linear(context, w, f"{prefix}.attention.output.dense"), w, f"{prefix}.attention.output.LayerNorm", eps
        )
        hidden = torch.nn.functional.gelu(_linear(x, w, f"{prefix}.intermediate.dense"))  # erf GELU, as HF "gelu"
        x = _layer_norm(x + _linear(hidden, w, f"{prefix}.output.dense"), w, f"{prefix}.output.LayerNorm", eps)
    return torch.stack(probabilities)


@dataclass(frozen=True)
class AttentionShare:
    first: torch.Tensor  # (layers, heads): mean over queries of the attention on key 0 ([CLS])
    sep: torch.Tensor  # (layers, heads): mean over queries of the attention on the [SEP] keys together


def first_token_attention_share(probabilities: torch.Tensor, sep_positions) -> AttentionShare:
    """share_first[l, h] = mean_q A[l, h, q, 0]; share_sep[l, h] = mean_q Σ_{s in sep_positions} A[l, h, q, s].

    probabilities: (layers, heads, L, L) with rows summing to 1; a uniform head gives 1/L on each key.
    """
    if probabilities.dim() != 4 or probabilities.shape[-1] != probabilities.shape[-2]:
        raise ValueError(f"probabilities must have shape (layers, heads, L, L) (got {tuple(probabilities.shape)})")
    length = probabilities.shape[-1]
    seps = torch.as_tensor(sep_positions, dtype=torch.int64).reshape(-1)
    if seps.numel() == 0 or int(seps.min()) < 0 or int(seps.max()) >= length:
        raise ValueError(f"sep_positions must hold key positions in 0..{length - 1} (got {seps.tolist()})")
    mean_over_queries = probabilities.mean(dim=-2)  # (layers, heads, L): the average query's attention on each key
    return AttentionShare(mean_over_queries[..., 0], mean_over_queries[..., seps.to(probabilities.device)].sum(-1))
