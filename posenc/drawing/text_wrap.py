"""Text laid out for Plotly, which never wraps a line itself: titles and labels broken to a width in pixels
(estimated from the font size), and the title a builder wrote, kept when the app wraps it for a phone.

Latin text breaks at spaces, but never inside an expression: not at the spaces around an operator ("j − i",
"θ_i = base^(−2i/d)", "λ = 265 → 320", "m·θ_i mod 2π"), inside the brackets of a function's arguments or an index
("clip(j − i, −k, k)", "[20, 46]"), a code span (`rope_theta = 10000`) or a tag (<span style=...>). Korean and
Chinese letters are about twice as wide as a Latin one (East Asian Wide and Fullwidth characters:
:data:`WIDE_CHAR_WIDTH` em). Chinese, which has no spaces, may break between two of its characters, preferably
where a phrase ends: after its punctuation, where Latin text or a number starts or ends, after a particle such as
的 or before a preposition such as 在, and only then inside a word; Korean breaks at spaces like English, and a word
longer than the line between its syllables. A line never starts with closing punctuation (，。）…) nor ends with
opening punctuation (（“…).
"""

from __future__ import annotations

import itertools
import math
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
# A word made of these alone is an operator: the spaces on either side of it are inside an expression.
OPERATORS = frozenset("=≠≈≡<>≤≥+−-±×÷·*/→←↔⇒|~^∝∈")
OPERATOR_WORDS = frozenset({"mod", "vs", "vs."})
# Chinese characters at which a phrase usually ends (a line may break after them) or starts (before them).
PHRASE_ENDS = frozenset("的地得和与及或并而")
PHRASE_STARTS = frozenset("在随按从将把被")
FOLLOWERS = frozenset("的地得了着过之")  # particles that close the word before them: never break before one
# What breaking a line at a place costs (the line breaker weighs it against how full the line is).
FREE, SCRIPT, PHRASE, INSIDE_HAN, INSIDE_WORD, NEVER = 0.0, 0.5, 1.0, 2.0, 3.0, math.inf
FILL_COST = 2.5  # the cost of a line left empty, against which a worse place to break is weighed
TAG = re.compile(r"<[^<>]*>")
ENTITY = re.compile(r"&#?\w+;")


def wrap(text: str, width: float, font_size: float) -> str:
    """``text`` (Plotly's, lines split by <br>) broken so that no line is wider than ``width`` pixels (at spaces; in
    Chinese also between characters; never inside an expression), into lines of about equal length (no word left
    alone on the last line)."""
    most = max(int(width / (CHAR_WIDTH * font_size)), 8)  # in widths of a Latin character
    wrapped = []
    for line in re.split(r"<br\s*/?>", text):
        wrapped += _break(_atoms(line), most)
    return "<br>".join(wrapped)


def text_width(text: str) -> float:
    """The width of ``text`` in widths of a Latin character (:data:`CHAR_WIDTH` em): 1 for each narrow character,
    about 1.8 for each wide (Han, Hangul, fullwidth) one; tags (<b>, <sup>) take none, an entity (&lt;) one."""
    shown = ENTITY.sub("&", TAG.sub("", text)) if "<" in text or "&" in text else text
    return sum(WIDE_CHAR_WIDTH / CHAR_WIDTH if _wide(char) else 1.0 for char in shown)


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
    return not unicodedata.name(char, "").startswith("HANGUL")


def _is_operator(word: str) -> bool:
    return bool(word) and (all(char in OPERATORS for char in word) or word in OPERATOR_WORDS)


def _inside(line: str) -> list[bool]:
    """For each character of ``line``, whether it is inside an expression's brackets (a function's arguments, an
    index: an opening bracket right after a letter, digit, ^ or _; any square bracket), a code span or a tag."""
    inside, depth, code, tag = [], [], False, False
    for index, char in enumerate(line):
        before = line[index - 1] if index else " "
        if char == "`":
            code = not code
        elif char == "<" and not code:
            tag = TAG.match(line, index) is not None
        elif char == ">" and tag:
            tag = False
        elif char in "([{" and not code and not tag:
            depth.append(char == "[" or before.isalnum() or before in "^_)]")
        elif char in ")]}" and depth and not code and not tag:
            depth.pop()
        inside.append(code or tag or any(depth))
    return inside


def _cost_between(before: str, char: str) -> float:
    """What breaking a line between two characters of one word costs (no space between them)."""
    if char in NO_START or before in NO_END:
        return NEVER
    han_before, han_after = _breaks_anywhere(before), _breaks_anywhere(char)
    if not (han_before or han_after):
        return INSIDE_WORD if _wide(before) and _wide(char) else NEVER  # Hangul syllables; Latin letters never
    if han_before and han_after:
        if unicodedata.category(before).startswith("P") or unicodedata.category(char).startswith("P"):
            return FREE  # after a comma, before an opening bracket
        if char in FOLLOWERS:
            return INSIDE_WORD
        if before in PHRASE_ENDS or char in PHRASE_STARTS:
            return PHRASE
        return INSIDE_HAN
    return SCRIPT  # where Latin text or a number meets Chinese


def _cost_of_space(before: str, after: str) -> float:
    """What breaking a line at the space between two words costs: nothing, but more between a number and the
    Chinese measure word after it (4 个), between two numbers of a list (0, 8, 20), and at the spaces that set Latin
    text apart in Chinese."""
    if before[-1].isdigit() and _breaks_anywhere(after[0]):
        return INSIDE_WORD
    if before[-1] == "," and before[:-1].replace(".", "").isdigit() and after[0].isdigit():
        return INSIDE_WORD
    if _breaks_anywhere(before[-1]) or _breaks_anywhere(after[0]):
        return SCRIPT
    return FREE


def _atoms(line: str) -> list[tuple[str, str, float]]:
    """The pieces a line may break between: (text, what joins it to the piece before: " " or "", what breaking the
    line before it costs)."""
    inside = _inside(line)
    words: list[tuple[int, str]] = []  # (start, word)
    start = 0
    for word in line.split(" "):
        words.append((start, word))
        start += len(word) + 1
    atoms: list[tuple[str, str, float]] = []
    for number, (start, word) in enumerate(words):
        if number > 0:
            previous = words[number - 1][1]
            glued = inside[start - 1] or _is_operator(word) or _is_operator(previous)
            cost = NEVER if glued or not word or not previous else _cost_of_space(previous, word)
            atoms.append(("", " ", cost))  # the space: joined to the next piece below
        pieces = [(word[:1], NEVER)]
        for offset in range(1, len(word)):
            cost = NEVER if inside[start + offset] else _cost_between(word[offset - 1], word[offset])
            if cost == NEVER:
                pieces[-1] = (pieces[-1][0] + word[offset], pieces[-1][1])
            else:
                pieces.append((word[offset], cost))
        for index, (piece, cost) in enumerate(pieces):
            if index == 0 and number > 0:
                _, joiner, space_cost = atoms.pop()
                atoms.append((piece, joiner, space_cost))
            else:
                atoms.append((piece, "", cost if index else NEVER))
    return atoms


def _break(atoms: list[tuple[str, str, float]], most: int) -> list[str]:
    """The fewest lines of at most ``most`` Latin character widths (a piece that cannot break, wider than that,
    stands alone), broken where breaking costs least and into lines of about equal length: of all the ways to break
    into that many lines, the one with the least cost of its breaks plus :data:`FILL_COST` times the squared room
    left on each line (the last one included, so no word is left alone on it)."""
    count = len(atoms)
    width_before, spaces_before = [0.0], [0]  # prefix sums
    for text, joiner, _ in atoms:
        width_before.append(width_before[-1] + text_width(text))
        spaces_before.append(spaces_before[-1] + len(joiner))
    best: list[tuple[float, float]] = [(0, 0.0)] + [(math.inf, math.inf)] * count  # (lines, badness) up to a break
    start_of: list[int] = [0] * (count + 1)
    for end in range(1, count + 1):
        if end < count and atoms[end][2] == NEVER:
            continue  # no line may end before atoms[end]
        breakable_inside = False
        for first in range(end - 1, -1, -1):
            width = width_before[end] - width_before[first] + spaces_before[end] - spaces_before[first + 1]
            if width > most and breakable_inside:
                break  # too wide, and it could have been broken
            if best[first][0] < math.inf:
                room = max(most - width, 0.0) / most
                badness = (atoms[end][2] if end < count else 0.0) + FILL_COST * room * room
                candidate = (best[first][0] + 1, best[first][1] + badness)
                if candidate < best[end]:
                    best[end], start_of[end] = candidate, first
            breakable_inside = breakable_inside or atoms[first][2] < NEVER
    ends = [count]
    while ends[-1] > 0:
        ends.append(start_of[ends[-1]])
    ends.reverse()
    return [
        "".join(atoms[i][0] if i == first else atoms[i][1] + atoms[i][0] for i in range(first, end))
        for first, end in itertools.pairwise(ends)
    ]


def unwrapped_title(fig: go.Figure) -> str | None:
    """The title as its builder wrote it (before the app wrapped it for a phone), or None for a figure without."""
    meta = fig.layout.meta
    if isinstance(meta, dict) and UNWRAPPED_TITLE in meta:
        return meta[UNWRAPPED_TITLE]
    return fig.layout.title.text
