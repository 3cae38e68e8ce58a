"""The tiny Llama the conformance run serves: random weights, written with transformers, and a tokenizer built
offline with ``tokenizers`` (no download).

The model is small enough to run 1,024 tokens through in a fraction of a second on a CPU, yet RoPE matters to its
output: the query and key projections are drawn large (std 0.5 instead of 0.02) so that attention scores span
several nats and a change of frequency moves the next-token log-probabilities by far more than the comparison's
tolerance (:func:`conformance.runner.sensitivity` measures it on every run).

config.json is written by hand in the form most published Llama checkpoints still carry (``rope_theta`` at the
top level, no ``rope_scaling``), which is what a person pastes the planner's blocks into.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TRAINED_LENGTH = 256
"""L: the tiny model's max_position_embeddings (the length it is said to be trained on)."""
TARGET = 4 * TRAINED_LENGTH
"""T: the length each plan extends it to (4x)."""
SEED = 34
_CHARACTERS = "▁abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
VOCAB_SIZE = 3 + 256 + len(_CHARACTERS)
"""<unk> <s> </s>, the 256 byte tokens, 63 characters: 322."""

CONFIG: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 32,
    "hidden_act": "silu",
    "max_position_embeddings": TRAINED_LENGTH,
    "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0,
    "vocab_size": VOCAB_SIZE,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "mlp_bias": False,
    "torch_dtype": "float32",
}
"""The tiny model's config.json: hidden 64, 2 layers, 4 query heads and 2 key/value heads of dim 32 (the smallest
head dim vLLM's CPU attention takes), L = 256."""


def vocabulary() -> dict[str, int]:
    """Llama 2's layout: three specials, the 256 byte-fallback tokens, then single characters."""
    tokens = ["<unk>", "<s>", "</s>", *(f"<0x{byte:02X}>" for byte in range(256)), *_CHARACTERS]
    return {token: index for index, token in enumerate(tokens)}


def write_tokenizer(folder: Path) -> None:
    """tokenizer.json (a Llama 2 style BPE with byte fallback, so llama.cpp's converter reads it as a Llama
    vocabulary) and tokenizer_config.json."""
    from tokenizers import Tokenizer, decoders, models, normalizers

    tokenizer = Tokenizer(models.BPE(vocab=vocabulary(), merges=[], unk_token="<unk>", byte_fallback=True))
    tokenizer.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tokenizer.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    tokenizer.add_special_tokens(["<unk>", "<s>", "</s>"])
    tokenizer.save(str(folder / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "add_bos_token": True,
        "add_eos_token": False,
        "model_max_length": TRAINED_LENGTH,
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")


def write_tiny_llama(folder: Path) -> Path:
    """Write the tiny Llama (config.json, model.safetensors, tokenizer) into ``folder`` and return it."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(SEED)
    model = LlamaForCausalLM(LlamaConfig(**CONFIG)).to(torch.float32)
    with torch.no_grad():
        for name, weight in model.named_parameters():
            if name.endswith(("q_proj.weight", "k_proj.weight")):
                weight.normal_(0.0, 0.5)
            elif name.endswith("embed_tokens.weight"):
                weight.normal_(0.0, 1.0)
            elif weight.dim() == 2:
                weight.normal_(0.0, 0.1)
    model.save_pretrained(folder, safe_serialization=True)
    (folder / "config.json").write_text(json.dumps(CONFIG, indent=2) + "\n")
    (folder / "generation_config.json").unlink(missing_ok=True)
    write_tokenizer(folder)
    return folder


def prompt_tokens(length: int = TARGET - 1, seed: int = SEED) -> list[int]:
    """The fixed prompt every runtime scores: BOS then ``length - 1`` ids drawn from the non-special tokens.
    T - 1 tokens by default: a server asked for one more token (vLLM's completions need max_tokens >= 1) must fit
    prompt and answer in T."""
    import random

    rng = random.Random(seed)
    return [CONFIG["bos_token_id"], *(rng.randrange(3, VOCAB_SIZE) for _ in range(length - 1))]
