"""Split a sentence into tokens the way the Why page's toy attention reads it: words, with Chinese written as
characters.

English and Korean put spaces between words, so a word is a run of characters between spaces ("개가 사람을 문다":
three tokens). Chinese puts no spaces between words, and the usual unit of a character-level tokenizer is the
character, so every Han character is a token of its own ("狗咬人": 狗, 咬, 人). Latin words and numbers inside
Chinese text stay whole, and so does any other run of characters that are neither spaces nor Han (punctuation
between Han characters is a token):

    split_tokens("我爱 RoPE 2024") == ["我", "爱", "RoPE", "2024"]

Han characters are the CJK Unified Ideographs (U+4E00..U+9FFF) and their extensions A (U+3400..) and B..G
(U+20000..U+3134F), the compatibility ideographs (U+F900..U+FAFF) and the ideographic zero 〇 (U+3007).
"""

from __future__ import annotations

import re

HAN = "\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
"""The Han characters, as the inside of a regular-expression class."""

_TOKEN = re.compile(f"[{HAN}]|[^\\s{HAN}]+")  # one Han character, or a run of other characters up to a space


def split_tokens(text: str) -> list[str]:
    """The tokens of ``text``: each Han character on its own, every other run of non-space characters whole (what
    ``text.split()`` gives for text without Han characters)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str (got {type(text).__name__})")
    return _TOKEN.findall(text)


def is_han(character: str) -> bool:
    """Whether ``character`` (one character) is a Han character, a token of its own."""
    return re.fullmatch(f"[{HAN}]", character) is not None
