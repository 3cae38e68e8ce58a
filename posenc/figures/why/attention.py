"""Why attention needs position: the same self-attention over two word orders, with and without PE."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plotly.subplots import make_subplots

from posenc.drawing.common import as_array
from posenc.drawing.params import ParamSpec, register_param
from posenc.drawing.plain_text import for_plotly
from posenc.drawing.registry import FigureResult, register
from posenc.drawing.theme import SEQUENTIAL_SCALE
from posenc.i18n import N_, _
from posenc_core.encodings import sinusoidal
from posenc_core.teaching import attention
from posenc_core.teaching.tokens import split_tokens

EXAMPLE_SENTENCES = {  # language -> (sentence A, sentence B): the same tokens, in an order that changes the meaning
    "en": ("The cat sat on the mat", "The mat sat on the cat"),
    "ko": ("작은 개가 큰 고양이를 본다", "큰 개가 작은 고양이를 본다"),  # Korean particles mark who does what, so
    # the swap is of the adjectives: "a small dog sees a big cat" / "a big dog sees a small cat"
    "zh-CN": ("狗咬人", "人咬狗"),  # one token per character: 狗, 咬, 人
}
"""The example pair the Why page opens on in each language (when its link sets no sentence)."""

MAX_SENTENCE = 200  # characters of a sentence (32 tokens, the most a sentence may hold, fit in far fewer)

register_param(
    ParamSpec("sentence_a", "text", EXAMPLE_SENTENCES["en"][0], N_("Sentence A"), minimum=1, max_chars=MAX_SENTENCE)
)


register_param(
    ParamSpec(
        "embedding_dim",
        "int",
        16,
        N_("Embedding width"),
        2,
        512,
        widget="number",
        help=N_("Width of the toy embeddings."),
    )
)


register_param(
    ParamSpec(
        "sentence_b",
        "text",
        EXAMPLE_SENTENCES["en"][1],
        N_("Sentence B"),
        minimum=1,
        max_chars=MAX_SENTENCE,
        help=N_("The same words in another order (Chinese: the same characters)."),
    )
)


def example_pair(sentence_a: str, sentence_b: str) -> tuple[str, str, tuple[int, int], tuple[int, int]] | None:
    """Two words to quote, each once in each sentence, the first of them moved: (query word, key word, their
    positions in A, their positions in B); None when the sentences have no such words."""
    originals_a = split_tokens(sentence_a)
    words_a, words_b = [w.lower() for w in originals_a], [w.lower() for w in split_tokens(sentence_b)]
    once = [w for w in dict.fromkeys(words_a) if words_a.count(w) == 1 and words_b.count(w) == 1]
    moved = [w for w in once if words_a.index(w) != words_b.index(w)]
    if not moved or len(once) < 2:
        return None
    query = moved[0]
    key = next(w for w in [*moved[1:], *once] if w != query)
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
    """The tokens of sentence ``name`` (posenc_core.teaching.tokens: words, each Chinese character on its own), 1 to
    32."""
    tokens = split_tokens(text)
    if not 1 <= len(tokens) <= 32:
        message = _("{name} must hold 1 to 32 tokens: words separated by spaces, or Chinese characters (got {count})")
        raise ValueError(message.format(name=name, count=len(tokens)))
    return tokens


def _same_tokens(tokens_a: list[str], tokens_b: list[str]) -> None:
    """A ValueError unless B holds A's tokens (case-insensitive) in some order."""
    if sorted(t.lower() for t in tokens_a) != sorted(t.lower() for t in tokens_b):
        raise ValueError(_("sentence_b must hold the same words as sentence_a, in another order"))


@register(
    "why-attention",
    title=N_("Self-attention with and without positional encoding"),
    page="why_position",
    params=("sentence_a", "sentence_b", "embedding_dim"),
)
def attention_with_and_without_position(p: Mapping[str, Any]) -> FigureResult:
    tokens_a, tokens_b = _tokens("sentence_a", p["sentence_a"]), _tokens("sentence_b", p["sentence_b"])
    _same_tokens(tokens_a, tokens_b)
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
        subplot_titles=[f"{s}, {label}" for label in (_("no PE"), _("with PE")) for s in ("A", "B")],
        horizontal_spacing=0.06,
        vertical_spacing=0.16,
    )
    order = in_order_of(tokens_a, tokens_b)  # B is drawn in A's word order: equal pictures, equal attention
    drawn = {"A": (list(range(len(tokens_a))), tokens_a), "B": (order, tokens_b)}
    for row, results in enumerate(cases.values(), start=1):
        for col, ((rows, tokens), result) in enumerate(zip(drawn.values(), results, strict=True), start=1):
            names = [f"{i}:{for_plotly(tokens[i])}" for i in rows]
            fig.add_heatmap(
                z=as_array(result.weights[rows][:, rows]),
                x=names,
                y=names,
                row=row,
                col=col,
                coloraxis="coloraxis",
                hovertemplate=_("query %{y}<br>key %{x}<br>weight %{z:.4f}") + "<extra></extra>",
            )
            # A's query words on the left, B's on the right: neither label column runs into the other heatmap
            fig.update_yaxes(autorange="reversed", side="left" if col == 1 else "right", row=row, col=col)
            # the rows share their columns: the keys are named once, under the lower row (long words, rotated,
            # would otherwise run into the lower row's titles)
            fig.update_xaxes(title_text=_("key") if row == 2 else None, showticklabels=row == 2, row=row, col=col)
    fig.update_yaxes(title_text=_("query"), row=1, col=1)
    fig.update_yaxes(title_text=_("query"), row=2, col=1)
    colorbar = {
        "title": {"text": _("attention weight"), "side": "top"},
        "orientation": "h",
        "x": 0.5,
        "y": -0.2,
        "yanchor": "top",
        "len": 0.8,
        "thickness": 12,
        "nticks": 5,
    }
    fig.update_layout(
        title=_("Attention weights of one head, d_model={d_model}").format(d_model=d_model)
        + f"<br>A = {for_plotly(repr(p['sentence_a']))}<br>B = {for_plotly(repr(p['sentence_b']))}",
        coloraxis={"colorscale": SEQUENTIAL_SCALE, "cmin": 0, "colorbar": colorbar},
        height=820,
        margin={"t": 130, "b": 150},
    )
    notes = [
        _(
            "B's rows and columns are drawn in A's word order (each label gives the word's position in B), so where "
            "B attends as A does the two pictures are the same."
        ),
        _(
            "No PE: the largest difference between the output of a word in A and the same word in B is "
            "{gap:.2e}: the same outputs, only reordered."
        ).format(gap=gaps["no PE"]),
        _(
            "Sinusoidal PE added: the largest difference is {gap:.3f}: word order now changes what each word "
            "attends to."
        ).format(gap=gaps["sinusoidal PE"]),
    ]
    example = example_pair(p["sentence_a"], p["sentence_b"])
    if example is not None:
        query, key, in_a, in_b = example
        (a_no, b_no), (a_pe, b_pe) = (
            (data[f"weights_A_{tag}"][in_a], data[f"weights_B_{tag}"][in_b]) for tag in ("no_PE", "sinusoidal_PE")
        )
        notes.append(
            _(
                "{query} attends to {key} with weight {a_no:.4f} in A and {b_no:.4f} in B without PE; {a_pe:.4f} in A "
                "and {b_pe:.4f} in B with PE."
            ).format(query=repr(query), key=repr(key), a_no=a_no, b_no=b_no, a_pe=a_pe, b_pe=b_pe)
        )
    return FigureResult(fig, data, tuple(notes))
