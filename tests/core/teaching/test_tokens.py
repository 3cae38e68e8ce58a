import pytest

from posenc_core.teaching.tokens import is_han, split_tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("I love you", ["I", "love", "you"]),
        ("我爱你", ["我", "爱", "你"]),
        ("狗咬人", ["狗", "咬", "人"]),
        ("我爱 RoPE 2024", ["我", "爱", "RoPE", "2024"]),
        ("RoPE是2021年提出的", ["RoPE", "是", "2021", "年", "提", "出", "的"]),
        ("개가 사람을 문다", ["개가", "사람을", "문다"]),  # Korean is written with spaces between words
        ("狗咬人，人咬狗。", ["狗", "咬", "人", "，", "人", "咬", "狗", "。"]),
        ("  the   mat\tsat\n", ["the", "mat", "sat"]),
        ("", []),
        ("𠀀〇", ["𠀀", "〇"]),  # extension B and the ideographic zero
    ],
)
def test_han_characters_are_tokens_of_their_own_and_other_words_stay_whole(text, tokens):
    assert split_tokens(text) == tokens


@pytest.mark.parametrize("text", ["The cat sat on the mat.", "개가 사람을 문다", "a  b,c d-e 3.14"])
def test_text_without_han_characters_splits_as_str_split(text):
    assert split_tokens(text) == text.split()


def test_is_han():
    assert is_han("狗") and is_han("〇")
    assert not is_han("개") and not is_han("a") and not is_han("，")


def test_a_text_that_is_not_a_string_is_refused():
    with pytest.raises(TypeError, match="text"):
        split_tokens(["狗"])
