"""What the real-attention figure shows, in words that follow the shares measured."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


def figure_notes(tokens: Sequence[str], data: Mapping[str, np.ndarray]) -> list[str]:
    """Captions under the figure: the tokens read and the strongest sink head."""
    first, sep, uniform = data["share_first"], data["share_sep"], float(data["uniform"][0])
    layer, head = np.unravel_index(int(first.argmax()), first.shape)
    shown = " ".join(tokens) if len(tokens) <= 24 else " ".join([*tokens[:12], "…", *tokens[-6:]])
    return [
        f"Tokens read ({len(tokens)}): {shown}",
        f"Each cell is the attention on that token averaged over the {len(tokens)} query positions; a head that "
        f"spread its attention evenly would put 1/L = {uniform:.3f} on each token.",
        f"Largest share on [CLS]: layer {layer}, head {head}, {float(first[layer, head]):.2f} "
        f"({float(first[layer, head]) / uniform:.0f}× uniform); on [SEP] at most {float(sep.max()):.2f}.",
    ]


def notice_points(data: Mapping[str, np.ndarray]) -> list[str]:
    """The "What to notice" list for a page section showing the figure (empty without data)."""
    if "share_first" not in data:
        return []
    first, sep, uniform = data["share_first"], data["share_sep"], float(data["uniform"][0])
    heavy = int((first > 0.5).sum())
    per_layer = first.mean(axis=1)
    top = int(per_layer.argmax())
    points = [
        f"{heavy} of {first.size} heads put more than half of their attention on [CLS], a token that carries no "
        f"word of the sentence (uniform would be {uniform:.3f}): a sink, where a head parks the attention it has "
        "no better use for.",
        f"Layer {top} leans on [CLS] the most (mean share {float(per_layer[top]):.2f} over its heads); layer 0, which "
        f"reads the embeddings, the least ({float(per_layer[0]):.2f})."
        if top != 0 and int(per_layer.argmin()) == 0
        else f"Mean share on [CLS] by layer: {', '.join(f'{value:.2f}' for value in per_layer)}.",
        f"[SEP] gets at most {float(sep.max()):.2f} in this model ("
        + (
            "less than [CLS] in every layer"
            if bool((sep.mean(axis=1) < per_layer).all())
            else "more than [CLS] in some layers"
        )
        + "): which token becomes the sink is learned, and differs between models.",
    ]
    return points
