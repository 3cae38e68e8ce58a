import numpy as np
import pytest

from bench.scenarios import SCENARIOS
from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.drawing.common import evenly_spaced, heatmap, placeholder


def _heatmap(x, y):
    return heatmap(np.zeros((len(y), len(x))), x, y, title="t", x_title="x", y_title="y")


def test_evenly_spaced_axes_stay_numeric_and_uneven_ones_become_ordered_categories():
    even = _heatmap(np.arange(0, 1024, 16), np.arange(0, 1_048_576, 2731))
    assert even.layout.xaxis.type is None and even.layout.yaxis.type is None
    pairs = _heatmap(np.array([0, 1, 32, 33, 64, 65]), np.arange(3))
    assert pairs.layout.xaxis.type == "category" and pairs.layout.yaxis.type is None
    np.testing.assert_array_equal(pairs.data[0].x, [0, 1, 32, 33, 64, 65])  # hover keeps the true channels


@pytest.mark.parametrize(
    ("coordinates", "expected"),
    [
        ([5], True),
        ([0, 7], True),
        ([0, 2, 4, 6], True),
        ([0, 2, 4, 7], False),
        ([0.0, 0.1, 0.2, 0.3], True),
        (["pair 0", "pair 1", "pair 5"], True),
    ],
)
def test_evenly_spaced(coordinates, expected):
    assert evenly_spaced(coordinates) is expected


def _axis_is_drawn_as_one_image(fig, trace, letter: str) -> bool:
    """Plotly draws a heatmap as one scaled image only when both its axes are evenly spaced (to 1% of a step)."""
    axis_id = trace[f"{letter}axis"] or letter  # "x", "x2", …
    axis = fig.layout[f"{letter}axis{axis_id[1:]}"]
    values = trace[letter]
    if axis.type == "category" or values is None or isinstance(np.asarray(values).flat[0], str):
        return True  # category axes (named or labelled cells) are evenly spaced by construction
    steps = np.diff(np.asarray(values, dtype=np.float64))
    return steps.size < 2 or bool(np.all(np.abs(steps - steps.mean()) <= abs(steps.mean()) / 100))


@pytest.mark.parametrize("scenario", ["default", "largest"])
def test_every_heatmap_is_drawn_as_one_image(scenario):
    for figure_id in registry.FIGURES:
        params, _ = registry.resolve_params(figure_id, SCENARIOS[scenario])
        try:
            fig = registry.build(figure_id, params).figure
        except ValueError:
            continue  # a parameter set this figure rejects (its own tests cover the message)
        for trace in fig.data:
            if trace.type == "heatmap":
                assert _axis_is_drawn_as_one_image(fig, trace, "x"), (figure_id, "x")
                assert _axis_is_drawn_as_one_image(fig, trace, "y"), (figure_id, "y")


def test_a_placeholder_has_the_title_and_says_computing_but_holds_no_data():
    fig = placeholder("RoPE angles", height=300)
    assert fig.data == ()
    assert fig.layout.title.text == "RoPE angles" and fig.layout.height == 300
    assert [note.text for note in fig.layout.annotations] == ["Computing RoPE angles…"]
