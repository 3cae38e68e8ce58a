"""The formulas of each positional-encoding family, one module each.

- :mod:`posenc_core.encodings.sinusoidal`     absolute sinusoids (Vaswani, Marian, tensor2tensor/fairseq)
- :mod:`posenc_core.encodings.learned`        learned position tables (random, or read from a weight file)
- :mod:`posenc_core.encodings.relative`       Shaw et al.'s clipped indices, T5's log-spaced buckets
- :mod:`posenc_core.encodings.alibi`          ALiBi's slopes and biases (Press et al.)
- :mod:`posenc_core.encodings.nope`           no position encoding: the causal mask's signal, Llama 4's NoPE layers
- :mod:`posenc_core.encodings.attention_sink` StreamingLLM's cache (sink tokens and a window) and its positions
- :mod:`posenc_core.encodings.vision`         2-D absolute positions for image patches (MAE, timm's resize)
- :mod:`posenc_core.encodings.metrics`        similarity and distance statistics of any position table

RoPE and its variants are their own package, :mod:`posenc_core.rope`.
"""
