import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_core import sampling


@given(length=st.integers(1, 2_000_000), max_points=st.integers(2, 5000))
def test_sampled_positions_cover_range_exactly(length, max_points):
    positions = sampling.sampled_positions(length, max_points)
    assert positions[0] == 0 and positions[-1] == length - 1
    assert positions.numel() <= max_points
    assert bool((positions.diff() > 0).all())
    assert sampling.is_sampled(positions) == (length > max_points)


def test_sampled_positions_is_every_position_when_it_fits():
    assert torch.equal(sampling.sampled_positions(10, 16, start=3), torch.arange(3, 10))


def test_sampled_positions_are_evenly_spaced_at_one_million():
    positions = sampling.sampled_positions(1_048_576, 1024)  # explicit max_points
    gaps = positions.diff()
    assert positions.numel() == 1024
    assert int(gaps.max()) - int(gaps.min()) <= 1
    assert sampling.sampling_stride(positions) == pytest.approx(1_048_575 / 1023, abs=1)


@given(length=st.integers(1, 2_000_000), max_points=st.integers(2, 5000), start_fraction=st.floats(0, 1))
def test_strided_positions_have_one_stride_and_reach_the_end(length, max_points, start_fraction):
    start = min(length - 1, int(start_fraction * length))
    positions = sampling.strided_positions(length, max_points, start=start)
    stride = -(-(length - start) // max_points)
    assert positions.numel() <= max_points
    assert int(positions[0]) == start and int(positions[-1]) >= length - stride
    assert torch.equal(positions, torch.arange(start, length, stride))
    assert sampling.is_sampled(positions) == (length - start > max_points)


def test_strided_positions_at_one_million_are_every_2731st():
    positions = sampling.strided_positions(1_048_576, 384)
    assert positions.numel() == 384 and set(positions.diff().tolist()) == {2731}
    assert int(positions[-1]) == 383 * 2731


def test_window_shows_exactly_its_range_and_stops_at_the_end():
    assert torch.equal(sampling.window_positions(100, 50, 1000), torch.arange(100, 150))
    assert torch.equal(sampling.window_positions(990, 50, 1000), torch.arange(990, 1000))
    assert not sampling.is_sampled(sampling.window_positions(0, 10, 10))


@settings(deadline=None)  # a Python loop over up to 700 columns: slow on a busy CI machine, not wrong
@given(total=st.integers(1, 3000), n_columns=st.integers(1, 700), start=st.integers(0, 10**6))
def test_envelope_brackets_every_value_in_its_column(total, n_columns, start):
    values = torch.sin(torch.arange(total, dtype=torch.float64) * 0.7) + torch.arange(total) * 1e-3
    env = sampling.envelope(values, n_columns, start=start)
    assert env.low.numel() <= n_columns
    assert int(env.first[0]) == start and int(env.last[-1]) == start + total - 1
    for column in range(env.low.numel()):
        lo, hi = int(env.first[column]) - start, int(env.last[column]) - start
        chunk = values[lo : hi + 1]
        assert float(env.low[column]) == float(chunk.min())
        assert float(env.high[column]) == float(chunk.max())


def test_aliasing_rule_is_nyquist():
    assert sampling.aliases(stride=1024, wavelength=6.28)
    assert not sampling.aliases(stride=1, wavelength=6.28)


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: sampling.sampled_positions(0), "length"),
        (lambda: sampling.sampled_positions(10, 1), "max_points"),
        (lambda: sampling.sampled_positions(10, start=10), "start"),
        (lambda: sampling.strided_positions(0), "length"),
        (lambda: sampling.strided_positions(10, 0), "max_points"),
        (lambda: sampling.strided_positions(10, 5, start=-1), "start"),
        (lambda: sampling.window_positions(0, 0, 10), "size"),
        (lambda: sampling.envelope(torch.zeros(2, 2)), "values"),
        (lambda: sampling.envelope(torch.zeros(4), 0), "n_columns"),
    ],
)
def test_bad_arguments_name_the_argument(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()
