"""drawing.animate: a sweep as one Plotly animation whose frames are the still figures, axes held still."""

from __future__ import annotations

import numpy as np
import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.drawing.animate import animate, frame_params, value_text
from posenc.drawing.sweep import parse_sweep

FIGURE = "rope-wavelengths"


@pytest.fixture(scope="module")
def swept():
    params, _ = registry.resolve_params(FIGURE, {})
    return params, animate(FIGURE, params, parse_sweep("base:10000..1000000:12"))


def test_every_frame_holds_the_still_figures_data(swept):
    params, result = swept
    figure = result.figure
    assert len(figure.frames) == 12 and [f.name for f in figure.frames] == [str(k) for k in range(12)]
    for k, value in enumerate(result.values):
        still = registry.build(FIGURE, frame_params(FIGURE, params, "base", value))
        for frame_trace, still_trace in zip(figure.frames[k].data, still.figure.data, strict=False):
            np.testing.assert_array_equal(
                np.asarray(frame_trace.y, dtype=float), np.asarray(still_trace.y, dtype=float)
            )
        assert figure.frames[k].layout.title.text == still.figure.layout.title.text  # the title names the value


def test_the_axes_hold_still_and_cover_every_frame(swept):
    _, result = swept
    layout = result.figure.layout
    assert layout.yaxis.autorange is False and layout.xaxis.autorange is False
    low, high = layout.yaxis.range  # a log axis: decades
    every = np.concatenate(
        [np.asarray(t.y, dtype=float) for f in result.figure.frames for t in f.data if t.y is not None and len(t.y)]
    )
    assert low <= np.log10(every.min()) and np.log10(every.max()) <= high
    first_frame_only = np.concatenate(
        [np.asarray(t.y, dtype=float) for t in result.figure.frames[0].data if t.y is not None and len(t.y)]
    )
    assert np.log10(first_frame_only.max()) < high - 1  # the last frame's longest wavelength set the top


def test_the_slider_names_each_value_and_play_pause_switch_frames_in_the_browser(swept):
    _, result = swept
    (slider,) = result.figure.layout.sliders
    assert [step.label for step in slider.steps] == [value_text(v) for v in result.values]
    assert slider.steps[0].label == "10,000" and slider.steps[-1].label == "1,000,000"
    assert all(step.method == "animate" for step in slider.steps)
    (menu,) = result.figure.layout.updatemenus
    assert [button.label for button in menu.buttons] == ["▶", "⏸"]


def test_frames_with_fewer_traces_are_padded():
    """ALiBi's slopes with heads 1..4: the figure always holds as many traces as the largest frame."""
    params, _ = registry.resolve_params("alibi-slopes", {})
    result = animate("alibi-slopes", params, parse_sweep("n_heads:2..16:3"))
    counts = {len(frame.data) for frame in result.figure.frames}
    assert len(counts) == 1 and len(result.figure.data) == counts.pop()


def test_over_budget_keeps_fewer_frames_ends_kept_and_says_so(swept):
    params, full = swept
    size = len(full.figure.to_json())
    result = animate(FIGURE, params, parse_sweep("base:10000..1000000:12"), budget=size // 3)
    assert 2 <= len(result.values) < 12
    assert result.values[0] == 10000.0 and result.values[-1] == 1000000.0
    assert result.notes and "12 frames" in result.notes[0]


def test_a_heatmaps_colour_scale_is_the_same_in_every_frame():
    params, _ = registry.resolve_params("sinusoidal-heatmap", {})
    result = animate("sinusoidal-heatmap", params, parse_sweep("d_model:32..128:3"))
    heatmaps = [t for f in result.figure.frames for t in f.data if t.type == "heatmap"]
    assert len(heatmaps) == 3
    assert len({(t.zmin, t.zmax) for t in heatmaps}) == 1 and heatmaps[0].zauto is False
    every = np.concatenate([np.asarray(t.z, dtype=float).ravel() for t in heatmaps])
    assert heatmaps[0].zmin == pytest.approx(every.min()) and heatmaps[0].zmax == pytest.approx(every.max())


# Issue 35, defect 5b: a sweep being built stops between frames once its session has ended.
def test_a_sweep_whose_reader_leaves_mid_build_stops_building(monkeypatch):
    from posenc.drawing.animate import SweepCancelled

    built = []
    real_build = registry.build

    def counting_build(figure_id, params, **kwargs):
        built.append(params["base"])
        return real_build(figure_id, params, **kwargs)

    monkeypatch.setattr(registry, "build", counting_build)
    params, _ = registry.resolve_params(FIGURE, {})
    session_alive = iter([True, True, True])  # the reader leaves after the third frame
    with pytest.raises(SweepCancelled, match="stopped after 3 frames"):
        animate(FIGURE, params, parse_sweep("base:10000..1000000:12"), cancelled=lambda: not next(session_alive, False))
    assert len(built) == 3  # not 12


# Issue 35, defect 8: a value the figure refuses with the others kept is left out and said, not raised.
def test_values_the_figure_refuses_are_left_out_and_said():
    params, _ = registry.resolve_params("rope-angles", {})  # head_dim 128: 0.233 x 128 = 29, an odd rotary dim
    result = animate("rope-angles", params, parse_sweep("partial_rotary_factor:0.0625..1:12"))
    assert 2 <= len(result.values) < 12 and len(result.figure.frames) == len(result.values)
    assert 0.232955 not in result.values and 1.0 in result.values
    assert any("left out" in note and "0.233" in note and "must be even" in note for note in result.notes)


def test_a_sweep_the_figure_refuses_almost_everywhere_is_refused():
    params, _ = registry.resolve_params("context-inv-freq", {"high_freq_factor": 1.5})
    with pytest.raises(ValueError, match="leaving fewer than two frames"):
        animate("context-inv-freq", params, parse_sweep("low_freq_factor:1.4..100:12"))
