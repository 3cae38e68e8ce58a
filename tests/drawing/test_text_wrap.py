"""Wrapping figure text (drawing.text_wrap): Latin text broken at spaces as before; Korean and Chinese letters
counted about twice as wide as Latin ones; Chinese broken between characters, Korean at spaces (a word longer than
the line between its syllables), never before closing punctuation nor after opening punctuation."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc.drawing.text_wrap import CHAR_WIDTH, NO_END, NO_START, WIDE_CHAR_WIDTH, text_width, text_width_em, wrap

ZH = "旋转位置编码的每个频率对在整个序列上转过的角度，按位置和频率对排列（头维度为128，基数为10000）"
KO = "회전 위치 임베딩의 각도: 헤드의 모든 주파수 쌍이 시퀀스 전체에서 도는 각도 (head_dim=128, base=10000)"
FONT = 15.0


def _greedy_line_count(words: list[str], most: int) -> int:
    """How many lines a greedy breaker at spaces needs (the fewest possible)."""
    lines, current = 1, ""
    for word in words:
        if current and len(current) + 1 + len(word) > most:
            lines, current = lines + 1, word
        else:
            current = f"{current} {word}" if current else word
    return lines


def _fits(line: str, width: float, font_size: float = FONT) -> bool:
    return text_width_em(line) * font_size <= width + 1e-9


def test_the_width_counts_han_and_hangul_as_wide_and_latin_as_narrow():
    assert text_width_em("abcd") == pytest.approx(4 * CHAR_WIDTH)
    assert text_width_em("位置编码") == pytest.approx(4 * WIDE_CHAR_WIDTH)
    assert text_width_em("위치 인코딩") == pytest.approx(5 * WIDE_CHAR_WIDTH + CHAR_WIDTH)
    assert text_width_em("（，）") == pytest.approx(3 * WIDE_CHAR_WIDTH)  # fullwidth punctuation
    assert text_width("RoPE") == 4 and text_width("旋转") > 2 * 1.8


def test_latin_text_wraps_as_it_did():
    assert wrap("relative distance k (tokens, log)", 170, 15.6) == "relative distance<br>k (tokens, log)"
    assert wrap("short", 500, 12) == "short"
    assert wrap("kept<br>break", 500, 12) == "kept<br>break"


@given(
    st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789,.:_²", min_size=1, max_size=14), max_size=30),
    st.floats(min_value=40, max_value=900),
    st.sampled_from([10.0, 12.0, 13.0, 15.0, 20.0]),
)
def test_latin_prose_breaks_at_spaces_into_the_fewest_lines_that_fit(words, width, font_size):
    text = " ".join(words)
    lines = wrap(text, width, font_size).split("<br>")
    most = max(int(width / (CHAR_WIDTH * font_size)), 8)
    assert " ".join(lines) == text  # broken at spaces only
    assert all(len(line) <= most or " " not in line for line in lines)  # a line wider holds one word
    assert len(lines) == _greedy_line_count(words, most)


def test_latin_lines_are_of_about_equal_length():
    text = "the quick brown fox jumps over the lazy dog and then runs far away into the dark forest"
    lines = wrap(text, 330, 15).split("<br>")
    assert len(lines) == 3 and max(map(len, lines)) - min(map(len, lines)) <= 6, lines


EXPRESSIONS = (
    "θ_i = base^(−2i/d)",
    "j − i",
    "clip(j − i, −k, k) + k",
    "[20, 46]",
    "`rope_theta = 500000`",
    "m·θ_i mod 2π",
    "s·L = 16,384",
    "λ = 265 → 320",
    "‖e‖ = 1·‖PE‖",
    "<span style='color:red'>red</span>",
)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_a_line_never_breaks_inside_an_expression(expression):
    for text in (
        f"the angle of the pair is {expression} for every position of the sequence and every head",
        f"每个频率对的角度 {expression}，对序列中的每个位置和每个头都成立",
        f"쌍의 각도는 {expression} 이며 시퀀스의 모든 위치와 모든 헤드에서 같습니다",
    ):
        for width in range(120, 700, 9):
            lines = wrap(text, width, FONT).split("<br>")
            assert any(expression in line for line in lines), (width, lines)


def test_text_around_an_expression_still_breaks():
    lines = wrap("Shaw relative index clip(j − i, −k, k) + k, k=16, L=1,024", 200, FONT).split("<br>")
    assert len(lines) >= 2 and any("clip(j − i, −k, k) + k," in line for line in lines)


def test_tags_take_no_width():
    assert text_width("m = 2<sup>−1</sup>") == text_width("m = 2−1")
    assert text_width("a &lt; b") == len("a < b")


CHINESE_WORDS = ("旋转", "位置", "编码", "频率", "角度", "排列", "维度", "基数", "整个", "每个")


def test_chinese_breaks_after_punctuation_and_particles_before_inside_a_word():
    """Where the line's length allows a choice, a Chinese line ends after a comma or a particle (的), not inside a
    word; a number keeps its measure word (4 个)."""
    assert wrap(ZH, 330, FONT).split("<br>") == [
        "旋转位置编码的每个频率对在整个序列上转过的",
        "角度，按位置和频率对排列",
        "（头维度为128，基数为10000）",
    ]
    assert wrap(ZH, 500, FONT).split("<br>") == [
        "旋转位置编码的每个频率对在整个序列上转过的角度，",
        ZH.split("，", 1)[1],
    ]
    inside = 0
    for width in range(260, 720, 10):
        lines = wrap(ZH, width, FONT).split("<br>")
        for before, after in itertools.pairwise(lines):
            inside += any(before[-1] == word[0] and after[0] == word[1] for word in CHINESE_WORDS)
    assert inside <= 4, "Chinese broken inside a word where another place was as good"
    lines = wrap("分数随 m − n 的变化，4 个键位置，种子 0，layout=half，head_dim=64, base=10000, L=256", 330, 22)
    assert "4 个" in lines.replace("<br>", "|") and "m − n" in lines


def test_a_chinese_title_too_wide_for_the_line_is_wrapped_though_it_has_few_characters():
    title = "旋转位置编码的角度随位置和频率对的变化情况一览"  # 23 characters: 23 em, not 23 x 0.55 em
    assert text_width_em(title) * FONT > 330 > len(title) * CHAR_WIDTH * FONT
    lines = wrap(title, 330, FONT).split("<br>")
    assert len(lines) == 2 and "".join(lines) == title
    assert all(_fits(line, 330) for line in lines)


def test_chinese_breaks_between_characters_into_lines_that_fit_and_of_even_length():
    lines = wrap(ZH, 330, FONT).split("<br>")
    assert len(lines) >= 3
    assert "".join(lines) == ZH  # nothing added, nothing lost: no spaces to break at
    assert all(_fits(line, 330) for line in lines)
    widths = [text_width_em(line) for line in lines]
    assert max(widths) - min(widths) <= 10  # about even lines, no character left alone on the last line


def test_chinese_lines_never_start_with_closing_nor_end_with_opening_punctuation():
    for width in range(120, 700, 7):
        lines = wrap(ZH, width, FONT).split("<br>")
        assert "".join(lines) == ZH
        assert not any(line[0] in NO_START for line in lines[1:]), (width, lines)
        assert not any(line[-1] in NO_END for line in lines[:-1]), (width, lines)


def test_latin_words_and_tags_inside_chinese_are_never_cut():
    text = "在 head_dim=128 的模型里，每个<b>频率对</b>的波长 λ_i = 2π·base^(2i/d) 各不相同，RoPE 的角度随之变化"
    for width in range(150, 600, 11):
        lines = wrap(text, width, FONT).split("<br>")
        assert len(lines) >= 2
        for kept in ("head_dim=128", "<b>频", "对</b>的", "λ_i", "2π·base^(2i/d)", "RoPE"):
            assert any(kept in line for line in lines), (kept, width, lines)  # whole, on one line


def test_korean_breaks_at_spaces_only_when_its_words_fit():
    lines = wrap(KO, 330, FONT).split("<br>")
    assert len(lines) >= 3
    assert " ".join(lines) == KO  # broken at spaces
    assert all(_fits(line, 330) for line in lines)
    words = set(KO.split(" "))
    assert all(word in words for line in lines for word in line.split(" "))  # no word cut


def test_a_korean_word_longer_than_the_line_breaks_between_its_syllables():
    word = "위치인코딩주파수쌍회전각도어텐션점수외삽보간"
    lines = wrap(f"긴 낱말 {word}", 200, FONT).split("<br>")
    assert len(lines) >= 2
    assert "".join(lines).replace(" ", "") == f"긴낱말{word}"
    assert all(_fits(line, 200) for line in lines)


def test_a_long_latin_word_is_still_left_whole():
    assert wrap("a supercalifragilisticexpialidocious_parameter_name b", 100, 12).split("<br>")[1] == (
        "supercalifragilisticexpialidocious_parameter_name"
    )
