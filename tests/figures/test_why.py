import numpy as np
import pytest

import figures  # noqa: F401
from figures import registry


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
    no_pe, with_pe = _build().notes
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
