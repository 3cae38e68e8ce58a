"""Lessons: a guided path through the figures, read from TOML files in ``lessons/`` (see lessons/README.md).

A lesson is data: a title and a summary in every language, and ordered steps; a step names a registered figure
and the parameters it is drawn at, asks the learner to predict, and checks with a question whose answer may quote
a number the core computes (:mod:`lessons.answers`); a step may add a note on a common mistake and what is right.
:func:`load_lesson` checks everything a learner could trip over (a missing translation, an unknown figure or
parameter, a value out of range, a prediction whose answer is not one of its choices) and raises ``ValueError``
naming the file, the step and the field. No Streamlit here.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from posenc import i18n
from posenc.drawing import registry
from posenc.drawing.params import PARAMS
from posenc.drawing.sweep import check_sweep, parse_sweep
from posenc.figures import register_all
from posenc.lessons import answers as lesson_answers

LESSONS_DIR = Path(__file__).resolve().parent  # the TOML files sit beside this reader
LANGUAGES = tuple(i18n.LANGUAGES)  # every text field has one entry per language
LESSON_KEYS = {"title", "summary", "order", "step"}
STEP_KEYS = {
    "title",
    "text",
    "figure",
    "params",
    "predict",
    "question",
    "answer",
    "answer_value",
    "answer_args",
    "mistake",
    "sweep",
}
PREDICT_KEYS = {"question", "choices", "correct", "then", "explain"}
MIN_CHOICES, MAX_CHOICES = 2, 4

Text = Mapping[str, str]  # language code -> text


@dataclass(frozen=True)
class Predict:
    """A question asked before the figure (or before the figure's ``then`` change) is shown."""

    question: Text
    choices: tuple[Text, ...]
    correct: int  # 0-based index into choices (1-based in the file)
    then: dict[str, Any] = field(default_factory=dict)  # parameters changed once the learner has answered
    explain: Text | None = None


@dataclass(frozen=True)
class Step:
    number: int  # 1-based
    title: Text
    text: Text
    figure: str
    params: dict[str, Any]  # every parameter of the figure: defaults with the file's overrides
    question: Text
    answer: Text
    predict: Predict | None = None
    answer_value: str | None = None
    answer_args: dict[str, Any] = field(default_factory=dict)
    localized: dict[str, dict[str, Any]] = field(default_factory=dict)  # language -> its own parameter values
    mistake: Text | None = None  # a mistake learners bring (from notes, from habit) and what is right instead
    sweep: str | None = None  # a parameter the figure plays through ("factor:1..32:12", drawing.sweep)

    def params_after(self) -> dict[str, Any]:
        """The figure's parameters once the prediction is revealed: with the ``then`` change, when there is one."""
        return {**self.params, **(self.predict.then if self.predict else {})}

    def params_in(self, language: str, *, after: bool = False) -> dict[str, Any]:
        """The parameters the figure is drawn with in ``language`` (an example sentence in the learner's language),
        before or ``after`` the prediction's change."""
        return {**(self.params_after() if after else self.params), **self.localized.get(language, {})}

    def answer_text(self, language: str) -> str:
        """The check question's answer in ``language``, with ``{value}`` filled in from the core."""
        text = self.answer[language]
        if self.answer_value is None:
            return text
        return text.format(value=lesson_answers.value(self.answer_value, {**self.params_after(), **self.answer_args}))


@dataclass(frozen=True)
class Lesson:
    id: str  # the file's stem: ?lesson=<id>
    title: Text
    summary: Text
    steps: tuple[Step, ...]
    order: int = 100


class _Where:
    """Where a problem is, for messages: 'rotary.toml, step 4, figure'."""

    def __init__(self, file: str, step: int | None = None):
        self.file, self.step = file, step

    def error(self, name: str, message: str) -> ValueError:
        place = self.file if self.step is None else f"{self.file}, step {self.step}"
        return ValueError(f"{place}, {name}: {message}")


def _suggest(word: str, known) -> str:
    close = difflib.get_close_matches(str(word), list(known), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _text(where: _Where, name: str, raw: Any) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        raise where.error(name, f"must be a table with {', '.join(LANGUAGES)} texts (got {raw!r})")
    for code in LANGUAGES:
        value = raw.get(code)
        if not isinstance(value, str) or not value.strip():
            raise where.error(name, f"no {code!r} text (every text needs {', '.join(LANGUAGES)}, none empty)")
    extra = [code for code in raw if code not in LANGUAGES]
    if extra:
        raise where.error(name, f"{extra[0]!r} is not a language{_suggest(extra[0], LANGUAGES)}")
    return {code: raw[code].strip() for code in LANGUAGES}


def _unknown_keys(where: _Where, table: Mapping[str, Any], allowed: set[str], prefix: str = "") -> None:
    for key in table:
        if key not in allowed:
            raise where.error(prefix + key, f"unknown field{_suggest(key, allowed)}")


def _split_languages(where: _Where, name: str, raw: Any) -> tuple[Any, dict[str, dict[str, Any]]]:
    """``params`` with a value per language (``sentence_a = { en = "...", ko = "...", zh-CN = "..." }``) split into
    the English values and each language's own."""
    if not isinstance(raw, Mapping):
        return raw, {}
    english, localized = {}, {code: {} for code in LANGUAGES}
    for key, value in raw.items():
        if isinstance(value, Mapping):
            texts = _text(where, f"{name}.{key}", value)
            english[key] = texts["en"]
            for code in LANGUAGES:
                localized[code][key] = texts[code]
        else:
            english[key] = value
    return english, {code: values for code, values in localized.items() if values}


def _overrides(where: _Where, name: str, raw: Any, spec: registry.FigureSpec) -> dict[str, Any]:
    """``raw`` checked as parameter values of figure ``spec``: each one it declares, each value valid as given."""
    if not isinstance(raw, Mapping):
        raise where.error(name, f"must be a table of parameter values (got {raw!r})")
    values = {}
    for key, value in raw.items():
        if key not in spec.params:
            hint = _suggest(key, spec.params) or f" (it takes {', '.join(spec.params)})"
            raise where.error(f"{name}.{key}", f"{spec.id!r} has no parameter {key!r}{hint}")
        coerced, message = PARAMS[key].coerce(value)
        if message:
            raise where.error(f"{name}.{key}", message)
        values[key] = coerced
    return values


def _resolved(where: _Where, name: str, spec: registry.FigureSpec, values: Mapping[str, Any]) -> dict[str, Any]:
    """The figure's full parameters; a value outside the range the others allow (a pair past head_dim/2) fails."""
    params, messages = registry.resolve_params(spec.id, values)
    if messages:
        raise where.error(name, messages[0])
    return params


def _predict(where: _Where, raw: Any, spec: registry.FigureSpec, params: Mapping[str, Any]) -> Predict:
    if not isinstance(raw, Mapping):
        raise where.error("predict", "must be a table")
    _unknown_keys(where, raw, PREDICT_KEYS, "predict.")
    question = _text(where, "predict.question", raw.get("question"))
    choices = raw.get("choices")
    if not isinstance(choices, list) or not MIN_CHOICES <= len(choices) <= MAX_CHOICES:
        count = len(choices) if isinstance(choices, list) else 0
        raise where.error("predict.choices", f"needs {MIN_CHOICES} to {MAX_CHOICES} choices (got {count})")
    texts = tuple(_text(where, f"predict.choices[{i + 1}]", choice) for i, choice in enumerate(choices))
    correct = raw.get("correct")
    if isinstance(correct, bool) or not isinstance(correct, int) or not 1 <= correct <= len(texts):
        raise where.error("predict.correct", f"must be a choice's number, 1 to {len(texts)} (got {correct!r})")
    then = {}
    if "then" in raw:
        then = _overrides(where, "predict.then", raw["then"], spec)
        if not then or all(params[key] == value for key, value in then.items()):
            raise where.error("predict.then", "must change at least one parameter from the step's values")
        then = {key: value for key, value in _resolved(where, "predict.then", spec, {**params, **then}).items()}
        then = {key: value for key, value in then.items() if value != params.get(key)}
    explain = _text(where, "predict.explain", raw["explain"]) if "explain" in raw else None
    return Predict(question, texts, correct - 1, then, explain)


def _answer_args(where: _Where, raw: Any) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise where.error("answer_args", "must be a table of parameter values")
    values = {}
    for key, value in raw.items():
        if key not in PARAMS:
            raise where.error(f"answer_args.{key}", f"{key!r} is not a parameter{_suggest(key, PARAMS)}")
        values[key], message = PARAMS[key].coerce(value)
        if message:
            raise where.error(f"answer_args.{key}", message)
    return values


def _sweep(where: _Where, raw: Any, figure_id: str) -> str:
    """A step's sweep, checked against its figure as a link's is (``drawing.sweep``), in its link form."""
    if not isinstance(raw, str):
        raise where.error("sweep", f"must be text such as 'base:10000..1000000:12' (got {raw!r})")
    try:
        return check_sweep(parse_sweep(raw), figure_id).to_url()
    except ValueError as error:
        raise where.error("sweep", str(error)) from error


def _step(file: str, number: int, raw: Any) -> Step:
    where = _Where(file, number)
    if not isinstance(raw, Mapping):
        raise where.error("step", "must be a table ([[step]])")
    _unknown_keys(where, raw, STEP_KEYS)
    title = _text(where, "title", raw.get("title"))
    text = _text(where, "text", raw.get("text"))
    figure_id = raw.get("figure")
    if not isinstance(figure_id, str) or figure_id not in registry.FIGURES:
        raise where.error("figure", f"{figure_id!r} is not a figure{_suggest(figure_id, registry.FIGURES)}")
    spec = registry.FIGURES[figure_id]
    english, localized = _split_languages(where, "params", raw.get("params", {}))
    params = _resolved(where, "params", spec, _overrides(where, "params", english, spec))
    for code, values in localized.items():  # each language's values must draw too
        localized[code] = _overrides(where, f"params ({code})", values, spec)
        _resolved(where, f"params ({code})", spec, {**params, **localized[code]})
    predict = _predict(where, raw["predict"], spec, params) if "predict" in raw else None
    question = _text(where, "question", raw.get("question"))
    answer = _text(where, "answer", raw.get("answer"))
    answer_args = _answer_args(where, raw.get("answer_args", {}))
    answer_value = raw.get("answer_value")
    mistake = _text(where, "mistake", raw["mistake"]) if "mistake" in raw else None
    sweep = _sweep(where, raw["sweep"], figure_id) if "sweep" in raw else None
    step = Step(
        number,
        title,
        text,
        figure_id,
        params,
        question,
        answer,
        predict,
        answer_value,
        answer_args,
        localized,
        mistake,
        sweep,
    )
    if answer_value is None:
        if any("{value" in answer[code] for code in LANGUAGES):
            raise where.error("answer", "quotes {value} but the step names no answer_value")
        return step
    if not isinstance(answer_value, str) or answer_value not in lesson_answers.ANSWERS:
        hint = _suggest(answer_value, lesson_answers.ANSWERS)
        raise where.error("answer_value", f"{answer_value!r} is not an answer function{hint}")
    for code in LANGUAGES:
        if "{value" not in answer[code]:
            raise where.error(f"answer.{code}", "names an answer_value but does not quote {value}")
        try:
            step.answer_text(code)
        except (ValueError, KeyError, IndexError) as error:
            raise where.error(f"answer.{code}", f"cannot put the value in: {error}") from error
    return step


def load_lesson(path: str | Path) -> Lesson:
    """Read and check one lesson file; ``ValueError`` naming the file, the step and the field on any problem.
    A lesson shows figures, so the figure families are registered first (its figure ids are checked against them)."""
    register_all()
    path = Path(path)
    where = _Where(path.name)
    try:
        with path.open("rb") as handle:
            raw = tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path.name}: not valid TOML: {error}") from error
    _unknown_keys(where, raw, LESSON_KEYS)
    title = _text(where, "title", raw.get("title"))
    summary = _text(where, "summary", raw.get("summary"))
    order = raw.get("order", 100)
    if isinstance(order, bool) or not isinstance(order, int):
        raise where.error("order", f"must be a whole number (got {order!r})")
    steps = raw.get("step")
    if not isinstance(steps, list) or not steps:
        raise where.error("step", "a lesson needs at least one [[step]]")
    return Lesson(path.stem, title, summary, tuple(_step(path.name, i, s) for i, s in enumerate(steps, 1)), order)


def load_lessons(folder: str | Path = LESSONS_DIR) -> dict[str, Lesson]:
    """Every ``*.toml`` lesson in ``folder``, by id, in the order they are taught (``order``, then id)."""
    lessons = [load_lesson(path) for path in sorted(Path(folder).glob("*.toml"))]
    return {lesson.id: lesson for lesson in sorted(lessons, key=lambda lesson: (lesson.order, lesson.id))}
