"""The comparison table of positional-encoding schemes shown on the Why-position and Compare pages."""

from __future__ import annotations

SCHEME_FACTS = [
    {
        "scheme": "Sinusoidal (absolute)",
        "trainable": "no",
        "extrapolates past training length": "defined everywhere, poorly used past training",
        "relative": "PE(p+k) is a fixed rotation of PE(p)",
        "where it acts": "added to the input embeddings",
        "used by": "Transformer (Vaswani 2017), Marian, fairseq models",
    },
    {
        "scheme": "Learned absolute",
        "trainable": "yes",
        "extrapolates past training length": "no: no row exists past max_len",
        "relative": "no",
        "where it acts": "added to the input embeddings",
        "used by": "BERT, GPT-2, RoBERTa, OPT",
    },
    {
        "scheme": "Shaw relative",
        "trainable": "yes",
        "extrapolates past training length": "yes, distances past k are clipped to k",
        "relative": "yes",
        "where it acts": "added to keys (and values) in every layer",
        "used by": "Music Transformer, early relative models",
    },
    {
        "scheme": "T5 buckets",
        "trainable": "yes (one scalar per bucket and head)",
        "extrapolates past training length": "yes, far distances share the last bucket",
        "relative": "yes",
        "where it acts": "bias on the attention logits",
        "used by": "T5, Flan-T5, mT5",
    },
    {
        "scheme": "ALiBi",
        "trainable": "no",
        "extrapolates past training length": "yes (linear penalty grows with distance)",
        "relative": "yes",
        "where it acts": "bias on the attention logits",
        "used by": "BLOOM, MPT, Falcon (some)",
    },
    {
        "scheme": "RoPE",
        "trainable": "no",
        "extrapolates past training length": "not by itself; with scaling (PI, NTK, YaRN, Llama-3, LongRoPE)",
        "relative": "yes: q_m·k_n depends only on m - n",
        "where it acts": "rotates queries and keys in every layer",
        "used by": "Llama, Mistral, Qwen, Gemma, Phi, DeepSeek, GPT-NeoX, GPT-J",
    },
    {
        "scheme": "M-RoPE",
        "trainable": "no",
        "extrapolates past training length": "as RoPE",
        "relative": "yes, per axis (time, height, width)",
        "where it acts": "rotates queries and keys; frequency bands per axis",
        "used by": "Qwen2-VL, Qwen2.5-VL",
    },
]
