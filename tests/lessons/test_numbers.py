"""Every number a lesson states is accounted for: computed by the core when the step is shown (an answer's
``{value}``), a parameter the step's figure is drawn at, or a row of docs/REFERENCE_NUMBERS.md §11 that says how it
was obtained; and the Korean and Chinese texts of a step state the numbers its English states.

A "number" is a run of digits in a text's prose (``4,096``, ``0.707``, ``2.8``). Left out, as not a claim of a value
(NOT_A_CLAIM): code spans and ``{value}`` fields (the core fills those in), arXiv ids, years of citations, digits
inside names (T5, GPT-2, Llama 3.1, WikiText-103, 2-D), figure/section/appendix numbers, and whole numbers 0 to 10
(counts, pair indices and exponents of formulas, which English often spells out as words).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from posenc.i18n.terminology import LESSONS_DIR, lesson_texts
from posenc.lessons.reader import load_lessons

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "REFERENCE_NUMBERS.md"
LANGUAGES = ("en", "ko", "zh-CN")

NOT_A_CLAIM = (  # (pattern, what it is): removed from a text before its numbers are read
    (r"`[^`]*`|\{[^{}]*\}", "code spans and the fields the core fills in"),
    (r"arXiv:? ?\d{4}\.\d{4,5}", "arXiv ids"),
    (r"(?:et al\.?,? ?[(（]?|, |，)(?:19|20)\d\d(?![0-9])|[(（](?:19|20)\d\d(?![0-9,])", "years of citations"),
    (r"\b[A-Za-z]+-?\d+(?:\.\d+)*(?:-[A-Za-z0-9]+)*(?![A-Za-z0-9])", "names with digits (T5, GPT-2, Qwen2-VL)"),
    (r"\b(?:Llama|Gemma|Mistral) \d+(?:\.\d+)?(?![0-9])", "model names (Llama 3.1)"),
    (r"\b[12]-D\b|[12]차원|[一二]维", "1-D, 2-D"),
    (r"(?:Fig\.|Figure|Table|§|[Aa]ppendix|Sec\.|section|그림|부록|图|附录) ?[A-Z]?\d+(?:\.\d+)*", "figure numbers"),
)
_NOT_A_CLAIM = [re.compile(pattern) for pattern, _ in NOT_A_CLAIM]
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d[\d,]*(?:\.\d+)?(?![A-Za-z0-9_])")
SMALL = 10  # whole numbers up to this are counts and indices, not claims


def numbers(text: str) -> set[str]:
    """The numbers ``text`` states, as written ("4,096"), less NOT_A_CLAIM and the small whole numbers."""
    for pattern in _NOT_A_CLAIM:
        text = pattern.sub(" ", text)
    found = {hit.group().rstrip(",.") for hit in _NUMBER.finditer(text)}
    return {number for number in found if not (_value(number).is_integer() and _value(number) <= SMALL)}


def _value(number: str) -> float:
    return float(number.replace(",", ""))


def _raw_steps() -> dict[tuple[str, int], dict]:
    """(lesson id, step number) -> the step's table as written in its TOML."""
    steps = {}
    for path in sorted(LESSONS_DIR.glob("*.toml")):
        with path.open("rb") as handle:
            for number, step in enumerate(tomllib.load(handle)["step"], 1):
                steps[(path.stem, number)] = step
    return steps


def _stated(step: dict, language: str) -> set[str]:
    return {number for text in lesson_texts(step) for number in numbers(text[language])}


def _listed() -> dict[tuple[str, int], set[str]]:
    """(lesson id, step number) -> the numbers REFERENCE_NUMBERS.md §11 lists for that step."""
    section = REFERENCE.read_text(encoding="utf-8").split("## §11", 1)[1]
    rows = re.findall(r"^\| (\w+) \| (\d+) \| ([^|]+) \|", section, re.MULTILINE)
    return {(lesson, int(step)): set(re.findall(r"`([^`]+)`", cells)) for lesson, step, cells in rows}


def _drawn_at(lesson_id: str, number: int) -> set[float]:
    """The numeric parameters the step's figure is drawn at (before and after its prediction) and its answer reads."""
    step = LESSONS[lesson_id].steps[number - 1]
    values = set()
    for table in (step.params, step.params_after(), step.answer_args):
        values |= {float(v) for v in table.values() if isinstance(v, int | float) and not isinstance(v, bool)}
    return values


LESSONS = load_lessons()
STEPS = _raw_steps()
LISTED = _listed()


@pytest.mark.parametrize("where", list(STEPS), ids=[f"{lesson}-{step}" for lesson, step in STEPS])
def test_every_number_a_step_states_is_computed_drawn_or_listed(where):
    stated = _stated(STEPS[where], "en")
    unaccounted = {n for n in stated if _value(n) not in _drawn_at(*where)} - LISTED.get(where, set())
    assert not unaccounted, (
        f"{where[0]}.toml step {where[1]} states {sorted(unaccounted)}: quote it as the answer's {{value}}, or list it "
        "in docs/REFERENCE_NUMBERS.md §11 with how it was computed"
    )


@pytest.mark.parametrize("where", list(LISTED), ids=[f"{lesson}-{step}" for lesson, step in LISTED])
def test_every_listed_number_is_still_stated(where):
    assert where in STEPS, f"§11 lists {where}, which is not a lesson step"
    stale = LISTED[where] - _stated(STEPS[where], "en")
    assert not stale, f"§11 lists {sorted(stale)} for {where}, which the step no longer states: drop the row"


@pytest.mark.parametrize("where", list(STEPS), ids=[f"{lesson}-{step}" for lesson, step in STEPS])
def test_the_three_languages_state_the_same_numbers(where):
    english = _stated(STEPS[where], "en")
    for language in LANGUAGES[1:]:
        assert _stated(STEPS[where], language) == english, (where, language)


def test_the_number_reader_skips_what_is_not_a_claim_and_keeps_what_is():
    assert numbers("Press et al. 2022, Fig. 1, arXiv 2108.12409: T5, GPT-2, Llama 3.1, 2-D, pair 3") == set()
    stated = numbers("position 16,383 gets the angle of 4,095.75; {value:,.0f} pairs; `x = 512`")
    assert stated == {"16,383", "4,095.75"}
    assert numbers("Kazemnejad et al.(2023)은 위치 16,383에서") == {"16,383"}
