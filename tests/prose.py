"""Is visible text still English? Helpers for the language tests: strip what stays Latin in every language
(formulas, code, parameter names, numbers, technical names), then look for English prose in what is left."""

from __future__ import annotations

import re
from collections.abc import Iterable

# Function words of English prose: a run of Latin words holding two of these is a sentence, not a name.
FUNCTION_WORDS = frozenset(
    "the of and to is are a an in on for with by from at as its it this that these those each every not be "
    "than then when where which what how why one two all any more less only into over under between per "
    "here there they their them we you your has have was were will can may must".split()
)
KEPT = re.compile(
    r"\$[^$]*\$"  # inline LaTeX
    r"|`[^`]*`"  # code spans
    r"|https?://\S+"  # links
    r"|\S*[_=/\\]\S*"  # parameter names, values, paths: head_dim=128, rope_theta
    r"|%\{[^}]*\}"  # Plotly hover fields
    r"|<[^>]+>"  # HTML tags
)
HAN_OR_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af\u3400-\u4dbf\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]+")


def english_runs(text: str, *, least: int = 3) -> list[str]:
    """The runs of ``least`` or more consecutive Latin words in ``text`` (after stripping what stays Latin) that
    read as English prose: at least two of their words are English function words."""
    cleaned = KEPT.sub(" ", text)
    runs = []
    for run in re.findall(r"[A-Za-z][A-Za-z'’-]*(?:[ ,;:]+[A-Za-z][A-Za-z'’-]*)+", cleaned):
        words = LATIN_WORD.findall(run)
        if len(words) >= least and sum(word.lower() in FUNCTION_WORDS for word in words) >= 2:
            runs.append(run)
    return runs


def cjk_share(texts: Iterable[str]) -> float:
    """Han/Hangul letters / (Han/Hangul + Latin letters) over ``texts``, after stripping what stays Latin."""
    cjk = latin = 0
    for text in texts:
        cleaned = KEPT.sub(" ", text)
        cjk += len(HAN_OR_HANGUL.findall(cleaned))
        latin += sum(len(word) for word in LATIN_WORD.findall(cleaned))
    return cjk / max(cjk + latin, 1)
