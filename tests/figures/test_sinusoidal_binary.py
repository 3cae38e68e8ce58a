import numpy as np
import pytest

from posenc import figures  # noqa: F401
from posenc.drawing import registry
from posenc_core.encodings import sinusoidal
from posenc_core.teaching import binary_counter

FIGURE = "sinusoidal-binary-counter"


def _build(**overrides):
    params, _ = registry.resolve_params(FIGURE, overrides)
    return registry.build(FIGURE, params)


def test_the_left_panel_is_the_bits_of_every_position_and_the_right_one_the_core_sin_channels():
    result = _build()
    bits, waves = (trace for trace in result.figure.data if trace.type == "heatmap")
    z_bits = np.asarray(bits.z)
    assert z_bits.shape == (64, 6) and list(bits.x) == [f"bit {k}" for k in range(6)]
    assert [int("".join(str(int(b)) for b in row[::-1]), 2) for row in z_bits] == list(range(64))
    channels = result.data["sin_channels"].astype(int)
    want = sinusoidal.encoding(64, 128).numpy()[:, channels]
    np.testing.assert_allclose(np.asarray(waves.z), want, atol=1e-7)
    assert channels.tolist() == [0, 10, 20, 28, 38, 48]  # interleaved: the sin channel of pair i is 2i
    assert "N=64" in result.figure.layout.title.text and "d_model=128" in result.figure.layout.title.text


def test_the_notes_follow_the_wavelengths_drawn():
    notes = _build().notes
    lam = _build().data["wavelengths"]
    assert "bit 5 every 32" in notes[0]
    assert f"{lam[1]:,.3g}" in notes[1] and "about twice the one before" in notes[1]
    assert "1.155 per pair" in notes[2] and "denser" in notes[2]
    sparse = _build(d_model=8, layout="t2t").notes
    assert "not a doubling" in sparse[1] and "more than a bit's 2" in sparse[2]
    assert sparse[3].startswith("2 pairs are drawn for the 6 bits")


@pytest.mark.parametrize("layout", sinusoidal.LAYOUTS)
def test_every_layout_draws_sin_channels_of_the_doubling_pairs(layout):
    result = _build(layout=layout, d_model=66, binary_positions=100)
    chosen = binary_counter.doubling_pairs(66, layout=layout, count=7)
    np.testing.assert_array_equal(result.data["pairs"], chosen.pairs.numpy())
    waves = np.asarray(result.figure.data[1].z)
    np.testing.assert_allclose(waves[:, 0], np.sin(np.arange(100.0)), atol=1e-6)  # pair 0: ω = 1


def test_the_largest_parameters_stay_small():
    result = _build(binary_positions=512, d_model=8192)
    assert result.data["bits"].shape == (512, 9)
    assert len(result.figure.to_json()) < 300_000
