import pytest

from posenc_core.teaching.tokens import split_tokens
from tests.pages.conftest import assert_healthy, chart_specs, open_page


def test_page_runs_and_shows_the_attention_figure_and_the_scheme_table():
    at = open_page("why_position", section="Attention: all at once")
    assert_healthy(at)
    specs = chart_specs(at)
    assert len(specs) == 1 and len(specs[0]["data"]) == 4
    assert len(at.table) == 1 and "ALiBi" in at.table[0].value.index.tolist()
    assert any("No PE" in caption.value for caption in at.caption)


def test_changing_a_sentence_changes_the_figure():
    at = open_page("why_position", section="Attention: all at once")
    before = chart_specs(at)[0]["layout"]["title"]["text"]
    at.text_input(key="sentence_a").set_value("the dog bit the man").run()
    at.text_input(key="sentence_b").set_value("the man bit the dog").run()
    assert_healthy(at)
    after = chart_specs(at)[0]
    assert after["layout"]["title"]["text"] != before and "dog" in after["layout"]["title"]["text"]
    assert at.query_params["sentence_a"] == "the dog bit the man"


def test_a_sentence_that_is_not_a_reordering_shows_a_message_not_a_traceback():
    at = open_page("why_position")
    at.text_input(key="sentence_b").set_value("a completely different sentence").run()
    assert not at.exception
    assert any("sentence_b must hold the same words" in error.value for error in at.error)
    at.text_input(key="sentence_b").set_value("The mat sat on the cat").run()
    assert_healthy(at)


def test_url_restores_every_parameter():
    query = {"embedding_dim": "64", "sentence_a": "a b c", "sentence_b": "c b a", "hidden_dim": "12"}
    at = open_page("why_position", query)
    assert_healthy(at)
    assert at.number_input(key="embedding_dim").value == 64 and at.number_input(key="hidden_dim").value == 12
    assert at.text_input(key="sentence_a").value == "a b c" and at.text_input(key="sentence_b").value == "c b a"
    shown = [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
    assert any("H=12" in title for title in shown) and any("d_model=64" in title for title in shown)


def test_the_page_says_that_equivariance_needs_attention_without_a_causal_mask():
    at = open_page("why_position")
    text = " ".join(block.value for block in at.markdown)
    assert "without a causal mask" in text and "NoPE" in text
    assert any("no mask" in formula.value for formula in at.latex)


def test_what_to_notice_quotes_the_sentences_words():
    at = open_page("why_position", section="Attention: all at once")
    (notice,) = [block.value for block in at.markdown if "What to notice" in block.value]
    assert "*cat* attends to *mat*" in notice
    at.text_input(key="sentence_a").set_value("the dog bit the man").run()
    at.text_input(key="sentence_b").set_value("the man bit the dog").run()
    (notice,) = [block.value for block in at.markdown if "What to notice" in block.value]
    assert "*dog* attends to *man*" in notice and "cat" not in notice


def test_the_page_opens_on_its_point_then_the_rnn_states_and_notes_that_follow_the_sentences():
    at = open_page("why_position", section=None)
    assert_healthy(at)
    # first the point (attention's bars are 0), said before anything else; then the RNN's states behind it
    assert (
        "One attention head cannot tell *The cat sat on the mat* from *The mat sat on the cat*" in at.markdown[0].value
    )
    assert [spec["layout"]["title"]["text"] for spec in chart_specs(at)] == [
        "Same word in A and B: the RNN's state differs, attention's output without PE is identical",
        "RNN state h_t after each word, H=8",
    ]
    (notice,) = [block.value for block in at.markdown if "What to notice" in block.value]
    assert "first 1 row is equal" in notice and "The last rows" in notice
    at.text_input(key="sentence_b").set_value("The cat on sat the mat").run()
    (notice,) = [block.value for block in at.markdown if "What to notice" in block.value]
    assert "first 2 rows are equal" in notice
    at.text_input(key="sentence_b").set_value("The cat sat on the mat").run()
    (notice,) = [block.value for block in at.markdown if "What to notice" in block.value]
    assert "B reads its words in A's order" in notice


def test_all_sections_show_the_three_figures():
    at = open_page("why_position")
    assert_healthy(at)
    assert len(chart_specs(at)) == 3
    assert sum("What to notice" in block.value for block in at.markdown) == 2


@pytest.mark.parametrize(
    ("code", "sentence_a", "sentence_b"),
    [("ko", "작은 개가 큰 고양이를 본다", "큰 개가 작은 고양이를 본다"), ("zh-CN", "狗咬人", "人咬狗")],
)
def test_the_page_opens_on_an_example_pair_in_the_readers_language(code, sentence_a, sentence_b):
    at = open_page("why_position", {"lang": code}, section="Attention: all at once")
    assert_healthy(at)
    assert at.text_input(key="sentence_a").value == sentence_a and at.text_input(key="sentence_b").value == sentence_b
    heatmap_rows = chart_specs(at)[0]["data"][0]["y"]
    assert len(heatmap_rows) == len(split_tokens(sentence_a))
    assert at.table[0].value.index.name in ("방식", "方案")  # the schemes table in the reader's language


def test_sentences_in_the_link_win_over_the_languages_example():
    at = open_page("why_position", {"lang": "ko", "sentence_a": "a b c", "sentence_b": "c b a"})
    assert_healthy(at)
    assert at.text_input(key="sentence_a").value == "a b c" and at.text_input(key="sentence_b").value == "c b a"
    at = open_page("why_position", {"lang": "zh-CN", "sentence_a": "The cat sat on the mat"})
    assert_healthy(at)  # the other sentence keeps the English default, the first one's reordering
    assert at.text_input(key="sentence_b").value == "The mat sat on the cat"
