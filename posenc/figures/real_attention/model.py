"""The built-in encoder, loaded once per device, and the attention shares of one sentence."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import torch

from posenc.figures.real_attention.params import MAX_CHARACTERS, MAX_TOKENS
from posenc.i18n import _
from posenc_core.device import resolve_device
from posenc_core.encodings import learned
from posenc_core.teaching import encoder_attention, wordpiece

INSTALL_COMMAND = learned.BUILTIN_SOURCES[encoder_attention.BUILTIN_ENCODER].install_command


@lru_cache(maxsize=2)
def _encoder(folder: str, device: str) -> encoder_attention.BertEncoder:
    return encoder_attention.load_encoder(folder, device=device)


@lru_cache(maxsize=1)
def _vocab(folder: str) -> dict[str, int]:
    return wordpiece.load_vocab(Path(folder) / "vocab.txt")


class Shares(NamedTuple):
    tokens: tuple[str, ...]  # [CLS], the word pieces, [SEP]
    first: torch.Tensor  # (layers, heads) on the CPU: mean attention on [CLS]
    sep: torch.Tensor  # (layers, heads): mean attention on [SEP]


def measure(text: str, device) -> Shares | None:
    """The shares of ``text`` (None when the weights package is not installed); ValueError naming attention_text
    for a text too long."""
    folder = encoder_attention.builtin_encoder_folder()
    if folder is None:
        return None
    if len(text) > MAX_CHARACTERS:
        raise ValueError(
            _("attention_text must be at most {most} characters (got {count:,})").format(
                most=MAX_CHARACTERS, count=len(text)
            )
        )
    try:
        encoding = wordpiece.encode(text, _vocab(str(folder)), max_tokens=MAX_TOKENS)
    except ValueError as error:
        raise ValueError(f"attention_text: {error}") from None
    encoder = _encoder(str(folder), str(resolve_device(device)))
    with torch.no_grad():
        probabilities = encoder_attention.attention_probabilities(encoder, encoding.ids)
    seps = [i for i, token in enumerate(encoding.tokens) if token == "[SEP]"]
    share = encoder_attention.first_token_attention_share(probabilities, seps)
    return Shares(encoding.tokens, share.first.cpu(), share.sep.cpu())
