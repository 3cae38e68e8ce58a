"""Why attention needs position: the same self-attention over two word orders, with and without PE."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plotly.subplots import make_subplots

from figures.common import as_array
from figures.params import ParamSpec, register_param
from figures.registry import FigureResult, register
from figures.theme import SEQUENTIAL_SCALE
from posenc_core import attention, sinusoidal

register_param(ParamSpec("sentence_a", "text", "The cat sat on the mat", "Sentence A"))


register_param(
    ParamSpec(
        "embedding_dim", "int", 16, "Embedding width", 2, 512, widget="number", help="Width of the toy embeddings."
    )
)


register_param(
    ParamSpec("sentence_b", "text", "The mat sat on the cat", "Sentence B", help="The same words in another order.")
)


def example_pair(sentence_a: str, sentence_b: str) -> tuple[str, str, tuple[int, int], tuple[int, int]] | None:
    """Two words to quote, each once in each sentence, the first of them moved: (query word, key word, their
    positions in A, their positions in B); None when the sentences have no such words."""
    words_a, words_b = sentence_a.lower().split(), sentence_b.lower().split()
    once = [w for w in dict.fromkeys(words_a) if words_a.count(w) == 1 and words_b.count(w) == 1]
    moved = [w for w in once if words_a.index(w) != words_b.index(w)]
    if not moved or len(once) < 2:
        return None
    query = moved[0]
    key = next(w for w in [*moved[1:], *once] if w != query)
    originals_a = sentence_a.split()
    return (
        originals_a[words_a.index(query)],
        originals_a[words_a.index(key)],
        (words_a.index(query), words_a.index(key)),
        (words_b.index(query), words_b.index(key)),
    )


def in_order_of(tokens_a: list[str], tokens_b: list[str]) -> list[int]:
    """For each word of A, the position of the same word in B (a repeated word matched in order of occurrence)."""
    remaining: dict[str, list[int]] = {}
    for index, token in enumerate(tokens_b):
        remaining.setdefault(token.lower(), []).append(index)
    return [remaining[token.lower()].pop(0) for token in tokens_a]


def _tokens(name: str, text: str) -> list[str]:
    tokens = text.split()
    if not 1 <= len(tokens) <= 32:
        raise ValueError(f"{name} must hold 1 to 32 words separated by spaces (got {len(tokens)})")
    return tokens


@register(
    "why-attention",
    title="Self-attention with and without positional encoding",
    page="why_position",
    params=("sentence_a", "sentence_b", "embedding_dim"),
)
def attention_with_and_without_position(p: Mapping[str, Any]) -> FigureResult:
    tokens_a, tokens_b = _tokens("sentence_a", p["sentence_a"]), _tokens("sentence_b", p["sentence_b"])
    if sorted(t.lower() for t in tokens_a) != sorted(t.lower() for t in tokens_b):
        raise ValueError("sentence_b must hold the same words as sentence_a, in another order")
    d_model, device = p["embedding_dim"], p["device"]
    cases, gaps, data = {}, {}, {}
    for label, use_pe in (("no PE", False), ("sinusoidal PE", True)):
        results = []
        for name, tokens in (("A", tokens_a), ("B", tokens_b)):
            x = attention.token_embeddings(tokens, d_model, device=device)
            if use_pe:
                x = x + sinusoidal.encoding(len(tokens), d_model, device=device)
            results.append(attention.self_attention(x))
            data[f"weights_{name}_{label.replace(' ', '_')}"] = as_array(results[-1].weights)
        cases[label] = results
        gaps[label] = attention.token_output_gap(tokens_a, results[0], tokens_b, results[1])
    fig = make_subplots(
        rows=2,
        cols=2,
        subplot_titles=[f"{s}, {label}" for label in ("no PE", "with PE") for s in ("A", "B")],
        horizontal_spacing=0.06,
        vertical_spacing=0.16,
    )
    order = in_order_of(tokens_a, tokens_b)  # B is drawn in A's word order: equal pictures, equal attention
    drawn = {"A": (list(range(len(tokens_a))), tokens_a), "B": (order, tokens_b)}
    for row, results in enumerate(cases.values(), start=1):
        for col, ((rows, tokens), result) in enumerate(zip(drawn.values(), results, strict=True), start=1):
            names = [f"{i}:{tokens[i]}" for i in rows]
            fig.add_heatmap(
                z=as_array(result.weights[rows][:, rows]),
                x=names,
                y=names,
                row=row,
                col=col,
                coloraxis="coloraxis",
                hovertemplate="query %{y}<br>key %{x}<br>weight %{z:.4f}<extra></extra>",
            )
            # A's query words on the left, B's on the right: neither label column runs into the other heatmap
            fig.update_yaxes(autorange="reversed", side="left" if col == 1 else "right", row=row, col=col)
            fig.update_xaxes(title_text="key" if row == 2 else None, row=row, col=col)
    fig.update_yaxes(title_text="query", row=1, col=1)
    fig.update_yaxes(title_text="query", row=2, col=1)
    colorbar = {
        "title": {"text": "attention weight", "side": "top"},
        "orientation": "h",
        "x": 0.5,
        "y": -0.2,
        "yanchor": "top",
        "len": 0.8,
        "thickness": 12,
        "nticks": 5,
    }
    fig.update_layout(
        title=f"Attention weights of one head, d_model={d_model}<br>A = {p['sentence_a']!r}<br>B = {p['sentence_b']!r}",
        coloraxis={"colorscale": SEQUENTIAL_SCALE, "cmin": 0, "colorbar": colorbar},
        height=820,
        margin={"t": 130, "b": 150},
    )
    notes = [
        "B's rows and columns are drawn in A's word order (each label gives the word's position in B), so where B "
        "attends as A does the two pictures are the same.",
        f"No PE: the largest difference between the output of a word in A and the same word in B is "
        f"{gaps['no PE']:.2e}: the same outputs, only reordered.",
        f"Sinusoidal PE added: the largest difference is {gaps['sinusoidal PE']:.3f}: word order now changes "
        f"what each word attends to.",
    ]
    example = example_pair(p["sentence_a"], p["sentence_b"])
    if example is not None:
        query, key, in_a, in_b = example
        weights = {
            label: (data[f"weights_A_{tag}"][in_a], data[f"weights_B_{tag}"][in_b])
            for label, tag in (("without PE", "no_PE"), ("with PE", "sinusoidal_PE"))
        }
        notes.append(
            f"{query!r} attends to {key!r} with weight "
            + "; ".join(f"{a:.4f} in A and {b:.4f} in B {label}" for label, (a, b) in weights.items())
            + "."
        )
    return FigureResult(fig, data, tuple(notes))
