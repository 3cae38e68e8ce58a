"""One vocabulary per language: every translation uses the glossary's term where its English uses the term, and no
translation uses a term's other spelling (posenc.i18n.terminology). The checker itself is tested on made-up
entries, so a catalogue that slips back to an old spelling is caught."""

from __future__ import annotations

import re
import tomllib

import pytest
from babel.messages.pofile import read_po

from posenc.i18n import terminology
from posenc.i18n.catalogues import LOCALE_DIRS, catalogue_files

TERMS = terminology.load_terms()
with terminology.GLOSSARY.open("rb") as handle:
    ENTRIES = tomllib.load(handle)["term"]

# (message, language, term): where grammar or code needs another word than the glossary's, and why
EXCEPTIONS = {
    ("frequency must be below head_dim/4 = {quarter} (got {j})", "ko", "frequency"): "the parameter's name",
    ("frequency must be below head_dim/4 = {quarter} (got {j})", "zh-CN", "frequency"): "the parameter's name",
    **{
        (message, code, "scheme"): "the parameter's name (schemes=...)"
        for message in (
            "schemes must list 2 to 4 items separated by commas, e.g. {example} (got {count})",
            "schemes item {number} ({item})",
        )
        for code in ("ko", "zh-CN")
    },
    (
        "H runs {h_low}–{h_high} down the rows and W {w_low}–{w_high} along them: the ids are the grid coordinates "
        "plus one offset, so neighbouring patches are one id apart in each direction.",
        "ko",
        "offset",
    ): "a constant added to every id, not a distance j − i: 일정한 값, not 간격",
}


def _translations(code: str) -> dict[str, str]:
    """msgid -> msgstr over every catalogue of ``code`` (translated entries, fuzzy or not: none should be fuzzy)."""
    found = {}
    for path in catalogue_files(code):
        with path.open("rb") as file:
            for message in read_po(file):
                if message.id and message.string:
                    found[str(message.id)] = str(message.string)
    return found


def _term(name: str) -> terminology.Term:
    return next(term for term in TERMS if term.name == name)


@pytest.mark.parametrize("code", list(LOCALE_DIRS))
def test_every_translation_uses_the_glossary_s_terms(code):
    violations = terminology.check({code: _translations(code)}, TERMS, EXCEPTIONS)
    assert not violations, f"{len(violations)} translations leave the glossary:\n" + "\n".join(map(str, violations))


def test_the_glossary_s_own_definitions_use_its_terms():
    definitions = {
        code: {entry["definition"]["en"]: entry["definition"][code] for entry in ENTRIES} for code in LOCALE_DIRS
    }
    violations = terminology.check(definitions, TERMS)
    assert not violations, "\n".join(map(str, violations))


def test_every_exception_is_still_needed():
    """An exception the catalogues no longer need is dropped, so the list stays short and true."""
    for (message, code, name), _reason in EXCEPTIONS.items():
        table = {message: _translations(code)[message]}
        assert terminology.check({code: table}, [_term(name)]), (message, code, name)


@pytest.mark.parametrize(
    ("code", "message", "translation", "term"),
    [
        ("ko", "similarity against the offset k", "오프셋 k에 따른 유사도", "offset"),
        ("ko", "Base (10000 in the paper)", "베이스 (논문에서는 10000)", "base (rope_theta)"),
        ("ko", "the window view draws every position", "창 보기는 모든 위치를 그린다", "window"),
        ("ko", "Resizing a learned table", "학습된 테이블의 크기 조정", "table"),
        ("ko", "sampled: every distance", "표본: 모든 거리", "sampling"),
        ("ko", "Without fine-tuning: {methods}.", "미세 조정 없이 쓰는 기법: {methods}.", "fine-tuning"),
        ("zh-CN", "Base calculator", "基数计算器", "base (rope_theta)"),
        ("zh-CN", "sampled: every distance", "抽样：每个距离", "sampling"),
        ("zh-CN", "Positions drawn: an overview of 0..L−1", "绘制的位置：0..L−1 的概览", "overview"),
        ("zh-CN", "From the link: step={value!r} is not a step of this lesson", "不是本课程的步骤", "lesson"),
    ],
)
def test_the_checker_catches_a_term_s_other_spelling(code, message, translation, term):
    violations = terminology.check({code: {message: translation}}, TERMS)
    assert any(violation.term == term for violation in violations), violations


def test_the_checker_asks_for_the_term_where_the_english_uses_it_and_nowhere_else():
    rope = [_term("base (rope_theta)"), _term("dynamic NTK")]
    assert not terminology.check({"ko": {"Base calculator": "base 계산기"}}, rope)
    missing = terminology.check({"ko": {"Dynamic NTK's base": "dynamic NTK의 base"}}, rope)
    assert [(violation.term, violation.kind) for violation in missing] == [("dynamic NTK", "missing")]
    assert not terminology.check({"ko": {"the scale factor": "배율"}}, rope), "no term in the English, none asked"
    # a name in code is not prose: `layout=` or table[p] ask for no translation of "layout" or "table"
    assert not terminology.check({"zh-CN": {"layout={layout}, table[p]": "layout={layout}，table[p]"}}, TERMS)


def test_a_shorter_term_inside_a_longer_one_is_not_asked_for_on_its_own():
    """ "rotary position embedding" is 旋转位置编码: its "position embedding" does not also ask for 位置嵌入."""
    assert not terminology.check({"zh-CN": {"🌀 RoPE: rotary position embedding": "🌀 RoPE：旋转位置编码"}}, TERMS)
    missing = terminology.check({"zh-CN": {"a learned position embedding": "一个学习到的向量"}}, TERMS)
    assert "learned position embedding" in {violation.term for violation in missing}


def test_an_exception_lets_one_message_through_for_one_term_and_language():
    table = {"ko": {"frequency must be below 8": "frequency는 8보다 작아야 한다"}}
    assert terminology.check(table, TERMS)
    assert not terminology.check(table, TERMS, {("frequency must be below 8", "ko", "frequency")})


@pytest.mark.parametrize(("code", "word"), [("ko", "입력값"), ("zh-CN", "实际为")])
def test_an_error_says_what_it_got_in_one_word(code, word):
    """ "(got …)" at the end of an error reads the same in every message: 입력값 / 实际为 (not 받은 값, 收到, …)."""
    wrong = [
        f"{message!r} -> {text!r}"
        for message, text in _translations(code).items()
        if re.search(r"[(;] ?got \{", message) and word not in text
    ]
    assert not wrong, "\n".join(wrong)


# --- the lessons: the same checker on every Korean and Chinese lesson text (terminology.lesson_tables) -------------

# (term, language): the English lesson texts (by their start) whose words are not the glossary's term there, and why
_PROSE_NOPE = (  # "with no positional encoding" is prose ("without one"), translated as such, not the scheme's name
    "The RNN tells the orders apart with no positional encoding. What does it pay for that?",
    "Could an encoder such as BERT, with no positional encoding, read positions the same way?",
    "Some decoders use no positional encoding at all (NoPE)",
)
LESSON_EXCEPTIONS = {
    ("no positional encoding (NoPE)", "ko"): _PROSE_NOPE,
    ("no positional encoding (NoPE)", "zh-CN"): _PROSE_NOPE,
    ("query, key, value", "ko"): ("What is the core idea of ALiBi and of RoPE, and what is the key difference?",),
    ("dimension, channel", "zh-CN"): ("Images: a position in two dimensions",),  # an image's axes, not channels
}


def _lesson_exceptions(tables: dict[str, dict[str, str]]) -> set[tuple[str, str, str]]:
    """(English text, language, term) for every lesson text LESSON_EXCEPTIONS names."""
    return {
        (english, code, term)
        for (term, code), starts in LESSON_EXCEPTIONS.items()
        for english in tables[code]
        if english.startswith(starts)
    }


def _lesson_violations(folder=terminology.LESSONS_DIR, terms=TERMS) -> list[terminology.Violation]:
    tables = terminology.lesson_tables(folder)
    return terminology.check(tables, terms, _lesson_exceptions(tables)) + terminology.check_phrases(tables)


def test_every_lesson_text_uses_the_glossary_s_words():
    violations = _lesson_violations()
    assert not violations, "\n".join(f"{v.language} {v.term} ({v.kind}): {v.message[:80]}" for v in violations)


def test_no_catalogue_uses_a_ruled_out_phrase():
    violations = terminology.check_phrases({code: _translations(code) for code in LOCALE_DIRS})
    assert not violations, "\n".join(map(str, violations))


def test_every_lesson_exception_is_still_needed():
    tables = terminology.lesson_tables()
    exceptions = _lesson_exceptions(tables)
    for english, code, term in exceptions:
        assert terminology.check({code: {english: tables[code][english]}}, [_term(term)]), (english, code, term)
    for (term, code), starts in LESSON_EXCEPTIONS.items():
        for start in starts:
            assert any(e.startswith(start) and (c, t) == (code, term) for e, c, t in exceptions), (term, code, start)


# (lesson file, the glossary's spelling in it, another spelling, the term or phrase that must then be flagged):
# one row per spelling pair the second content review (issue 37) found drifting between texts
SPELLINGS = [
    ("absolute.toml", "개의 파라미터", "개의 매개변수", "parameter"),
    ("rotary.toml", "스케일링 기법이 필요하다", "스케일링 방법이 필요하다", "method"),
    ("absolute.toml", "기하급수적으로 작아진다", "등비적으로 작아진다", "geometric (spacing)"),
    ("long_context.toml", "세 개의 위치 ID", "세 개의 번호", "position id"),
    ("long_context.toml", "(Kazemnejad et al. 2023)", "(Kazemnejad 등 2023)", "et al. (citations)"),
    ("rotary.toml", "Press et al.은 ALiBi", "Press 등은 ALiBi", "et al. (citations)"),
    ("length_lab.toml", "길이 실험실 페이지", "길이 실험 페이지", "Length lab"),
    ("absolute.toml", "어느 쪽의 막대", "누구의 막대", "phrase"),
    ("long_context.toml", "各种方案并列比较", "各种方式并列比较", "scheme"),
    ("long_context.toml", "T（时间）位置 ID", "T（时间）编号", "position id"),
    ("rotary.toml", "Press et al. 用较短的输入", "Press 等人用较短的输入", "et al. (citations)"),
    ("length_lab.toml", "长度实验室页面", "长度实验页面", "Length lab"),
    ("absolute.toml", "哪一方的条形", "谁的条形", "phrase"),
    ("absolute.toml", "按几何级数", "按等比", "geometric (spacing)"),
]


@pytest.mark.parametrize(("lesson", "right", "wrong", "term"), SPELLINGS, ids=[row[2] for row in SPELLINGS])
def test_a_lesson_that_slips_back_to_another_spelling_is_caught(tmp_path, lesson, right, wrong, term):
    """A copy of the lesson with the other spelling put back fails the check; the lesson as it is passes it."""
    text = (terminology.LESSONS_DIR / lesson).read_text(encoding="utf-8")
    assert text.count(right) == 1, f"{lesson} no longer says {right!r} once: update this row"

    def flagged(folder) -> set[str]:  # the one term checked alone, so the test stays quick
        terms = [t for t in TERMS if t.name == term]
        return {"phrase" if v.kind == "phrase" else v.term for v in _lesson_violations(folder, terms)}

    (tmp_path / lesson).write_text(text, encoding="utf-8")
    assert term not in flagged(tmp_path)
    (tmp_path / lesson).write_text(text.replace(right, wrong), encoding="utf-8")
    assert term in flagged(tmp_path)


# --- the register: Korean in 한다체, Chinese with full-width punctuation (catalogues and lessons alike) -------------

# 합니다체 / 해요체 endings where 한다체 is the register: 니다 after a syllable ending in ㅂ (합니다, 습니다; not
# 아니다), 세요, 십시오
_POLITE = re.compile(
    "(?:[" + "".join(chr(c) for c in range(0xAC00, 0xD7A4) if (c - 0xAC00) % 28 == 17) + "]니다|세요|십시오)"
    r"(?=[.!?:)\s]|$)"
)
_HALF_WIDTH = re.compile(r"[\u4e00-\u9fff][,;]|[,;]\s*[\u4e00-\u9fff]")  # , or ; beside a Chinese character


def _all_texts(code: str) -> dict[str, str]:
    return {**_translations(code), **terminology.lesson_tables()[code]}


def test_korean_is_written_in_handa_style():
    polite = [f"{m!r} -> {t!r}" for m, t in _all_texts("ko").items() if _POLITE.search(terminology.prose(t))]
    assert not polite, "\n".join(polite)


def test_chinese_punctuation_beside_chinese_is_full_width():
    def prose(text: str) -> str:
        return re.sub(r"&\w+;", " ", terminology.prose(text))  # an HTML entity's ; is not punctuation

    half = [f"{m!r} -> {t!r}" for m, t in _all_texts("zh-CN").items() if _HALF_WIDTH.search(prose(t))]
    assert not half, "\n".join(half)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (_POLITE, "학습을 취소했습니다."),
        (_POLITE, "잠시 후 다시 시도하세요."),
        (_HALF_WIDTH, "文件本身也没有保留,请重新上传"),
    ],
)
def test_the_register_checks_catch_what_they_are_for(pattern, text):
    assert pattern.search(text)
