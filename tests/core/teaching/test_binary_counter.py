import math

import pytest
import torch

from posenc_core.encodings import sinusoidal
from posenc_core.teaching import binary_counter


def test_bits_equal_python_binary_digits(device):
    got = binary_counter.bits(range(300), 9, device=device).cpu()
    for p in range(300):
        digits = bin(p)[2:].zfill(9)[::-1]  # least significant first
        assert got[p].tolist() == [int(d) for d in digits]


def test_bit_k_flips_every_2_to_the_k_positions():
    b = binary_counter.bits(range(1024), 10)
    for k in range(10):
        flips = (b[1:, k] != b[:-1, k]).nonzero().squeeze(1) + 1
        assert flips.tolist() == list(range(2**k, 1024, 2**k))


@pytest.mark.parametrize(("length", "needed"), [(1, 1), (2, 1), (3, 2), (64, 6), (65, 7), (512, 9)])
def test_bits_needed_writes_every_position(length, needed):
    assert binary_counter.bits_needed(length) == needed
    assert binary_counter.bits(range(length), needed).shape == (length, needed)


@pytest.mark.parametrize("layout", sinusoidal.LAYOUTS)
@pytest.mark.parametrize("d_model", [128, 65, 8])
def test_doubling_pairs_are_the_nearest_wavelengths_found_by_a_loop(layout, d_model):
    chosen = binary_counter.doubling_pairs(d_model, base=10000.0, layout=layout, count=7)
    wavelength = sinusoidal.wavelengths(d_model, base=10000.0, layout=layout, dtype=torch.float64)
    pair_of = sinusoidal.channel_pair_index(d_model, layout)
    n_pairs = d_model // 2 if layout == "t2t" else (d_model + 1) // 2
    lam = [float(wavelength[(pair_of == i).nonzero()[0, 0]]) for i in range(n_pairs)]
    expected = []
    for k in range(7):
        target = 2 * math.pi * 2**k
        best = min(range(n_pairs), key=lambda i: (abs(math.log(lam[i] / target)), i))
        if not expected or expected[-1] != best:
            expected.append(best)
    assert chosen.pairs.tolist() == expected
    torch.testing.assert_close(chosen.wavelengths, torch.tensor([lam[i] for i in expected], dtype=torch.float64))
    table = sinusoidal.encoding(50, d_model, layout=layout, dtype=torch.float64)
    for pair, channel in zip(chosen.pairs.tolist(), chosen.sin_channels.tolist(), strict=True):
        omega = 2 * math.pi / lam[pair]
        torch.testing.assert_close(table[:, channel], torch.sin(torch.arange(50.0, dtype=torch.float64) * omega))


def test_at_the_textbook_size_the_chosen_wavelengths_double():
    chosen = binary_counter.doubling_pairs(128, count=6)
    ratios = chosen.wavelengths[1:] / chosen.wavelengths[:-1]
    assert chosen.pairs.numel() == 6 and bool(((ratios > 1.5) & (ratios < 2.7)).all())


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: binary_counter.bits([-1, 2], 3), "positions"),
        (lambda: binary_counter.bits([1, 2], 0), "n_bits"),
        (lambda: binary_counter.bits_needed(0), "length"),
        (lambda: binary_counter.doubling_pairs(128, count=0), "count"),
        (lambda: binary_counter.doubling_pairs(0, count=3), "d_model"),
        (lambda: binary_counter.doubling_pairs(16, layout="spiral", count=3), "layout"),
    ],
)
def test_bad_arguments_name_the_argument(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()
