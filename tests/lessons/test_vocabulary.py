"""The lessons speak the glossary's words: every Korean and Chinese text of every lesson uses the glossary's term
where its English uses the term, and none uses a term's other spelling (the checker of the catalogues,
posenc.i18n.terminology, read on the lesson files' texts)."""

from __future__ import annotations

from collections.abc import Iterator

from posenc.i18n import terminology
from posenc.lessons.reader import Lesson, load_lessons

LESSONS = load_lessons()
TERMS = terminology.load_terms()
LANGUAGES = ("ko", "zh-CN")

# (term, language): the English texts (by their start) whose words are not the glossary's term there, and why
_PROSE_NOPE = (  # "with no positional encoding" is prose ("without one"), translated as such, not the scheme's name
    "The RNN tells the orders apart with no positional encoding. What does it pay for that?",
    "Could an encoder such as BERT, with no positional encoding, read positions the same way?",
    "Some decoders use no positional encoding at all (NoPE)",
)
NOT_THE_TERM = {
    ("no positional encoding (NoPE)", "ko"): _PROSE_NOPE,
    ("no positional encoding (NoPE)", "zh-CN"): _PROSE_NOPE,
    ("query, key, value", "ko"): ("What is the core idea of ALiBi and of RoPE, and what is the key difference?",),
    ("dimension, channel", "zh-CN"): ("Images: a position in two dimensions",),  # an image's axes, not channels
}


def _texts(lesson: Lesson) -> Iterator[dict[str, str]]:
    """Every text of a lesson: its title and summary, each step's texts, each prediction's."""
    yield from (lesson.title, lesson.summary)
    for step in lesson.steps:
        yield from (text for text in (step.title, step.text, step.question, step.answer, step.mistake) if text)
        if step.predict is not None:
            yield step.predict.question
            yield from step.predict.choices
            if step.predict.explain:
                yield step.predict.explain


def _tables() -> dict[str, dict[str, str]]:
    """language -> {English text: its translation} over every lesson."""
    return {
        code: {text["en"]: text[code] for lesson in LESSONS.values() for text in _texts(lesson)} for code in LANGUAGES
    }


def _exceptions(tables: dict[str, dict[str, str]]) -> set[tuple[str, str, str]]:
    """(English text, language, term) for every text NOT_THE_TERM names."""
    return {
        (english, code, term)
        for (term, code), starts in NOT_THE_TERM.items()
        for english in tables[code]
        if english.startswith(starts)
    }


def test_every_lesson_text_uses_the_glossarys_words():
    tables = _tables()
    violations = terminology.check(tables, TERMS, _exceptions(tables))
    assert not violations, "\n".join(f"{v.language} {v.term} ({v.kind}): {v.message[:80]}" for v in violations)


def test_every_exception_is_still_needed():
    tables = _tables()
    exceptions = _exceptions(tables)
    for english, code, term in exceptions:
        alone = {code: {english: tables[code][english]}}
        assert terminology.check(alone, [t for t in TERMS if t.name == term]), (english, code, term)
    for (term, code), starts in NOT_THE_TERM.items():
        for start in starts:
            assert any(e.startswith(start) and (c, t) == (code, term) for e, c, t in exceptions), (term, code, start)


def test_a_lesson_in_another_spelling_is_caught():
    tables = _tables()
    english = next(text for text in tables["ko"] if "position ids" in text)
    tables["ko"][english] = tables["ko"][english].replace("위치 ID", "위치 번호")
    assert terminology.check(tables, TERMS, _exceptions(tables))
