import math

import pytest
import torch

from posenc_core.teaching import attention, recurrent

CAT = "The cat sat on the mat".split()
MAT = "The mat sat on the cat".split()


def _loop_oracle(x, w, u):
    """h_t = tanh(W h_{t-1} + U x_t), written with Python floats straight from Elman's recurrence."""
    hidden, states = [0.0] * len(w), []
    for x_t in x:
        hidden = [
            math.tanh(
                sum(w[r][c] * hidden[c] for c in range(len(hidden))) + sum(u[r][c] * x_t[c] for c in range(len(x_t)))
            )
            for r in range(len(w))
        ]
        states.append(hidden)
    return states


def test_states_equal_a_loop_over_the_recurrence(device):
    weights = recurrent.rnn_weights(5, 7, seed=3, device=device, dtype=torch.float64)
    x = torch.randn(9, 5, generator=torch.Generator().manual_seed(0), dtype=torch.float64).to(device)
    got = recurrent.rnn_states(x, weights).cpu()
    want = _loop_oracle(x.cpu().tolist(), weights.recurrent.cpu().tolist(), weights.input.cpu().tolist())
    torch.testing.assert_close(got, torch.tensor(want, dtype=torch.float64), rtol=1e-12, atol=1e-12)


def test_the_two_word_orders_end_in_different_states_but_attention_gives_the_same_outputs_permuted(device):
    x_cat, x_mat = (attention.token_embeddings(t, 16, device=device) for t in (CAT, MAT))
    weights = recurrent.rnn_weights(16, 8, device=device)
    h_cat, h_mat = recurrent.rnn_states(x_cat, weights), recurrent.rnn_states(x_mat, weights)
    assert (h_cat[-1] - h_mat[-1]).abs().max() > 0.1  # the final state knows the order
    gaps = recurrent.matched_gaps(CAT, h_cat, MAT, h_mat)
    assert gaps[0] == 0 and bool((gaps[1:] > 0.05).all())  # only the shared first word "The" has an equal state
    out_cat, out_mat = (attention.self_attention(x).outputs for x in (x_cat, x_mat))
    assert recurrent.matched_gaps(CAT, out_cat, MAT, out_mat).max() < 1e-5
    torch.testing.assert_close(out_cat.mean(0), out_mat.mean(0))  # pooled attention output: order lost


def test_attention_is_permutation_equivariant_and_the_rnn_is_not():
    x = attention.token_embeddings(CAT, 8)
    permutation = torch.tensor([3, 0, 5, 1, 4, 2])
    weights = recurrent.rnn_weights(8, 8)
    torch.testing.assert_close(
        attention.self_attention(x[permutation]).outputs, attention.self_attention(x).outputs[permutation]
    )
    states, states_permuted = recurrent.rnn_states(x, weights), recurrent.rnn_states(x[permutation], weights)
    assert not torch.allclose(states_permuted, states[permutation])


def test_the_same_word_read_at_different_steps_gives_different_states():
    x = attention.token_embeddings(["the"] * 4, 8)
    states = recurrent.rnn_states(x, recurrent.rnn_weights(8, 8))
    assert torch.equal(x[0], x[3])
    for t in range(1, 4):
        assert (states[t] - states[t - 1]).abs().max() > 1e-3  # the input is the same: the step is the difference


def test_an_equal_prefix_gives_equal_states_up_to_where_the_sentences_part():
    weights = recurrent.rnn_weights(8, 6)
    a = recurrent.rnn_states(attention.token_embeddings("a b c d".split(), 8), weights)
    b = recurrent.rnn_states(attention.token_embeddings("a b d c".split(), 8), weights)
    torch.testing.assert_close(a[:2], b[:2], rtol=0, atol=0)
    assert (a[2] - b[2]).abs().max() > 1e-3


def test_weights_are_seeded_and_shaped():
    one, two = recurrent.rnn_weights(4, 3, seed=5), recurrent.rnn_weights(4, 3, seed=5)
    assert one.recurrent.shape == (3, 3) and one.input.shape == (3, 4)
    assert torch.equal(one.recurrent, two.recurrent) and torch.equal(one.input, two.input)
    assert not torch.equal(one.input, recurrent.rnn_weights(4, 3, seed=6).input)


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: recurrent.rnn_weights(0, 4), "input_dim"),
        (lambda: recurrent.rnn_weights(4, 0), "hidden_dim"),
        (lambda: recurrent.rnn_weights(4, 4, gain=0), "gain"),
        (lambda: recurrent.rnn_weights(4, 4, seed=-1), "seed"),
        (lambda: recurrent.rnn_states(torch.zeros(3), recurrent.rnn_weights(4, 4)), "x"),
        (lambda: recurrent.rnn_states(torch.zeros(3, 5), recurrent.rnn_weights(4, 4)), "weights.input"),
        (lambda: recurrent.matched_gaps(CAT, torch.zeros(6, 2), ["a"], torch.zeros(1, 2)), "tokens_b"),
        (lambda: recurrent.matched_gaps(CAT, torch.zeros(5, 2), MAT, torch.zeros(6, 2)), "outputs_a"),
    ],
)
def test_bad_arguments_name_the_argument(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()
