"""Lessons as data (figures/lessons.py) and the numbers their answers quote (figures/lesson_answers.py): the shipped
lessons validate, every kind of mistake in a lesson file is an error naming the file, the step and the field, and
every answer function agrees with the core and with the figure that shows the same number."""

from __future__ import annotations

import math
import re
import textwrap

import pytest
import torch

import figures  # noqa: F401  (registers every figure)
from figures import lesson_answers, registry
from figures.lessons import LANGUAGES, LESSONS_DIR, load_lesson, load_lessons
from figures.rope.frequencies import pair_turn
from posenc_core import rope_scaling
from tests.prose import cjk_share, english_runs

LESSONS = load_lessons()


def test_the_shipped_lessons_load_in_their_teaching_order():
    assert list(LESSONS) == ["absolute", "rotary"]
    assert LESSONS["rotary"].title["en"] == "Relative and rotary positions"


@pytest.mark.parametrize("lesson_id", ["absolute", "rotary"])
def test_a_shipped_lesson_has_6_to_10_steps_each_checked_and_at_least_3_predictions(lesson_id):
    steps = LESSONS[lesson_id].steps
    assert 6 <= len(steps) <= 10
    assert all(step.question["en"] and step.answer["en"] for step in steps)
    assert sum(step.predict is not None for step in steps) >= 3
    assert any(step.predict is not None and step.predict.then for step in steps), "a predict-then-change step"
    assert len({step.figure for step in steps}) == len(steps), "one figure per step"


@pytest.mark.parametrize("lesson_id", ["absolute", "rotary"])
def test_a_step_text_is_two_or_three_sentences(lesson_id):
    for step in LESSONS[lesson_id].steps:
        sentences = re.findall(r"[.!?](?:\s|$)", step.text["en"])
        assert 2 <= len(sentences) <= 3, (step.number, step.text["en"])


def _texts(step, code: str) -> list[str]:
    texts = [step.title[code], step.text[code], step.question[code], step.answer_text(code)]
    if step.predict is not None:
        texts += [step.predict.question[code], *(choice[code] for choice in step.predict.choices)]
    return texts


@pytest.mark.parametrize("code", ["ko", "zh-CN"])
@pytest.mark.parametrize("lesson_id", ["absolute", "rotary"])
def test_the_korean_and_chinese_of_a_lesson_are_not_english(lesson_id, code):
    for step in LESSONS[lesson_id].steps:
        texts = _texts(step, code)
        assert cjk_share(texts) > 0.6, (step.number, texts)
        assert not [run for text in texts for run in english_runs(text)], step.number


def test_an_answer_quotes_the_core_number_in_every_language():
    step = LESSONS["rotary"].steps[3]  # RoPE pair 4: λ = 2π / 10000^(-8/64)
    assert step.answer_value == "rope_pair_wavelength"
    for code in LANGUAGES:
        assert "19.87" in step.answer_text(code)
    assert "{value" not in step.answer_text("ko")


def test_a_then_change_is_applied_after_the_prediction():
    step = LESSONS["rotary"].steps[5]
    assert step.predict.then == {"base": 20000.0}
    assert step.params["base"] == 10000.0 and step.params_after()["base"] == 20000.0
    registry.build(step.figure, step.params_after())  # the changed figure builds


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


# -- answer functions against the core and the figures --------------------------------------------------------------

EVERY_NEED = {
    "d_model": 64,
    "base": 10000.0,
    "layout": "interleaved",
    "head_dim": 64,
    "partial_rotary_factor": 1.0,
    "pair": 4,
    "n_heads": 8,
    "alibi_bias_max": 8.0,
    "heads": (0,),
    "factor": 4.0,
    "seq_len": 16384,
    "original_max_position_embeddings": 4096,
    "clip_distance": 4,
}


@pytest.mark.parametrize("name", sorted(lesson_answers.ANSWERS))
def test_every_answer_function_gives_a_finite_number_and_says_what_it_reads(name):
    answer = lesson_answers.ANSWERS[name]
    assert set(answer.needs) <= set(EVERY_NEED)
    value = lesson_answers.value(name, {need: EVERY_NEED[need] for need in answer.needs})
    assert math.isfinite(value) and value > 0


def test_an_unknown_answer_or_a_missing_parameter_is_refused():
    with pytest.raises(ValueError, match="unknown answer value 'nope'"):
        lesson_answers.value("nope", {})
    with pytest.raises(ValueError, match="'rope_theta' needs pair"):
        lesson_answers.value("rope_theta", {"head_dim": 64, "base": 10000.0})


def _figure_data(figure_id: str, **overrides):
    params, messages = registry.resolve_params(figure_id, overrides)
    assert not messages
    return registry.build(figure_id, params).data, params


def test_the_slowest_sinusoidal_wavelength_is_the_longest_the_figure_draws():
    data, params = _figure_data("sinusoidal-wavelengths", d_model=64, base=10000.0)
    expected = max(float(v) for v in data["wavelength"] if math.isfinite(v))
    assert lesson_answers.sinusoidal_slowest_wavelength(params) == pytest.approx(expected, rel=1e-6)
    assert expected == pytest.approx(2 * math.pi * 10000 ** (62 / 64), rel=1e-6)


def test_rope_theta_and_wavelength_of_a_pair_are_the_pair_rotation_figures():
    params = {**_figure_data("rope-pair-rotation", head_dim=64, pair=4)[1], "device": "cpu"}
    theta, _, wavelength = pair_turn(params)
    assert lesson_answers.rope_theta(params) == pytest.approx(theta, rel=1e-6)
    assert lesson_answers.rope_pair_wavelength(params) == pytest.approx(wavelength, rel=1e-6)
    assert lesson_answers.rope_theta(params) == pytest.approx(10000 ** (-8 / 64))


def test_the_slowest_rope_wavelength_is_the_last_the_wavelength_figure_draws():
    data, params = _figure_data("rope-wavelengths", head_dim=64)
    key = next(name for name in data if "wavelength" in name)
    assert lesson_answers.rope_slowest_wavelength(params) == pytest.approx(float(max(data[key])), rel=1e-5)


def test_an_alibi_slope_is_the_slope_figure_s():
    data, params = _figure_data("alibi-slopes", n_heads=8)
    for head in range(8):
        assert lesson_answers.alibi_slope({**params, "heads": (head,)}) == pytest.approx(float(data["slope"][head]))
    assert lesson_answers.alibi_slope({**params, "heads": (0,)}) == 0.5


def test_the_ntk_base_gives_the_ntk_variant_s_frequencies():
    params = {"head_dim": 128, "base": 10000.0, "factor": 4.0}
    ntk, _ = rope_scaling.ntk_rope(
        128, 10000.0, {"factor": 4.0}, seq_len=None, max_position_embeddings=4096, dtype=torch.float64
    )
    from_base = rope_scaling.default_inv_freq(128, lesson_answers.ntk_base(params), dtype=torch.float64)
    torch.testing.assert_close(ntk, from_base)


def test_the_dynamic_base_and_the_yarn_factor_are_the_core_s():
    params = {
        "head_dim": 128,
        "base": 10000.0,
        "factor": 4.0,
        "seq_len": 16384,
        "original_max_position_embeddings": 4096,
    }
    assert lesson_answers.dynamic_ntk_base(params) == rope_scaling.dynamic_ntk_base(10000.0, 128, 4.0, 16384, 4096)
    assert lesson_answers.yarn_attention_factor({"factor": 4.0}) == pytest.approx(1.1386294, rel=1e-7)


def test_shaw_s_count_is_the_number_of_indices_the_matrix_uses():
    data, params = _figure_data("relative-shaw", seq_len=24, clip_distance=4)
    assert lesson_answers.shaw_offsets(params) == len(set(data["index"].ravel().tolist())) == 9
    assert lesson_answers.interpolated_positions({"seq_len": 16384, "original_max_position_embeddings": 4096}) == 4


def test_the_lesson_format_is_documented_with_every_answer_function():
    readme = (LESSONS_DIR / "README.md").read_text(encoding="utf-8")
    for name in lesson_answers.ANSWERS:
        assert f"`{name}`" in readme, name
    assert textwrap.dedent("[step.predict]") in readme


def test_a_parameter_may_take_a_value_per_language_and_each_is_checked(tmp_path):
    good = (LESSONS_DIR / "absolute.toml").read_text(encoding="utf-8")
    step = load_lesson(LESSONS_DIR / "absolute.toml").steps[0]
    assert step.params_in("zh-CN")["sentence_a"] == "狗咬人" and step.params_in("en")["sentence_a"] == "dog bites man"
    bad = tmp_path / "absolute.toml"
    bad.write_text(good.replace('zh-CN = "人咬狗"', 'zh-CN = ""', 1), encoding="utf-8")
    with pytest.raises(ValueError, match=r"absolute\.toml, step 1, params\.sentence_b: no 'zh-CN' text"):
        load_lesson(bad)
