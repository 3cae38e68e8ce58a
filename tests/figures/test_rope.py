import math

import numpy as np
import pytest
import torch

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc_core import rope
from posenc_core.rope import bounds as rope_bounds

LARGEST = {"seq_len": 1_048_576, "head_dim": 512, "base": 1e6}
NEOX = {"head_dim": 96, "partial_rotary_factor": 0.25, "seq_len": 2048}
ROPE_FIGURES = (
    "rope-channels",
    "rope-angles",
    "rope-wavelengths",
    "rope-pair-rotation",
    "rope-scores",
    "rope-relative-profile",
    "rope-decay",
)


def _build(figure_id, **overrides):
    params, messages = registry.resolve_params(figure_id, overrides)
    assert not messages, messages
    return registry.build(figure_id, params), params


def _inv_freq(params, dtype=torch.float32):
    inv_freq, _ = rope.inv_freq(
        params["head_dim"], params["base"], partial_rotary_factor=params["partial_rotary_factor"], dtype=dtype
    )
    return inv_freq


def _heatmap(result):
    (trace,) = [trace for trace in result.figure.data if trace.type == "heatmap"]
    return np.asarray(trace.z), np.asarray(trace.x), np.asarray(trace.y)


@pytest.mark.parametrize("overrides", [{}, LARGEST, NEOX], ids=["default", "largest", "neox"])
def test_every_figure_builds_at_display_resolution_within_the_page_budget(overrides):
    total = 0
    for figure_id in ROPE_FIGURES:
        result, params = _build(figure_id, **overrides)
        title = result.figure.layout.title.text
        assert f"head_dim={params['head_dim']}" in title and f"base={params['base']:.10g}" in title, title
        for trace in result.figure.data:
            if trace.type == "heatmap":
                assert max(np.asarray(trace.z).shape) <= 512
            elif trace.x is not None:
                assert len(trace.x) <= 4096
        total += len(result.figure.to_json())
    assert total < 3_000_000


def test_angles_equal_the_core_mod_two_pi_at_the_positions_drawn():
    result, params = _build("rope-angles", seq_len=131_072, base=500_000.0)
    z, positions, pairs = _heatmap(result)
    assert z.shape == (64, 512) and pairs.tolist() == list(range(64))
    expected = torch.remainder(rope.angles(torch.as_tensor(positions), _inv_freq(params)), 2 * math.pi).T
    np.testing.assert_allclose(z, expected.numpy(), atol=1e-6)
    assert "L=131,072" in result.figure.layout.title.text and "base=500000" in result.figure.layout.title.text
    assert "sampled" in result.notes[0] and "aliasing" in result.notes[1]
    assert z.min() >= 0 and z.max() < 2 * math.pi


def test_angle_window_shows_every_position_from_start():
    result, _ = _build("rope-angles", view="window", start=1000, seq_len=4096)
    _, positions, _ = _heatmap(result)
    assert positions.tolist() == list(range(1000, 1512))
    assert "window" in result.notes[0] and len(result.notes) == 1


def test_wavelengths_equal_the_core_and_the_slow_pairs_are_those_above_the_context():
    result, params = _build("rope-wavelengths", seq_len=8192, base=500_000.0)
    fast, slow = result.figure.data
    wavelengths = rope.wavelengths(_inv_freq(params)).numpy()
    np.testing.assert_allclose(np.concatenate([fast.y, slow.y]), wavelengths, rtol=1e-6)
    assert (np.asarray(slow.y) > 8192).all() and (np.asarray(fast.y) <= 8192).all()
    assert result.figure.layout.yaxis.type == "log"
    assert result.figure.layout.shapes[0].y0 == 8192
    assert f"{len(slow.y)} of 64 pairs" in result.notes[0]


def test_pair_rotation_draws_the_cores_cos_sin_on_the_unit_circle():
    result, params = _build("rope-pair-rotation", pair=5, view="window", start=300)
    _circle, points, labels, cos_curve, sin_curve = result.figure.data
    wavelength = float(rope.wavelengths(_inv_freq(params))[5])
    positions = torch.arange(300, 300 + math.ceil(wavelength))  # the first turn from the window's start
    cos, sin = rope.cos_sin(positions, _inv_freq(params)[5:6])
    np.testing.assert_allclose(points.x, cos[:, 0].numpy(), atol=1e-6)
    np.testing.assert_allclose(points.y, sin[:, 0].numpy(), atol=1e-6)
    np.testing.assert_allclose(np.hypot(points.x, points.y), 1.0, atol=1e-6)
    assert np.asarray(points.marker.color).tolist() == positions.tolist()
    assert labels.text[0] == "m=300" and "Pair i=5" in result.figure.layout.title.text
    assert np.asarray(cos_curve.x).tolist() == list(range(300, 300 + math.ceil(3 * wavelength) + 1))
    np.testing.assert_array_equal(cos_curve.y[: len(points.x)], points.x)
    np.testing.assert_array_equal(sin_curve.y[: len(points.y)], points.y)


def _circle_and_waves(result):
    _, points, labels, cos_curve, _ = result.figure.data
    return points, labels, cos_curve


def test_the_circle_shows_the_order_of_the_first_positions_and_the_waves_every_position():
    """At the page's defaults (pair 8 turns 51 times over 1,024 positions): the circle holds the first turn only,
    its labels step around it in order from m=0, and the waves draw every position of the first three turns."""
    result, params = _build("rope-pair-rotation")
    points, labels, waves = _circle_and_waves(result)
    theta = float(_inv_freq(params)[8])
    x = np.asarray(points.marker.color)
    assert x[0] == 0 and (np.diff(x) == 1).all() and (len(x) - 1) * theta < 2 * math.pi <= len(x) * theta
    marked = [int(text.removeprefix("m=")) for text in labels.text]
    assert labels.text[0] == "m=0" and marked == sorted(marked) and len(marked) >= 6
    angles = np.unwrap(np.arctan2(np.asarray(labels.y), np.asarray(labels.x)))
    assert (np.diff(angles) > math.radians(29)).all()  # anticlockwise, labels at least 30° apart
    assert np.asarray(waves.x).tolist() == list(range(61))  # three turns of λ = 19.87, no position skipped
    assert [shape.x0 for shape in result.figure.layout.shapes] == pytest.approx([19.87 * n for n in (1, 2, 3)], 1e-3)
    assert "circle: every position from 0 to 19: the first turn" in result.notes[0]
    assert "waves: every position from 0 to 60: the first 3 turns" in result.notes[0]
    assert "51.49 times" in result.notes[1]


def test_a_slow_pair_over_a_long_context_samples_its_turns_finely():
    result, _ = _build("rope-pair-rotation", seq_len=131_072, base=500_000.0, pair=40)
    x = np.asarray(_circle_and_waves(result)[2].x)
    assert len(x) == 2048 and x[0] == 0 and np.diff(x).max() <= 35  # 3 turns of λ ≈ 23,000 tokens
    assert "2,048 evenly spaced of" in result.notes[0]
    slowest, _ = _build("rope-pair-rotation", pair=63)  # λ far beyond L: the whole view, its first and last labelled
    assert _circle_and_waves(slowest)[1].text == ("m=0", "1,023") and "the whole view" in slowest.notes[0]


def test_channel_map_shows_the_layout_and_the_pass_through_channels():
    half, _ = _build("rope-channels", head_dim=8)
    z, channels, _ = _heatmap(half)
    assert z[0].tolist() == [0, 1, 2, 3, 0, 1, 2, 3] and channels.tolist() == list(range(8))
    assert half.data["partner"].tolist() == [4, 5, 6, 7, 0, 1, 2, 3]
    interleaved, _ = _build("rope-channels", head_dim=8, rope_layout="interleaved")
    assert _heatmap(interleaved)[0][0].tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert interleaved.data["partner"].tolist() == [1, 0, 3, 2, 5, 4, 7, 6]
    neox, _ = _build("rope-channels", **{k: v for k, v in NEOX.items() if k != "seq_len"})
    rotary, passing = neox.figure.data
    assert np.isnan(np.asarray(rotary.z)[0, 24:]).all() and not np.isnan(np.asarray(rotary.z)[0, :24]).any()
    assert np.isnan(np.asarray(passing.z)[0, :24]).all() and (np.asarray(passing.z)[0, 24:] == 0).all()
    assert "24 of 96 channels" in neox.notes[0] and "Channels 24–95 pass through" in neox.notes[1]
    assert "rotary d=24" in neox.figure.layout.title.text


def test_score_matrix_equals_the_core_and_is_constant_along_diagonals():
    result, params = _build("rope-scores", seq_len=72_000, rope_layout="interleaved", qk_seed=3)
    z, keys, queries = _heatmap(result)
    assert z.shape == (360, 360) and (keys == queries).all()
    assert len(set(np.diff(keys).tolist())) == 1 and "one every 200 tokens" in result.notes[0]
    generator = torch.Generator().manual_seed(3)
    q, k = torch.randn(2, 128, generator=generator, dtype=torch.float64)
    expected = rope.relative_scores(
        q, k, torch.as_tensor(queries), _inv_freq(params, torch.float64), layout="interleaved"
    )
    np.testing.assert_allclose(z, expected.numpy(), rtol=1e-5, atol=1e-5)
    for offset in (-200, -1, 0, 7, 359):
        diagonal = np.diagonal(z, offset=offset)
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-4)


@pytest.mark.parametrize("overrides", [{}, LARGEST, {**NEOX, "rope_layout": "interleaved"}])
def test_profiles_from_different_key_positions_coincide(overrides):
    result, params = _build("rope-relative-profile", **overrides)
    curves = [np.asarray(trace.y, dtype=np.float64) for trace in result.figure.data]
    assert len(curves) == 4 and len({trace.line.dash for trace in result.figure.data}) == 4
    scale = np.abs(curves[0]).max()
    for curve in curves[1:]:
        np.testing.assert_allclose(curve, curves[0], atol=1e-5 * scale)
    distances = np.asarray(result.figure.data[0].x)
    assert distances[0] == 0 and len(distances) <= 1024
    anchors = [int(name.split("= ")[1].replace(",", "")) for name in (t.name for t in result.figure.data)]
    assert anchors[-1] + distances[-1] < params["seq_len"]
    assert "coincide" in result.notes[0]


def test_decay_curve_equals_the_core_and_falls_with_distance():
    result, _ = _build("rope-decay", seq_len=4096)
    (trace,) = result.figure.data
    distances, bound = rope_bounds.decay_bound(4095, 128, 10000.0)
    assert len(trace.x) == 4096 and trace.x[-1] == 4095
    np.testing.assert_allclose(trace.x, distances.numpy(), rtol=1e-6)
    np.testing.assert_allclose(trace.y, bound.numpy(), rtol=1e-5)
    assert trace.y[0] > 5 * np.asarray(trace.y)[-100:].mean()
    assert result.figure.layout.xaxis.type != "log" and "all 4,096 distances" in result.notes[1]


def test_a_long_decay_curve_keeps_every_short_distance_and_samples_the_rest():
    result, _ = _build("rope-decay", **LARGEST)
    (trace,) = result.figure.data
    x, y = np.asarray(trace.x), np.asarray(trace.y)
    assert len(x) <= 4096 and x[:2048].tolist() == list(range(2048)) and x[-1] == LARGEST["seq_len"] - 1
    assert (np.diff(x) > 0).all()
    near = rope_bounds.decay_bound(2047, 512, 1e6)[1].numpy()
    far_d, far_b = rope_bounds.decay_bound(LARGEST["seq_len"] - 1, 512, 1e6, num_points=2048)
    np.testing.assert_allclose(y[:2048], near, rtol=1e-5)
    np.testing.assert_allclose(y[2048:], far_b[far_d > 2047].numpy(), rtol=1e-5)
    assert result.figure.layout.xaxis.type == "log" and "sampled" in result.notes[1]
    neox, _ = _build("rope-decay", **NEOX)
    np.testing.assert_allclose(neox.figure.data[0].y, rope_bounds.decay_bound(2047, 24, 1e4)[1].numpy(), rtol=1e-5)


@pytest.mark.parametrize(
    ("figure_id", "overrides", "argument"),
    [
        ("rope-pair-rotation", {"pair": 12, **NEOX}, "pair"),
        ("rope-pair-rotation", {"view": "window", "start": 5000, "seq_len": 4096}, "start"),
        ("rope-angles", {"head_dim": 90, "partial_rotary_factor": 0.3}, "partial_rotary_factor"),
        ("rope-scores", {"view": "window", "start": 5000, "seq_len": 4096}, "start"),
        ("rope-angles", {"view": "window", "start": 5000, "seq_len": 4096}, "start"),
    ],
)
def test_bad_combinations_name_the_argument(figure_id, overrides, argument):
    params, _ = registry.resolve_params(figure_id, {})  # as they are: the registry would move pair and start in range
    with pytest.raises(ValueError, match=argument):
        registry.build(figure_id, {**params, **overrides})
