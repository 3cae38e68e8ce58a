"""The code behind the RNN figures of the Why page, in PyTorch: the same seeded random embeddings and weights as
``posenc_core.teaching.attention`` and ``posenc_core.teaching.recurrent``, then Elman's recurrence as a plain loop.

Ref: Elman 1990, "Finding structure in time"; Vaswani et al. 2017, arXiv 1706.03762, section 3.5.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc.drawing.code import Snippet, code_block, figure_data, literal, register_code
from posenc_core.teaching.tokens import split_tokens

SETUP = """
def embed(words, d):  # one fixed random vector per distinct word (case-insensitive), N(0, 1/d), seed 0
    vocabulary = sorted({w.lower() for w in words})
    table = torch.randn(len(vocabulary), d, generator=torch.Generator().manual_seed(0)) / math.sqrt(d)
    return table[[vocabulary.index(w.lower()) for w in words]]

g = torch.Generator().manual_seed(2)  # the RNN's fixed random weights
W = (torch.randn(hidden_dim, hidden_dim, generator=g, dtype=torch.float64) / math.sqrt(hidden_dim)).float()
U = torch.randn(hidden_dim, embedding_dim, generator=g, dtype=torch.float64).float()

def rnn(x):  # h_t = tanh(W h_{t-1} + U x_t), h_{-1} = 0: one step after another
    h, states = torch.zeros(hidden_dim), []
    for x_t in x:
        h = torch.tanh(W @ h + U @ x_t)
        states.append(h)
    return torch.stack(states)
"""


def _inputs(values: Mapping[str, Any]) -> str:
    return "\n".join(
        [
            f"A = {literal(split_tokens(values['sentence_a']))}  # words; a Chinese character is a token of its own",
            f"B = {literal(split_tokens(values['sentence_b']))}",
            f"embedding_dim = {literal(values['embedding_dim'])}",
            f"hidden_dim = {literal(values['hidden_dim'])}",
        ]
    )


@register_code("why-rnn-states")
def rnn_states_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        _inputs(values),
        SETUP,
        """
        result = {"states_A": rnn(embed(A, embedding_dim)), "states_B": rnn(embed(B, embedding_dim))}
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=lambda: figure_data("why-rnn-states", values))


@register_code("why-rnn-vs-attention")
def rnn_against_attention_code(values: Mapping[str, Any]) -> Snippet:
    source = code_block(
        _inputs(values),
        SETUP,
        """
        g = torch.Generator().manual_seed(1)  # one attention head's fixed random weights, no mask
        Wq, Wk, Wv = (torch.randn(embedding_dim, embedding_dim, generator=g) / math.sqrt(embedding_dim) for _ in "qkv")

        def attend(x):  # softmax(Q K^T / sqrt(d)) V
            return torch.softmax((x @ Wq) @ (x @ Wk).T / math.sqrt(embedding_dim), dim=-1) @ (x @ Wv)

        in_b, seen = [], []  # for each word of A, the same word in B (a repeated word matched in order)
        for w in A:
            in_b.append(next(i for i, v in enumerate(B) if v.lower() == w.lower() and i not in seen))
            seen.append(in_b[-1])

        def gap(out_a, out_b):  # largest difference between each word's output in A and in B
            return (out_a - out_b[in_b]).abs().amax(dim=-1)

        x_a, x_b = embed(A, embedding_dim), embed(B, embedding_dim)
        result = {"rnn_gap": gap(rnn(x_a), rnn(x_b)), "attention_gap": gap(attend(x_a), attend(x_b))}
        """,
        imports=("math", "torch"),
    )
    return Snippet(source, expected=lambda: figure_data("why-rnn-vs-attention", values))
