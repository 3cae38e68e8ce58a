import pytest

from posenc_core.teaching import wordpiece

VOCAB = {
    token: index
    for index, token in enumerate(
        ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "the", "cat", ",", "!", "'", "s", "cafe", "東"]
    )
}


def test_greedy_longest_match_first_splits_a_word_into_pieces():
    assert wordpiece.wordpiece("unaffable", VOCAB) == ["un", "##aff", "##able"]  # Devlin et al.'s example
    assert wordpiece.wordpiece("unx", VOCAB) == ["[UNK]"]  # no split of the whole word: the whole word is unknown
    assert wordpiece.wordpiece("a" * 101, {"a": 0, "##a": 1}) == ["[UNK]"]


def test_basic_tokens_lower_case_strip_accents_and_split_off_punctuation():
    assert wordpiece.basic_tokens("The CAT's, café!") == ["the", "cat", "'", "s", ",", "cafe", "!"]
    assert wordpiece.basic_tokens("a\tb\nc\x00d\u200b") == ["a", "b", "cd"]  # \u200b is a format (Cf) character
    assert wordpiece.basic_tokens("x東y") == ["x", "東", "y"]  # CJK ideographs stand alone
    assert wordpiece.basic_tokens("$5^`") == ["$", "5", "^", "`"]  # ASCII symbols count as punctuation
    assert wordpiece.basic_tokens("Café", lower_case=False) == ["Café"]


def test_encode_adds_cls_and_sep_and_refuses_too_many_tokens():
    encoding = wordpiece.encode("The cat's unaffable!", VOCAB)
    assert encoding.tokens == ("[CLS]", "the", "cat", "'", "s", "un", "##aff", "##able", "!", "[SEP]")
    assert encoding.ids == tuple(VOCAB[token] for token in encoding.tokens)
    assert wordpiece.encode("", VOCAB).tokens == ("[CLS]", "[SEP]")
    with pytest.raises(ValueError, match="at most 4 tokens"):
        wordpiece.encode("the cat the cat", VOCAB, max_tokens=4)


def test_load_vocab_reads_one_token_a_line(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("[PAD]\n[UNK]\nhello\n", encoding="utf-8")
    assert wordpiece.load_vocab(path) == {"[PAD]": 0, "[UNK]": 1, "hello": 2}


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: wordpiece.basic_tokens(3), "text"),
        (lambda: wordpiece.encode("hi", {"[CLS]": 0}), "vocab"),
        (lambda: wordpiece.load_vocab("/nonexistent/vocab.txt"), "path"),
    ],
)
def test_bad_arguments_name_the_argument(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()
