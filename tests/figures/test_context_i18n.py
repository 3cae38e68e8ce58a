"""The context-extension page in Korean and Chinese: the text it takes from the core (the scaling keys' help, the
methods table's words) is in the catalogues, and a figure built in another language keeps the English data keys
its code snippet and the exports rely on."""

import pytest

from posenc import (
    figures,  # noqa: F401  (registers every figure and parameter)
    i18n,
)
from posenc.drawing import registry
from posenc.drawing.params import PARAMS
from posenc.figures.context.methods import CELL_TEXTS, COLUMN_LABELS, translated_rows
from posenc.figures.context.params import HELP_TEXTS, SCALING_KEY_PARAMS
from posenc_core.rope.methods import COLUMNS, methods_table

NAMES_ONLY = {"YaRN", "LongRoPE", "Llama 3.1", "Phi-3 mini/medium 128k, Phi-3.5", "1"}  # shown as they are


def test_every_scaling_key_control_shows_a_help_the_catalogues_hold():
    for name in SCALING_KEY_PARAMS:
        assert PARAMS[name].help in HELP_TEXTS, f"{name}: the core's meaning changed; update HELP_TEXTS"


def test_every_word_of_the_methods_table_is_marked_for_translation():
    assert set(COLUMNS) == {"rope_type", *COLUMN_LABELS}
    for row in methods_table():
        for column, text in row.items():
            if column in ("rope_type", "attention factor"):
                continue
            assert text in CELL_TEXTS or text in NAMES_ONLY, f"{column}: {text!r} is not in CELL_TEXTS"


@pytest.mark.parametrize("code", ["ko", "zh-CN"])
def test_the_methods_table_reads_in_the_language_with_the_rope_types_kept(code):
    rows = methods_table()
    with i18n.language(code):
        shown = translated_rows(rows)
        expected_columns = ["rope_type", *(i18n._(COLUMN_LABELS[c]) for c in COLUMNS[1:])]
    assert list(shown[0]) == expected_columns
    assert [row["rope_type"] for row in shown] == [row["rope_type"] for row in rows]
    assert shown[0][expected_columns[1]] != rows[0]["method"]  # "RoPE (no scaling)", translated


@pytest.mark.parametrize("code", ["ko", "zh-CN"])
@pytest.mark.parametrize("figure_id", ["context-angles", "context-temperature", "context-inv-freq"])
def test_a_figure_built_in_another_language_keeps_its_data_keys(figure_id, code):
    params, _messages = registry.resolve_params(figure_id, {"rope_type": "linear", "seq_len": 8192})
    english = registry.build(figure_id, params)
    with i18n.language(code):
        translated = registry.build(figure_id, params)
    assert list(translated.data) == list(english.data)
    assert translated.figure.layout.title.text != english.figure.layout.title.text
