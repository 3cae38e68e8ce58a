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
        subplot_titles=[f"{s}, {label}" for label in cases for s in ("A", "B")],
        horizontal_spacing=0.12,
        vertical_spacing=0.16,
    )
    for row, results in enumerate(cases.values(), start=1):
        for col, (tokens, result) in enumerate(zip((tokens_a, tokens_b), results, strict=True), start=1):
            names = [f"{i}:{t}" for i, t in enumerate(tokens)]
            fig.add_heatmap(
                z=as_array(result.weights),
                x=names,
                y=names,
                row=row,
                col=col,
                coloraxis="coloraxis",
                hovertemplate="query %{y}<br>key %{x}<br>weight %{z:.4f}<extra></extra>",
            )
            fig.update_yaxes(autorange="reversed", title_text="query token", row=row, col=col)
            fig.update_xaxes(title_text="key token", row=row, col=col)
    fig.update_layout(
        title=f"Attention weights, one head, d_model={d_model}: A = {p['sentence_a']!r}, B = {p['sentence_b']!r}",
        coloraxis={"colorscale": SEQUENTIAL_SCALE, "cmin": 0, "colorbar": {"title": {"text": "weight"}}},
        height=760,
    )
    notes = (
        f"No PE: the largest difference between the output of a word in A and the same word in B is "
        f"{gaps['no PE']:.2e}: the same outputs, only reordered.",
        f"Sinusoidal PE added: the largest difference is {gaps['sinusoidal PE']:.3f}: word order now changes "
        f"what each word attends to.",
    )
    return FigureResult(fig, data, notes)
