"""The code behind the Why page's attention figure, in PyTorch: the same seeded random embeddings and weights as
``posenc_core.teaching.attention``, then one head of self-attention, with and without Vaswani's sinusoidal PE added.

Ref: Vaswani et al. 2017, arXiv 1706.03762, sections 3.2.1 and 3.5.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, code_block, figure_data, literal, register_code
from posenc_core.teaching.tokens import split_tokens


@register_code("why-attention")
def attention_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        f"""
        A = {literal(split_tokens(values["sentence_a"]))}  # words; a Chinese character is a token of its own
        B = {literal(split_tokens(values["sentence_b"]))}
        d = {literal(values["embedding_dim"])}  # embedding_dim
        """,
        """
        def embed(words):  # one fixed random vector per distinct word (case-insensitive), N(0, 1/d), seed 0
            vocabulary = sorted({w.lower() for w in words})
            table = torch.randn(len(vocabulary), d, generator=torch.Generator().manual_seed(0)) / math.sqrt(d)
            return table[[vocabulary.index(w.lower()) for w in words]]
        """,
        """
        def sinusoidal(length):  # PE[p, 2i] = sin(p·ω_i), PE[p, 2i+1] = cos(p·ω_i), ω_i = 10000^(-2i/d)
            angle = torch.arange(length).double()[:, None] * 10000.0 ** (-2 * torch.arange((d + 1) // 2).double() / d)
            pe = torch.zeros(length, d, dtype=torch.float64)
            pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle[:, : d // 2].cos()
            return pe.float()
        """,
        """
        g = torch.Generator().manual_seed(1)  # one head's fixed random projections
        W_q, W_k = (torch.randn(d, d, generator=g) / math.sqrt(d) for _ in range(2))
        def attention(x):  # softmax(Q Kᵀ / √d), no mask: every word sees every word
            return torch.softmax((x @ W_q) @ (x @ W_k).T / math.sqrt(d), dim=-1)
        """,
        """
        result = {}
        for name, words in (("A", A), ("B", B)):
            x = embed(words)
            result[f"weights_{name}_no_PE"] = attention(x)  # the same words give the same weights, whatever the order
            result[f"weights_{name}_sinusoidal_PE"] = attention(x + sinusoidal(len(words)))
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=lambda: figure_data("why-attention", values))
