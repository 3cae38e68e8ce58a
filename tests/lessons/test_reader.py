"""Lessons as data (lessons/reader.py): the shipped lessons validate, and every kind of mistake in a lesson file is an
error naming the file, the step and the field. The numbers answers quote: test_lesson_answers.py."""

from __future__ import annotations

import re

import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.lessons.reader import LANGUAGES, LESSONS_DIR, load_lesson, load_lessons
from tests.prose import cjk_share, english_runs

LESSONS = load_lessons()


def test_the_shipped_lessons_load_in_their_teaching_order():
    assert list(LESSONS) == ["absolute", "rotary", "long_context", "length_lab"]
    assert LESSONS["rotary"].title["en"] == "Relative and rotary positions"
    assert LESSONS["long_context"].title["en"] == "Long context and beyond"
    assert LESSONS["length_lab"].title["en"] == "Train short, test long"


@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_a_shipped_lesson_has_6_to_10_steps_each_checked_and_at_least_3_predictions(lesson_id):
    steps = LESSONS[lesson_id].steps
    assert 6 <= len(steps) <= 10
    assert all(step.question["en"] and step.answer["en"] for step in steps)
    assert sum(step.predict is not None for step in steps) >= 3
    assert any(step.predict is not None and step.predict.then for step in steps), "a predict-then-change step"
    assert len({step.figure for step in steps}) == len(steps), "one figure per step"


@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_a_step_text_is_two_or_three_sentences(lesson_id):
    for step in LESSONS[lesson_id].steps:
        sentences = re.findall(r"[.!?](?:\s|$)", step.text["en"])
        assert 2 <= len(sentences) <= 3, (step.number, step.text["en"])


def _texts(step, code: str) -> list[str]:
    texts = [step.title[code], step.text[code], step.question[code], step.answer_text(code)]
    if step.predict is not None:
        texts += [step.predict.question[code], *(choice[code] for choice in step.predict.choices)]
        texts += [step.predict.explain[code]] if step.predict.explain is not None else []
    return texts + ([step.mistake[code]] if step.mistake is not None else [])


@pytest.mark.parametrize("code", ["ko", "zh-CN"])
@pytest.mark.parametrize("lesson_id", list(LESSONS))
def test_the_korean_and_chinese_of_a_lesson_are_not_english(lesson_id, code):
    for step in LESSONS[lesson_id].steps:
        texts = _texts(step, code)
        assert cjk_share(texts) > 0.6, (step.number, texts)
        assert not [run for text in texts for run in english_runs(text)], step.number


def test_an_answer_quotes_the_core_number_in_every_language():
    step = LESSONS["rotary"].steps[4]  # RoPE pair 4: λ = 2π / 10000^(-8/64)
    assert step.answer_value == "rope_pair_wavelength"
    for code in LANGUAGES:
        assert "19.87" in step.answer_text(code)
    assert "{value" not in step.answer_text("ko")


def test_a_then_change_is_applied_after_the_prediction():
    step = LESSONS["rotary"].steps[6]
    assert step.predict.then == {"base": 20000.0}
    assert step.params["base"] == 10000.0 and step.params_after()["base"] == 20000.0
    registry.build(step.figure, step.params_after())  # the changed figure builds


# -- what the lessons ask, and the mistakes they correct ------------------------------------------------------------

# (lesson, figure of the step, words of its check question): the questions a class is asked to answer
COURSE_QUESTIONS = {
    "what a position signal needs, and why not add p": ("absolute", "sinusoidal-binary-counter", "integer p"),
    "what a learned table offers, and its cost": ("absolute", "learned-heatmap", "offer"),
    "why RoPE over a learned table": ("rotary", "rope-relative-profile", "replace the learned position table"),
    "ALiBi and RoPE: the core idea of each, the key difference": ("rotary", "compare-similarity", "key difference"),
    "what ALiBi gains past its training length": ("rotary", "alibi-span", "past its training length"),
    "why YaRN does better than NTK-aware scaling": ("long_context", "context-yarn-ramp", "better than plain NTK"),
    "how to run a model on a longer context": ("long_context", "context-wavelengths", "least to most work"),
    "the schemes side by side": ("long_context", "compare-similarity", "past their training length"),
}


def _step_with(lesson_id: str, figure: str):
    (step,) = [step for step in LESSONS[lesson_id].steps if step.figure == figure]
    return step


@pytest.mark.parametrize("question", list(COURSE_QUESTIONS))
def test_every_question_of_the_course_is_asked_and_answered(question):
    lesson_id, figure, words = COURSE_QUESTIONS[question]
    step = _step_with(lesson_id, figure)
    assert words in step.question["en"], step.question["en"]
    assert all(step.answer_text(code) for code in LANGUAGES)


# (lesson, figure of the step, words the English note must say): mistakes learners are known to bring
MISTAKES = {
    "past L the slow pairs leave the trained angles, not the fast": ("long_context", "context-angles", "slow (low"),
    "YaRN's factor multiplies cos and sin, the scores grow by its square": ("long_context", "context-temperature", "²"),
    "YaRN's ramp keeps the fast pairs and divides the slow ones": ("long_context", "context-yarn-ramp", "divided by s"),
    "ALiBi slopes for a head count that is not a power of two": ("rotary", "alibi-slopes", "every other slope"),
    "RoPE alone does not extrapolate to any length": ("rotary", "rope-relative-profile", "any length"),
    "sin on the even channels, the last pair is i = d/2 − 1": ("absolute", "sinusoidal-heatmap", "d/2 − 1"),
}
MISTAKE_LABEL = {"en": "**Common mistake:**", "ko": "**흔한 오해:**", "zh-CN": "**常见误区：**"}


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_a_step_that_covers_a_common_mistake_says_what_is_right(mistake):
    lesson_id, figure, words = MISTAKES[mistake]
    step = _step_with(lesson_id, figure)
    assert step.mistake is not None and words in step.mistake["en"], step.mistake


def test_a_mistake_note_begins_with_the_same_words_in_every_lesson():
    notes = [step.mistake for lesson in LESSONS.values() for step in lesson.steps if step.mistake is not None]
    assert len(notes) >= len(MISTAKES)
    for note in notes:
        assert all(note[code].startswith(MISTAKE_LABEL[code]) for code in LANGUAGES), note
        assert len(re.findall(r"[.!?](?:\s|$)", note["en"])) <= 3, "a short note: " + note["en"]


def test_absolute_follows_the_course_order_add_before_the_learned_table():
    order = [step.figure for step in LESSONS["absolute"].steps]
    assert order.index("sinusoidal-binary-counter") < order.index("sinusoidal-heatmap")
    assert order.index("sinusoidal-add-vs-concat") < order.index("learned-heatmap") < order.index("learned-beyond")


# -- bad lesson files: each mistake names the file, the step and the field ------------------------------------------

GOOD_STEP = """
[[step]]
figure = "rope-angles"
params = { seq_len = 128, head_dim = 64 }
answer_value = "rope_slowest_wavelength"
[step.title]
en = "Title"
ko = "제목"
zh-CN = "标题"
[step.text]
en = "Text."
ko = "본문이다."
zh-CN = "正文。"
[step.predict]
correct = 1
[step.predict.question]
en = "Which?"
ko = "어느 것인가?"
zh-CN = "哪一个？"
[[step.predict.choices]]
en = "Pair 0"
ko = "0번 쌍"
zh-CN = "第 0 对"
[[step.predict.choices]]
en = "Pair 31"
ko = "31번 쌍"
zh-CN = "第 31 对"
[step.question]
en = "How long?"
ko = "얼마인가?"
zh-CN = "多长？"
[step.answer]
en = "{value:,.0f} tokens"
ko = "{value:,.0f} 토큰"
zh-CN = "{value:,.0f} 个词元"
"""
HEADER = """
[title]
en = "A lesson"
ko = "레슨"
zh-CN = "课程"
[summary]
en = "Summary."
ko = "요약."
zh-CN = "摘要。"
"""


def _write(tmp_path, second_step: str, name: str = "broken.toml"):
    path = tmp_path / name
    path.write_text(HEADER + GOOD_STEP + second_step, encoding="utf-8")
    return path


def test_a_good_file_written_like_the_readme_loads(tmp_path):
    lesson = load_lesson(_write(tmp_path, GOOD_STEP, "my_lesson.toml"))
    assert lesson.id == "my_lesson" and len(lesson.steps) == 2
    assert lesson.steps[1].answer_text("en") == "47,117 tokens"
    assert lesson.steps[1].mistake is None


def test_a_mistake_note_is_read_in_every_language(tmp_path):
    note = '[step.mistake]\nen = "**Common mistake:** x."\nko = "**흔한 오해:** x."\nzh-CN = "**常见误区：** x。"\n'
    lesson = load_lesson(_write(tmp_path, GOOD_STEP + note))
    assert lesson.steps[1].mistake == {
        "en": "**Common mistake:** x.",
        "ko": "**흔한 오해:** x.",
        "zh-CN": "**常见误区：** x。",
    }


BAD = {
    "missing language": (
        lambda s: s.replace('ko = "본문이다."\n', ""),
        r"broken\.toml, step 2, text: no 'ko' text",
    ),
    "empty language": (
        lambda s: s.replace('zh-CN = "标题"', 'zh-CN = "  "'),
        r"broken\.toml, step 2, title: no 'zh-CN' text",
    ),
    "unknown figure": (
        lambda s: s.replace('figure = "rope-angles"', 'figure = "rope-angle"'),
        r"broken\.toml, step 2, figure: 'rope-angle' is not a figure; did you mean 'rope-angles'\?",
    ),
    "unknown parameter": (
        lambda s: s.replace("head_dim = 64", "head_dims = 64"),
        r"broken\.toml, step 2, params\.head_dims: 'rope-angles' has no parameter 'head_dims'; did you mean 'head_dim'",
    ),
    "bad parameter value": (
        lambda s: s.replace("head_dim = 64", "head_dim = 63"),
        r"broken\.toml, step 2, params\.head_dim: head_dim=63 is outside the allowed range",
    ),
    "parameter of the wrong type": (
        lambda s: s.replace("seq_len = 128", 'seq_len = "long"'),
        r"broken\.toml, step 2, params\.seq_len: seq_len='long' is not a valid whole number",
    ),
    "prediction answer out of range": (
        lambda s: s.replace("correct = 1", "correct = 3"),
        r"broken\.toml, step 2, predict\.correct: must be a choice's number, 1 to 2 \(got 3\)",
    ),
    "one choice only": (
        lambda s: s.replace('[[step.predict.choices]]\nen = "Pair 31"\nko = "31번 쌍"\nzh-CN = "第 31 对"\n', ""),
        r"broken\.toml, step 2, predict\.choices: needs 2 to 4 choices \(got 1\)",
    ),
    "unknown answer value": (
        lambda s: s.replace('"rope_slowest_wavelength"', '"rope_slowest_wavelenght"'),
        r"broken\.toml, step 2, answer_value: 'rope_slowest_wavelenght' is not an answer function; did you mean "
        r"'rope_slowest_wavelength'\?",
    ),
    "answer without the value": (
        lambda s: s.replace('ko = "{value:,.0f} 토큰"', 'ko = "토큰"'),
        r"broken\.toml, step 2, answer\.ko: names an answer_value but does not quote \{value\}",
    ),
    "value without an answer_value": (
        lambda s: s.replace('answer_value = "rope_slowest_wavelength"\n', ""),
        r"broken\.toml, step 2, answer: quotes \{value\} but the step names no answer_value",
    ),
    "then that changes nothing": (
        lambda s: s.replace("correct = 1", "correct = 1\nthen = { head_dim = 64 }"),
        r"broken\.toml, step 2, predict\.then: must change at least one parameter",
    ),
    "then with a bad value": (
        lambda s: s.replace("correct = 1", "correct = 1\nthen = { base = 0.5 }"),
        r"broken\.toml, step 2, predict\.then\.base: base=0\.5 is outside the allowed range",
    ),
    "unknown prediction field": (
        lambda s: s.replace("[step.predict.question]", "[step.predict.questions]"),
        r"broken\.toml, step 2, predict\.questions: unknown field; did you mean 'question'\?",
    ),
    "mistake note without a language": (
        lambda s: s + '[step.mistake]\nen = "**Common mistake:** x."\nko = "**흔한 오해:** x."\n',
        r"broken\.toml, step 2, mistake: no 'zh-CN' text",
    ),
    "misspelt field": (
        lambda s: s.replace("[step.question]", "[step.questoin]"),
        r"broken\.toml, step 2, questoin: unknown field; did you mean 'question'\?",
    ),
}


@pytest.mark.parametrize("mistake", list(BAD))
def test_a_mistake_in_a_lesson_names_the_file_the_step_and_the_field(tmp_path, mistake):
    change, message = BAD[mistake]
    with pytest.raises(ValueError, match=message):
        load_lesson(_write(tmp_path, change(GOOD_STEP)))


def test_a_mistake_outside_the_steps_names_the_file_and_the_field(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text(HEADER.replace('zh-CN = "摘要。"', "") + GOOD_STEP, encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.toml, summary: no 'zh-CN' text"):
        load_lesson(path)
    path.write_text(HEADER, encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.toml, step: a lesson needs at least one"):
        load_lesson(path)
    path.write_text(HEADER + "[[step\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.toml: not valid TOML"):
        load_lesson(path)


def test_a_pair_past_head_dim_is_caught_by_the_range_the_others_allow(tmp_path):
    broken = GOOD_STEP.replace('figure = "rope-angles"', 'figure = "rope-pair-rotation"').replace(
        "head_dim = 64 }", "head_dim = 16, pair = 20 }"
    )
    broken = broken.replace('answer_value = "rope_slowest_wavelength"\n', "").replace("{value:,.0f} ", "")
    with pytest.raises(ValueError, match=r"broken\.toml, step 2, params: pair=20 is outside the allowed range"):
        load_lesson(_write(tmp_path, broken))


def test_every_lesson_in_the_folder_is_loaded(tmp_path):
    assert sorted(path.stem for path in LESSONS_DIR.glob("*.toml")) == sorted(LESSONS)


def test_a_parameter_may_take_a_value_per_language_and_each_is_checked(tmp_path):
    good = (LESSONS_DIR / "absolute.toml").read_text(encoding="utf-8")
    step = load_lesson(LESSONS_DIR / "absolute.toml").steps[0]
    assert step.params_in("zh-CN")["sentence_a"] == "狗咬人" and step.params_in("en")["sentence_a"] == "dog bites man"
    bad = tmp_path / "absolute.toml"
    bad.write_text(good.replace('zh-CN = "人咬狗"', 'zh-CN = ""', 1), encoding="utf-8")
    with pytest.raises(ValueError, match=r"absolute\.toml, step 1, params\.sentence_b: no 'zh-CN' text"):
        load_lesson(bad)
