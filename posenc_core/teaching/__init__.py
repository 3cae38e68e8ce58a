"""The small models the lessons and the Why page run: what attention does without position, and its contrasts.

- :mod:`posenc_core.teaching.attention`         a small single-head self-attention (permutation-equivariant)
- :mod:`posenc_core.teaching.recurrent`         a tiny RNN, where position is the step a token is read at
- :mod:`posenc_core.teaching.tokens`            an example sentence split into tokens (a Han character is one)
- :mod:`posenc_core.teaching.binary_counter`    the bits of p beside the sinusoidal pairs that halve like them
- :mod:`posenc_core.teaching.encoder_attention` a real BERT encoder's attention to [CLS] and [SEP], from its
                                                weights; its tokenizer in :mod:`~posenc_core.teaching.wordpiece`
"""
