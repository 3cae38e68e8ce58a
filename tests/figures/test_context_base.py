import numpy as np
import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc_core.rope import bounds as rope_bounds


def build(**overrides):
    params, messages = registry.resolve_params("context-base-bound", overrides)
    assert messages == []
    return registry.build("context-base-bound", params)


def curves(result):
    return {" ".join(trace.name.split(" ")[:2]): trace for trace in result.figure.data}


def test_smallest_base_and_curves_equal_the_core():
    result = build(target_context=4096)
    smallest = rope_bounds.min_base_for_context(4096, 128)
    title = result.figure.layout.title.text
    assert f"Smallest RoPE base for 4,096 tokens, rotary dim 128: {smallest:,.0f}" in title
    assert "your base 10000" in title and "B(m) < 0 inside the context" in title
    drawn = curves(result)
    m, values = rope_bounds.base_bound_curve(4096, 128, 10000.0)
    np.testing.assert_array_equal(drawn["your base"].x, m.numpy())
    np.testing.assert_allclose(drawn["your base"].y, values.numpy(), rtol=1e-6)
    at_smallest = np.asarray(drawn["smallest base"].y)
    assert at_smallest.min() >= 0 > np.asarray(drawn["your base"].y).min()
    assert drawn["your base"].y[0] == pytest.approx(64.0)  # B(0) = d/2
    assert any("all 4,096 distances" in note for note in result.notes)


def test_a_large_enough_base_passes_and_the_lowest_point_is_marked():
    result = build(target_context=4096, base=1e5)
    assert "B(m) >= 0 over the whole context" in result.figure.layout.title.text
    drawn = curves(result)
    lowest = float(np.min(drawn["your base"].y))
    assert drawn["your base"].name == "your base 100000"
    assert next(t for t in result.figure.data if t.mode == "markers").y[0] == pytest.approx(lowest)


def test_partial_rotary_uses_the_rotary_dim_and_long_targets_are_sampled():
    result = build(target_context=20000, head_dim=256, partial_rotary_factor=0.25)
    assert "rotary dim 64" in result.figure.layout.title.text
    assert all(len(trace.x) <= 4096 for trace in result.figure.data)
    assert any("of 20,000 distances: the lowest and highest B" in note for note in result.notes)


def test_largest_parameters_stay_small():
    result = build(target_context=1_048_576, head_dim=512, base=1e12)
    assert all(len(trace.x) <= 4096 for trace in result.figure.data)
    assert len(result.figure.to_json()) < 200_000


def test_a_single_pair_never_fits_and_the_message_says_why():
    with pytest.raises(ValueError, match="max_base"):
        build(target_context=4096, head_dim=2)


def test_the_smallest_base_is_in_the_data_as_a_plain_number():
    params, _ = registry.resolve_params("context-base-bound", {"target_context": 4096})
    result = registry.build("context-base-bound", params)
    smallest = float(result.data["smallest_base"][0])
    assert smallest == rope_bounds.min_base_for_context(4096, 128)
    assert f"{smallest:,.0f}" in result.figure.layout.title.text and "e+" not in result.figure.layout.title.text
