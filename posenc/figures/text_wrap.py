"""Text laid out for Plotly, which never wraps a line itself: titles and labels broken to a width in pixels
(estimated from the font size), and the title a builder wrote, kept when the app wraps it for a phone.

Latin text breaks at spaces. Korean and Chinese letters are about twice as wide as a Latin one (East Asian Wide
and Fullwidth characters: :data:`WIDE_CHAR_WIDTH` em): Chinese (and Japanese) text, which has no spaces, may break
between any two of its characters; Korean breaks at spaces like English, and a word longer than the line between
its syllables. A line never starts with closing punctuation (，。）…) nor ends with opening punctuation (（“…).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import lru_cache

import plotly.graph_objects as go

CHAR_WIDTH = 0.55  # a character's mean width in em (DejaVu Sans: about 0.5; a little over, so estimates err roomy)
WIDE_CHAR_WIDTH = 1.0  # a Han or Hangul character's width in em (CJK fonts draw them on a square)
UNWRAPPED_TITLE = "unwrapped_title"  # the layout.meta key holding a title as its builder wrote it
# Kinsoku: no line starts with these (closing punctuation, marks that follow a word; a tag) ...
NO_START = frozenset(
    ",.;:!?)]}%<\u2019\u201d\u2026\u3001\u3002\uff0c\uff0e\uff1a\uff1b\uff01\uff1f\uff09\uff3d\uff5d"
    "\u300d\u300f\u3011\u3009\u300b\u3015\u30fc\u00b7\u30fb"
)
# ... and none ends with these (opening brackets and quotes; a tag): a tag (<b>, </sup>) keeps its neighbours.
NO_END = frozenset(">([{\u2018\u201c\uff08\uff3b\uff5b\u300c\u300e\u3010\u3008\u300a\u3014")


def wrap(text: str, width: float, font_size: float) -> str:
    """``text`` (Plotly's, lines split by <br>) broken so that no line is wider than ``width`` pixels (at spaces; in
    Chinese also between characters), into lines of about equal length (no word left alone on the last line)."""
    most = max(int(width / (CHAR_WIDTH * font_size)), 8)  # in widths of a Latin character
    wrapped = []
    for line in re.split(r"<br\s*/?>", text):
        lines = _greedy(line, most)
        for even in range(int(text_width(line)) // len(lines), most):  # the shortest line giving as few lines
            if len(_greedy(line, even)) == len(lines):
                lines = _greedy(line, even)
                break
        wrapped += lines
    return "<br>".join(wrapped)


def text_width(text: str) -> float:
    """The width of ``text`` in widths of a Latin character (:data:`CHAR_WIDTH` em): 1 for each narrow character,
    about 1.8 for each wide (Han, Hangul, fullwidth) one."""
    return sum(WIDE_CHAR_WIDTH / CHAR_WIDTH if _wide(char) else 1.0 for char in text)


def text_width_em(text: str) -> float:
    """The estimated width of ``text`` in em of its font."""
    return text_width(text) * CHAR_WIDTH


@lru_cache(maxsize=4096)
def _wide(char: str) -> bool:
    """An East Asian Wide or Fullwidth character: Han, Hangul, kana, CJK punctuation, fullwidth forms."""
    return unicodedata.east_asian_width(char) in ("W", "F")


@lru_cache(maxsize=4096)
def _breaks_anywhere(char: str) -> bool:
    """A character of a script written without spaces, so that a line may break before or after it: Han, kana,
    CJK punctuation and fullwidth forms; not Hangul (Korean puts spaces between words)."""
    if not _wide(char):
        return False
    name = unicodedata.name(char, "")
    return not name.startswith("HANGUL")


def _pieces(word: str, breaks_after) -> list[str]:
    """``word`` cut where a line may break inside it: between two characters one of which ``breaks_after`` allows,
    unless the second must not start a line or the first must not end one."""
    pieces = [word[:1]] if word else [word]
    for before, char in itertools.pairwise(word):
        if (breaks_after(before) or breaks_after(char)) and char not in NO_START and before not in NO_END:
            pieces.append(char)
        else:
            pieces[-1] += char
    return pieces


def _units(line: str, most: int) -> list[tuple[str, bool]]:
    """The pieces a line may break between, each with whether a space joins it to the one before: the words
    between spaces; a Chinese word in characters; a wider word than ``most`` with wide letters in its letters."""
    units: list[tuple[str, bool]] = []
    for index, word in enumerate(line.split(" ")):
        pieces = _pieces(word, _breaks_anywhere)
        pieces = [
            smaller for piece in pieces for smaller in (_pieces(piece, _wide) if text_width(piece) > most else [piece])
        ]
        units += [(piece, index > 0 and number == 0) for number, piece in enumerate(pieces)]
    return units


def _greedy(line: str, most: int) -> list[str]:
    lines, current = [], ""
    for piece, spaced in _units(line, most):
        joined = f"{current} {piece}" if spaced and current else current + piece
        if current and text_width(joined) > most:
            lines.append(current)
            current = piece
        else:
            current = joined
    return [*lines, current]


def unwrapped_title(fig: go.Figure) -> str | None:
    """The title as its builder wrote it (before the app wrapped it for a phone), or None for a figure without."""
    meta = fig.layout.meta
    if isinstance(meta, dict) and UNWRAPPED_TITLE in meta:
        return meta[UNWRAPPED_TITLE]
    return fig.layout.title.text
