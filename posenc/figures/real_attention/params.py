"""The real-attention family's parameter: the sentence the built-in encoder reads."""

from __future__ import annotations

from posenc.drawing.params import ParamSpec, register_param
from posenc.i18n import N_

MAX_TOKENS = 64  # [CLS] + word pieces + [SEP]: a 64 x 64 attention map per head, 6 x 12 heads, well under a second
MAX_CHARACTERS = 1000  # more text than 64 tokens can hold: refused before it is tokenized

register_param(
    ParamSpec(
        "attention_text",
        "text",
        "The cat sat on the mat, and the dog watched it from the door.",
        N_("Sentence the model reads"),
        max_chars=MAX_CHARACTERS,
        help=N_("Any English text of at most 64 tokens with [CLS] and [SEP] (WordPiece, lower-cased)."),  # MAX_TOKENS
    )
)
