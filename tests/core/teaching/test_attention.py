import pytest
import torch

from posenc_core.teaching import attention

CAT = "The cat sat on the mat".split()
MAT = "The mat sat on the cat".split()


def _positional(length, d_model):
    """A plain sinusoidal signal written out here so this test does not depend on another module."""
    positions = torch.arange(length, dtype=torch.float32)[:, None]
    pair = torch.arange(0, d_model, 2, dtype=torch.float32) / d_model
    angles = positions / 10000.0**pair
    table = torch.zeros(length, d_model)
    table[:, 0::2], table[:, 1::2] = torch.sin(angles), torch.cos(angles)
    return table


def test_without_position_the_two_sentences_give_the_same_outputs_up_to_order(device):
    a = attention.self_attention(attention.token_embeddings(CAT, 16, device=device))
    b = attention.self_attention(attention.token_embeddings(MAT, 16, device=device))
    assert attention.token_output_gap(CAT, a, MAT, b) < 1e-6
    assert torch.allclose(a.weights.sum(-1), torch.ones(len(CAT), device=device))


def test_with_position_the_outputs_differ(device):
    pe = _positional(len(CAT), 16).to(device)
    a = attention.self_attention(attention.token_embeddings(CAT, 16, device=device) + pe)
    b = attention.self_attention(attention.token_embeddings(MAT, 16, device=device) + pe)
    assert attention.token_output_gap(CAT, a, MAT, b) > 1e-2


def test_attention_is_permutation_equivariant_against_a_loop():
    x = attention.token_embeddings(CAT, 8)
    permutation = torch.tensor([3, 0, 5, 1, 4, 2])
    out = attention.self_attention(x).outputs
    out_permuted = attention.self_attention(x[permutation]).outputs
    for new_row, old_row in enumerate(permutation.tolist()):
        torch.testing.assert_close(out_permuted[new_row], out[old_row])


def test_same_token_same_embedding_case_insensitive():
    x = attention.token_embeddings(CAT, 8)
    torch.testing.assert_close(x[0], x[4])  # "The" and "the"
    assert not torch.equal(x[1], x[5])


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: attention.token_embeddings([], 8), "tokens"),
        (lambda: attention.token_embeddings(CAT, 0), "d_model"),
        (lambda: attention.self_attention(torch.zeros(3)), "x"),
        (lambda: attention.token_output_gap(CAT, None, ["a"], None), "tokens_b"),
    ],
)
def test_bad_arguments_name_the_argument(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()
