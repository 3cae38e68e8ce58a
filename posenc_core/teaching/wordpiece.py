"""A minimal BERT WordPiece tokenizer (uncased), enough to feed real text to a BERT encoder.

1. Basic tokenization: drop control characters and U+0000/U+FFFD, turn whitespace into spaces, put spaces around
   CJK ideographs, split on whitespace, lower-case and strip accents (NFD, drop combining marks), then split off
   every punctuation character (ASCII non-alphanumerics and Unicode category P*) as its own token.
2. WordPiece: each word becomes the longest vocabulary prefix, then the longest "##"-prefixed continuation, and
   so on (greedy longest match first); a word with no such split, or longer than 100 characters, becomes [UNK].
3. [CLS] first, [SEP] last.

Not handled: special tokens written inside the text (such as a literal "[SEP]") are split like other words.
Ref: Devlin et al. 2019, arXiv 1810.04805 §3; Wu et al. 2016, arXiv 1609.08144 (WordPiece); Google's BERT
``tokenization.py`` (BasicTokenizer, WordpieceTokenizer), which HF's BertTokenizer reproduces.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

MAX_CHARS_PER_WORD = 100
CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def load_vocab(path: str | Path) -> dict[str, int]:
    """vocab.txt, one token a line, as token -> line number."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path must be a vocab.txt file (got {str(path)!r})")
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return {token: index for index, token in enumerate(lines)}


def _is_whitespace(char: str) -> bool:
    return char in " \t\n\r" or unicodedata.category(char) == "Zs"


def _is_control(char: str) -> bool:
    return char not in "\t\n\r" and unicodedata.category(char).startswith("C")


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True  # every ASCII character that is not a letter, digit or space ("$", "^" and "`" included)
    return unicodedata.category(char).startswith("P")


def _is_cjk(char: str) -> bool:
    return any(low <= ord(char) <= high for low, high in CJK_RANGES)


def basic_tokens(text: str, *, lower_case: bool = True) -> list[str]:
    """Step 1 above: words and punctuation marks, lower-cased and without accents when ``lower_case``."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a string (got {type(text).__name__})")
    cleaned = []
    for char in text:
        if char in "\x00\ufffd" or _is_control(char):
            continue
        cleaned.append(" " if _is_whitespace(char) else f" {char} " if _is_cjk(char) else char)
    tokens = []
    for word in "".join(cleaned).split():
        if lower_case:
            word = "".join(c for c in unicodedata.normalize("NFD", word.lower()) if unicodedata.category(c) != "Mn")
        piece = ""
        for char in word:
            if _is_punctuation(char):
                tokens.extend([piece, char] if piece else [char])
                piece = ""
            else:
                piece += char
        if piece:
            tokens.append(piece)
    return tokens


def wordpiece(word: str, vocab: dict[str, int], *, unk_token: str = "[UNK]") -> list[str]:
    """Step 2 above for one word: greedy longest-match-first pieces, or [unk_token]."""
    if len(word) > MAX_CHARS_PER_WORD:
        return [unk_token]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            candidate = word[start:end] if start == 0 else "##" + word[start:end]
            if candidate in vocab:
                pieces.append(candidate)
                start = end
                break
        else:
            return [unk_token]
    return pieces


@dataclass(frozen=True)
class Encoding:
    tokens: tuple[str, ...]  # [CLS], the word pieces, [SEP]
    ids: tuple[int, ...]  # their vocabulary indices


def encode(
    text: str,
    vocab: dict[str, int],
    *,
    lower_case: bool = True,
    max_tokens: int | None = None,
    cls_token: str = "[CLS]",
    sep_token: str = "[SEP]",
    unk_token: str = "[UNK]",
) -> Encoding:
    """[CLS] + WordPiece(basic_tokens(text)) + [SEP]; a ValueError when that is more than ``max_tokens``."""
    missing = [token for token in (cls_token, sep_token, unk_token) if token not in vocab]
    if missing:
        raise ValueError(f"vocab must hold the special tokens {missing}")
    pieces = [
        piece
        for word in basic_tokens(text, lower_case=lower_case)
        for piece in wordpiece(word, vocab, unk_token=unk_token)
    ]
    tokens = (cls_token, *pieces, sep_token)
    if max_tokens is not None and len(tokens) > max_tokens:
        raise ValueError(
            f"text must give at most {max_tokens} tokens with [CLS] and [SEP] (got {len(tokens)}): shorten it"
        )
    return Encoding(tokens, tuple(vocab[token] for token in tokens))
