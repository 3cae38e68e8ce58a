import numpy as np
import pytest
import torch

from posenc import figures  # noqa: F401
from posenc.drawing import registry
from posenc.figures.why.recurrent import shared_prefix
from posenc_core.teaching import attention, recurrent


def _build(figure_id, **overrides):
    params, _ = registry.resolve_params(figure_id, overrides)
    return registry.build(figure_id, params)


def test_the_state_heatmaps_are_the_core_rnn_states_of_each_sentence():
    result = _build("why-rnn-states", hidden_dim=5, embedding_dim=12)
    weights = recurrent.rnn_weights(12, 5)
    for name, text in (("A", "The cat sat on the mat"), ("B", "The mat sat on the cat")):
        want = recurrent.rnn_states(attention.token_embeddings(text.split(), 12), weights)
        np.testing.assert_allclose(result.data[f"states_{name}"], want.numpy(), atol=1e-7)
    a, b = (trace for trace in result.figure.data if trace.type == "heatmap")
    assert np.asarray(a.z).shape == (6, 5) and list(b.y) == ["0:The", "1:mat", "2:sat", "3:on", "4:the", "5:cat"]
    assert "H=5" in result.figure.layout.title.text


def test_the_bars_are_zero_for_attention_and_not_for_the_rnn_after_the_first_moved_word():
    result = _build("why-rnn-vs-attention")
    rnn_gap, attention_gap = result.data["rnn_gap"], result.data["attention_gap"]
    assert attention_gap.max() < 1e-5
    assert rnn_gap[0] == 0 and (rnn_gap[1:] > 0.05).all()  # "The" is read first in both sentences
    bars = [trace for trace in result.figure.data if trace.type == "bar"]
    assert [bar.name for bar in bars] == ["RNN state", "attention output, no PE"]
    assert list(bars[1].text) == ["0"] * 6 and list(bars[0].text) == ["0", "", "", "", "", ""]
    for bar in bars:  # a bar of height 0 is drawn: its outline, in its colour, is a line along the axis
        assert bar.marker.line.width >= 2 and bar.marker.line.color == bar.marker.color
    legend, y_range = result.figure.layout.legend, result.figure.layout.yaxis.range
    assert legend.y < 1 and legend.yanchor == "top"  # inside the plot, over the bars: read with them
    assert y_range[1] >= 1.4 * float(rnn_gap.max())  # room for it over the tallest bar
    final = float(result.notes[1].split("final states differ by ")[1].rstrip("."))
    weights = recurrent.rnn_weights(16, 8)
    h_a, h_b = (
        recurrent.rnn_states(attention.token_embeddings(t.split(), 16), weights)[-1]
        for t in ("The cat sat on the mat", "The mat sat on the cat")
    )
    assert final == pytest.approx(float((h_a - h_b).abs().max()), abs=1e-3) and final > 0.1


def test_b_in_as_order_gives_equal_states_and_the_shared_prefix_counts_them():
    result = _build("why-rnn-vs-attention", sentence_b="The cat sat on the mat")
    assert result.data["rnn_gap"].max() == 0
    assert shared_prefix(result.data["rnn_gap"]) == 6
    assert shared_prefix(torch.tensor([0.0, 0.0, 0.3, 0.0])) == 2


@pytest.mark.parametrize("figure_id", ["why-rnn-states", "why-rnn-vs-attention"])
def test_a_sentence_b_that_is_not_a_reordering_names_the_argument(figure_id):
    with pytest.raises(ValueError, match="sentence_b"):
        _build(figure_id, sentence_b="a dog")


def test_the_largest_parameters_build_small_figures():
    words = " ".join(f"w{i}" for i in range(32))
    result = _build("why-rnn-states", sentence_a=words, sentence_b=" ".join(reversed(words.split())), hidden_dim=64)
    assert result.data["states_A"].shape == (32, 64)
    assert len(result.figure.to_json()) < 200_000
