"""Hold the translations to the glossary: one word per idea in each language.

For every term of ``glossary.toml``, an English message that uses the term must be translated with the glossary's
Korean / Chinese term, and no translation may use one of the term's other spellings (``avoid``). By default a
term's English forms are its ``en`` without the parenthesised part, split at ", " ("dimension, channel" gives
"dimension" and "channel"), each with its plural; its Korean and Chinese are split the same way and paired with
them. A term may say otherwise in its glossary entry:

    [term.match]            # regular expressions (case-insensitive for English)
    en = ["offsets?"]       # the English that calls for the term
    ko = ["간격"]            # any one of these in the translation is the term
    zh-CN = ["偏移"]

    [term.avoid]            # regular expressions no translation may contain
    ko = ["오프셋"]

Code spans (`...`), ``str.format`` fields and names written as code (``layout=``, ``table[p]``, ``clip(``) are left
out of every text before it is read: a name in code is not prose. A term whose English lies inside a longer term's
("position embedding" in "rotary position embedding") is not asked for there: the longer term's words stand for it.
The checker reads plain (message -> translation) tables, so a test can feed it a made-up entry, and reads the lessons
as such tables too (:func:`lesson_tables`: every text of every ``posenc/lessons/*.toml``, straight from the TOML, so a
copy of a lesson can be checked). A few phrases are ruled out whatever the English says (:data:`PHRASES`).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

GLOSSARY = Path(__file__).with_name("glossary.toml")
LESSONS_DIR = Path(__file__).resolve().parent.parent / "lessons"
LANGUAGES = ("ko", "zh-CN")
PHRASES: Mapping[str, tuple[tuple[str, str], ...]] = {
    "ko": (("누구의", "a model is not a person: 어느 모델의, 어느 쪽의"),),
    "zh-CN": (("谁的", "a model is not a person: 哪个模型的, 哪一方的"),),
}
"""Per language, (regular expression, why) of phrases no translation may contain, whatever its English says."""
_NOT_PROSE = {"params", "then"}  # a lesson's parameter values (example sentences) are not text to hold to the terms
_CODE = re.compile(r"`[^`]*`|\{[^{}]*\}|\b[A-Za-z_]\w*(?=[=\[(])")  # code spans, format fields, names of a call or key


@dataclass(frozen=True)
class Form:
    """One English form of a term (a regular expression) and the translations that render it, per language."""

    english: re.Pattern[str]
    translations: Mapping[str, tuple[re.Pattern[str], ...]]


@dataclass(frozen=True)
class Term:
    """A glossary term as the checker reads it: its English name, its forms and the spellings it rules out."""

    name: str
    forms: tuple[Form, ...]
    avoid: Mapping[str, tuple[re.Pattern[str], ...]]


@dataclass(frozen=True)
class Violation:
    """A translation that breaks the glossary: ``kind`` is "missing" (the English uses the term, the translation
    lacks it) or "avoided" (the translation uses one of the term's other spellings, ``found``)."""

    message: str
    language: str
    term: str
    kind: str
    found: str = ""

    def __str__(self) -> str:
        if self.kind == "missing":
            return f"{self.language}: {self.term!r} missing from the translation of {self.message!r}"
        return f"{self.language}: {self.found!r} (not the glossary's {self.term!r}) in {self.message!r}"


def _parts(text: str) -> list[str]:
    """A glossary name without its parenthesised part, split at "," or "、" ("query, key, value" -> three parts)."""
    bare = re.sub(r"\s*[(（][^)）]*[)）]", "", text)
    return [part.strip() for part in re.split(r"[,、]", bare) if part.strip()]


def _english(form: str) -> re.Pattern[str]:
    """A word-bounded, case-insensitive pattern of an English form, with its plural when it is a plain word."""
    if re.fullmatch(r"[\w -]+", form):
        form = re.escape(form) + r"(?:s|es)?"
    return re.compile(rf"(?<![\w-]){form}(?![\w-])", re.IGNORECASE)


def _compiled(patterns: Iterable[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(pattern) for pattern in patterns)


def term_from_entry(entry: Mapping) -> Term:
    """The checker's view of one ``[[term]]`` of the glossary."""
    match, avoid = entry.get("match", {}), entry.get("avoid", {})
    if "en" in match:
        translations = {code: _compiled(match.get(code, [re.escape(_parts(entry[code])[0])])) for code in LANGUAGES}
        forms = tuple(Form(re.compile(pattern, re.IGNORECASE), translations) for pattern in match["en"])
    else:
        english = _parts(entry["en"])
        local = {code: _parts(entry[code]) for code in LANGUAGES}
        forms = tuple(
            Form(
                _english(word),
                {
                    code: _compiled(match.get(code, [re.escape(parts[i] if len(parts) == len(english) else parts[0])]))
                    for code, parts in local.items()
                },
            )
            for i, word in enumerate(english)
        )
    return Term(entry["en"], forms, {code: _compiled(avoid.get(code, [])) for code in LANGUAGES})


def load_terms(path: Path = GLOSSARY) -> list[Term]:
    """Every term of the glossary, in its order."""
    with path.open("rb") as handle:
        return [term_from_entry(entry) for entry in tomllib.load(handle)["term"]]


def prose(text: str) -> str:
    """``text`` without its code spans and format fields."""
    return _CODE.sub(" ", text)


def check(
    translations: Mapping[str, Mapping[str, str]],
    terms: Iterable[Term],
    exceptions: Iterable[tuple[str, str, str]] = (),
) -> list[Violation]:
    """The violations in ``translations`` (language -> {message: translation}) of the ``terms``, less the
    ``exceptions`` (message, language, term name) a test allows where grammar needs another word."""
    allowed = set(exceptions)
    found: list[Violation] = []
    terms = list(terms)
    for language, table in translations.items():
        for message, translated in table.items():
            english, local = prose(message), prose(translated)
            spans = {term.name: _spans(term, english) for term in terms}
            for term in terms:
                if (message, language, term.name) in allowed:
                    continue
                for pattern in term.avoid.get(language, ()):
                    hit = pattern.search(local)
                    if hit:
                        found.append(Violation(message, language, term.name, "avoided", hit.group()))
                others = [span for name, found_spans in spans.items() if name != term.name for span in found_spans]
                for form in term.forms:
                    wanted = form.translations.get(language, ())
                    used = [hit.span() for hit in form.english.finditer(english)]
                    used = [span for span in used if not any(_inside(span, other) for other in others)]
                    if used and not any(pattern.search(local) for pattern in wanted):
                        found.append(Violation(message, language, term.name, "missing"))
                        break
    return found


def check_phrases(translations: Mapping[str, Mapping[str, str]]) -> list[Violation]:
    """The translations that contain one of :data:`PHRASES` (kind "phrase", ``term`` the reason)."""
    found = []
    for language, table in translations.items():
        for message, translated in table.items():
            for pattern, why in PHRASES.get(language, ()):
                hit = re.search(pattern, prose(translated))
                if hit:
                    found.append(Violation(message, language, why, "phrase", hit.group()))
    return found


def lesson_texts(node: object) -> Iterable[Mapping[str, str]]:
    """Every text table ({"en": ..., "ko": ..., "zh-CN": ...}) in a lesson's TOML, parameter values left out."""
    if isinstance(node, Mapping):
        if isinstance(node.get("en"), str):
            yield node
            return
        for key, value in node.items():
            if key not in _NOT_PROSE:
                yield from lesson_texts(value)
    elif isinstance(node, list):
        for value in node:
            yield from lesson_texts(value)


def lesson_tables(folder: Path = LESSONS_DIR) -> dict[str, dict[str, str]]:
    """language -> {English text: its translation} over every lesson file in ``folder`` (its title, summary, steps,
    predictions, answers and notes), read from the TOML itself."""
    tables: dict[str, dict[str, str]] = {code: {} for code in LANGUAGES}
    for path in sorted(Path(folder).glob("*.toml")):
        with path.open("rb") as handle:
            for text in lesson_texts(tomllib.load(handle)):
                for code in LANGUAGES:
                    if isinstance(text.get(code), str):
                        tables[code][text["en"].strip()] = text[code].strip()
    return tables


def _spans(term: Term, english: str) -> list[tuple[int, int]]:
    """Where the English forms of ``term`` occur in ``english``."""
    return [hit.span() for form in term.forms for hit in form.english.finditer(english)]


def _inside(span: tuple[int, int], other: tuple[int, int]) -> bool:
    """``span`` lies within ``other`` and is shorter."""
    return other[0] <= span[0] and span[1] <= other[1] and span != other
