import math
import time

import numpy as np
import pytest
import torch

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.figures.context.angles import chosen_pairs
from posenc_core import rope
from posenc_core.rope import scaling as rope_scaling


def build(**overrides):
    params, messages = registry.resolve_params("context-angles", overrides)
    assert messages == []
    return registry.build("context-angles", params), params


def test_pairs_span_the_spectrum_and_include_the_first_that_never_turns_in_training():
    wavelength = rope.wavelengths(rope_scaling.default_inv_freq(128, 1e4))
    pairs = chosen_pairs(wavelength, 4096)
    assert pairs[-1] == 63 and len(pairs) == 4
    critical = pairs[2]
    assert wavelength[critical] >= 4096 > wavelength[critical - 1]


def test_angles_equal_the_core_angles_mod_two_pi_and_the_trained_range_is_shaded():
    result, _ = build()
    fig = result.figure
    original = rope_scaling.default_inv_freq(128, 1e4)
    scaled, _ = rope_scaling.inv_freq(
        128, 1e4, {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
    )
    pairs = chosen_pairs(rope.wavelengths(original), 4096)
    curves = [trace for trace in fig.data if trace.x[0] is not None]
    keys = [trace.name for trace in fig.data if trace.x[0] is None]
    assert len(curves) == 2 * len(pairs)
    assert keys == ["trained range 0..L=4,096", "L = 4,096", "s·L = 16,384", "seq_len = 1,024"]
    for n, i in enumerate(pairs):
        for trace, inv in zip(curves[2 * n : 2 * n + 2], (original, scaled), strict=True):
            positions = torch.as_tensor(np.asarray(trace.x, dtype=np.int64))
            expected = torch.remainder(rope.angles(positions, inv[i : i + 1]).flatten().double(), 2 * math.pi)
            np.testing.assert_allclose(trace.y, expected.numpy(), atol=1e-5)
    assert fig.data[0].x[-1] == 16383  # max(seq_len, s·L, 2L) - 1
    shaded = [shape for shape in fig.layout.shapes if shape.type == "rect"]
    assert shaded and all((shape.x0, shape.x1) == (0, 4096) for shape in shaded)
    assert "YaRN" in fig.layout.title.text and "L=4,096" in fig.layout.title.text
    assert any("sampled: 2,048 of 16,384 positions" in note for note in result.notes)


def test_fast_pairs_over_a_long_range_are_drawn_as_an_envelope():
    start = time.process_time()  # this process's CPU (about 0.13 s here): what a busy machine does not stretch
    result, _ = build(seq_len=1_048_576, head_dim=512, factor=64.0, base=1e4)
    elapsed = time.process_time() - start
    bands = [trace for trace in result.figure.data if trace.fill == "toself"]
    assert bands and all(len(trace.x) <= 2048 for trace in result.figure.data)
    low_high = np.asarray(bands[0].y)
    assert low_high.min() >= 0 and low_high.max() <= 2 * math.pi
    assert any("min/max" in note for note in result.notes)
    assert len(result.figure.to_json()) < 400_000
    assert elapsed < 3.0


def test_positions_stop_at_the_app_limit_and_say_so():
    result, _ = build(original_max_position_embeddings=1_048_576, factor=2.0, seq_len=4096)
    assert result.figure.data[0].x[-1] == 1_048_575
    assert any("s·L = 2,097,152 lies beyond" in note for note in result.notes)


def test_default_rope_type_draws_the_original_twice_and_says_so():
    result, _ = build(rope_type="default")
    assert result.figure.data[1].name == "no scaling (default)"  # rope_type default: the original, said so
    np.testing.assert_array_equal(result.figure.data[0].y, result.figure.data[1].y)


def test_dynamic_uses_the_seq_len_frequencies():
    result, _ = build(rope_type="dynamic", seq_len=32768)
    assert any("seq_len=32,768" in note for note in result.notes)


@pytest.mark.parametrize(("overrides", "argument"), [({"low_freq_factor": 8.0, "rope_type": "llama3"}, "low_freq")])
def test_bad_parameters_name_the_argument(overrides, argument):
    with pytest.raises(ValueError, match=argument):
        build(**overrides)


def test_marks_at_one_position_share_a_line_and_an_entry_and_no_scaling_is_named_so():
    result, _ = build(rope_type="default", factor=4.0, original_max_position_embeddings=4096, seq_len=16384)
    fig = result.figure
    keys = [trace.name for trace in fig.data if trace.x[0] is None]
    assert keys == ["trained range 0..L=4,096", "L = 4,096", "s·L = seq_len = 16,384"]
    lines_at = [shape.x0 for shape in fig.layout.shapes if shape.type == "line" and shape.x0 == shape.x1]
    assert lines_at.count(16384) == lines_at.count(4096)  # one line per row at each position
    assert "no scaling (default)" in fig.layout.title.text
