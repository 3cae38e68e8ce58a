"""posenc_core: positional encodings of transformers, exact to their reference implementations.

One module per family; every tensor-producing function takes ``device=None, dtype=torch.float32``
(None = :func:`posenc_core.device.resolve_device`'s default) and returns torch tensors.

- :mod:`posenc_core.sinusoidal`  absolute sinusoids (Vaswani, Marian, tensor2tensor/fairseq)
- :mod:`posenc_core.learned`     learned position tables (random or loaded from a file); the files are read by
                                 :mod:`posenc_core.table_files`, declared sizes checked before any data
- :mod:`posenc_core.relative`    Shaw et al. clipped indices, T5 buckets
- :mod:`posenc_core.alibi`       ALiBi slopes and biases (Press et al.)
- :mod:`posenc_core.rope`        rotary embeddings; :mod:`posenc_core.rope_scaling` (+ rope_yarn) its context
                                 extensions, :mod:`posenc_core.rope_scaling_keys` the keys each one reads;
                                 :mod:`posenc_core.rope_bounds` long-term decay and the base bound;
                                 :mod:`posenc_core.rope_methods` the methods table (facts in rope_method_facts)
- :mod:`posenc_core.mrope`       Qwen2-VL multimodal RoPE position ids
- :mod:`posenc_core.vision`      2-D positions for image patches: MAE's sin-cos table, timm's table resize;
                                 :mod:`posenc_core.vision_rope` axial 2-D RoPE (Qwen2-VL's vision tower)
- :mod:`posenc_core.nope`        no position encoding: the causal-mask signal, Llama 4's NoPE layers and temperature
- :mod:`posenc_core.attention_sink` StreamingLLM's cache (sink tokens + a window) and the positions it gives
- :mod:`posenc_core.metrics`     similarity and distance statistics of any table
- :mod:`posenc_core.presets`     real models' parameters (published configs); the type in ``preset_type``
- :mod:`posenc_core.sampling`    display-resolution views (windows, sampled positions, envelopes)
- :mod:`posenc_core.attention`   a small self-attention (why attention needs position);
                                 :mod:`posenc_core.recurrent` a small RNN, the contrast
- :mod:`posenc_core.tokens`      splitting an example sentence into tokens (a Han character is one token)
- :mod:`posenc_core.binary_counter` the bits of p beside the sinusoidal pairs that halve like them
- :mod:`posenc_core.encoder_attention` a real encoder's attention (all-MiniLM-L6-v2; its tokenizer in wordpiece)
- :mod:`posenc_core.hf_config`   reading a model's config.json (types and bounds of every key: ``_hf_reader``);
                                 :mod:`posenc_core.hub` fetches one by model id, :mod:`posenc_core.hub_tables` a
                                 model's position table
- :mod:`posenc_core.device`      cuda > mps > cpu
"""

__version__ = "0.1.0"
