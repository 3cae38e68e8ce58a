import numpy as np
import pytest

from posenc import (
    figures,  # noqa: F401
    i18n,
)
from posenc.drawing import registry
from posenc.figures.why.attention import EXAMPLE_SENTENCES, example_pair
from posenc_core.teaching.tokens import split_tokens


def _build(**overrides):
    params, _ = registry.resolve_params("why-attention", overrides)
    return registry.build("why-attention", params)


def test_four_heatmaps_of_attention_weights_whose_rows_sum_to_one():
    result = _build()
    heatmaps = [trace for trace in result.figure.data if trace.type == "heatmap"]
    assert len(heatmaps) == 4
    for trace in heatmaps:
        z = np.asarray(trace.z)
        assert z.shape == (6, 6)
        np.testing.assert_allclose(z.sum(axis=1), 1.0, rtol=1e-5)
    assert "d_model=16" in result.figure.layout.title.text


def test_notes_report_zero_gap_without_pe_and_a_gap_with_it():
    _, no_pe, with_pe, _ = _build().notes
    assert float(no_pe.split("is ")[1].split(":")[0]) < 1e-5
    assert float(with_pe.split("is ")[1].split(":")[0]) > 1e-3


def test_without_pe_sentence_b_weights_are_a_permutation_of_a():
    data = _build().data
    a, b = data["weights_A_no_PE"], data["weights_B_no_PE"]
    order = [0, 5, 2, 3, 4, 1]  # B = "The mat sat on the cat": positions of A's words in B
    np.testing.assert_allclose(b[np.ix_(order, order)], a, atol=1e-6)
    assert not np.allclose(data["weights_B_sinusoidal_PE"][np.ix_(order, order)], data["weights_A_sinusoidal_PE"])


@pytest.mark.parametrize(
    ("overrides", "argument"),
    [({"sentence_b": "a dog"}, "sentence_b"), ({"sentence_a": " "}, "sentence_a")],
)
def test_bad_sentences_name_the_argument(overrides, argument):
    with pytest.raises(ValueError, match=argument):
        _build(**overrides)


def test_b_is_drawn_in_as_word_order_so_without_pe_the_two_pictures_are_the_same():
    result = _build()
    a_no, b_no, a_pe, b_pe = (np.asarray(trace.z) for trace in result.figure.data)
    np.testing.assert_allclose(b_no, a_no, atol=1e-6)  # equal at a glance: attention ignores the order
    assert np.abs(b_pe - a_pe).max() > 0.05
    assert list(result.figure.data[1].y) == ["0:The", "5:cat", "2:sat", "3:on", "4:the", "1:mat"]  # positions in B
    assert "drawn in A's word order" in result.notes[0]
    assert result.notes[-1] == (
        "'cat' attends to 'mat' with weight 0.1679 in A and 0.1679 in B without PE; 0.2477 in A and 0.1325 in B "
        "with PE."
    )


def test_the_example_words_are_once_in_each_sentence_and_the_first_one_moved():
    assert example_pair("The cat sat on the mat", "The mat sat on the cat") == ("cat", "mat", (1, 5), (5, 1))
    assert example_pair("the dog bit the man", "the man bit the dog")[:2] == ("dog", "man")
    assert example_pair("a b c", "a b c") is None  # nothing moved
    assert example_pair("a a", "a a") is None


def test_chinese_is_read_one_character_a_token_and_words_stay_whole():
    result = _build(sentence_a="狗咬人", sentence_b="人咬狗")
    heatmaps = [trace for trace in result.figure.data if trace.type == "heatmap"]
    assert np.asarray(heatmaps[0].z).shape == (3, 3)
    assert list(heatmaps[0].y) == ["0:狗", "1:咬", "2:人"] and list(heatmaps[1].y) == ["2:狗", "1:咬", "0:人"]
    mixed = _build(sentence_a="我爱 RoPE 2024", sentence_b="2024 RoPE 爱我")
    assert np.asarray(mixed.figure.data[0].z).shape == (4, 4)
    assert example_pair("狗咬人", "人咬狗") == ("狗", "人", (0, 2), (2, 0))


def test_too_many_chinese_characters_say_what_a_token_is():
    with pytest.raises(ValueError, match="sentence_a must hold 1 to 32 tokens.*Chinese characters.*got 33"):
        _build(sentence_a="狗" * 33, sentence_b="狗" * 33)


@pytest.mark.parametrize("code", sorted(EXAMPLE_SENTENCES))
def test_each_languages_example_pair_is_one_reordering_that_the_page_can_quote(code):
    sentence_a, sentence_b = EXAMPLE_SENTENCES[code]
    assert sorted(split_tokens(sentence_a)) == sorted(split_tokens(sentence_b)) and sentence_a != sentence_b
    assert example_pair(sentence_a, sentence_b) is not None
    gaps = _build(sentence_a=sentence_a, sentence_b=sentence_b).notes
    assert float(gaps[1].split("is ")[1].split(":")[0]) < 1e-5


def test_the_figure_reads_in_the_readers_language():
    with i18n.language("zh-CN"):
        result = _build(sentence_a="狗咬人", sentence_b="人咬狗")
    assert result.figure.layout.title.text.startswith("单个注意力头的注意力权重，d_model=16<br>A = '狗咬人'")
    assert result.notes[-1].startswith("'狗' 对 '人' 的注意力权重：无 PE 时在 A 中为")
