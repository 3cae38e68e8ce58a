"""What the real-attention figure shows, in words that follow the shares measured."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from posenc.i18n import _

TOKEN_SEPARATOR = " · "


def figure_notes(tokens: Sequence[str], data: Mapping[str, np.ndarray]) -> list[str]:
    """Captions under the figure (shown as plain text): the tokens read (the model's word pieces, in any language,
    separated by a middle dot so each piece shows where it ends) and the strongest sink head."""
    first, sep, uniform = data["share_first"], data["share_sep"], float(data["uniform"][0])
    layer, head = np.unravel_index(int(first.argmax()), first.shape)
    shown = TOKEN_SEPARATOR.join(tokens if len(tokens) <= 24 else [*tokens[:12], "…", *tokens[-6:]])
    return [
        _("Tokens read ({count}): {shown}").format(count=len(tokens), shown=shown),
        _(
            "Each cell is the attention on that token averaged over the {count} query positions; a head that spread "
            "its attention evenly would put 1/L = {uniform:.3f} on each token."
        ).format(count=len(tokens), uniform=uniform),
        _(
            "Largest share on [CLS]: layer {layer}, head {head}, {share:.2f} ({ratio:.0f}× uniform); on [SEP] at "
            "most {sep:.2f}."
        ).format(
            layer=layer,
            head=head,
            share=float(first[layer, head]),
            ratio=float(first[layer, head]) / uniform,
            sep=float(sep.max()),
        ),
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
        _(
            "{heavy} of {total} heads put more than half of their attention on [CLS], a token that carries no word "
            "of the sentence (uniform would be {uniform:.3f}): a sink, where a head parks the attention it has no "
            "better use for."
        ).format(heavy=heavy, total=first.size, uniform=uniform),
        _(
            "Layer {top} leans on [CLS] the most (mean share {top_share:.2f} over its heads); layer 0, which reads "
            "the embeddings, the least ({first_share:.2f})."
        ).format(top=top, top_share=float(per_layer[top]), first_share=float(per_layer[0]))
        if top != 0 and int(per_layer.argmin()) == 0
        else _("Mean share on [CLS] by layer: {shares}.").format(
            shares=", ".join(f"{value:.2f}" for value in per_layer)
        ),
        (
            _(
                "[SEP] gets at most {sep:.2f} in this model (less than [CLS] in every layer): which token becomes the "
                "sink is learned, and differs between models."
            )
            if bool((sep.mean(axis=1) < per_layer).all())
            else _(
                "[SEP] gets at most {sep:.2f} in this model (more than [CLS] in some layers): which token becomes the "
                "sink is learned, and differs between models."
            )
        ).format(sep=float(sep.max())),
    ]
    return points
