"""Issue 35, defect 8: every parameter a Sweep box offers plays with the box's own From, To and Frames, on every figure
of every page (the RoPE page's partial rotary factor replaced the figure with Streamlit's error box: frames such as
0.233 leave an odd rotary dimension, which the figure refuses).

The walk asks the box's own functions for its defaults (``sweep_box.box_defaults``, ``sweep_box.as_sweep``) and builds
the frames on the path the page takes (``animate.build_frames``, which ``animate.animate`` calls), at each figure's
default parameters. A frame the figure refuses is left out and said; what must hold is that no error escapes and at
least two frames play.

Every run walks every parameter of every figure but one. The RoPE page's figures (the issue's) build every frame.
The other figures build, of the frames the box would build (its values, less those the work budget drops), the
first, the middle and the last only (the ``thinned`` fixture): the box's own values, ends and range, about 750
builds instead of 2,800 (about 20 CPU-seconds instead of 80 on a busy 2-core machine); where the figure refuses two
of the three, every frame is built, as the page would. ``lab-scaling`` evaluates the lab's trained model once per
factor (seconds a frame, a minute or more a walk) and is walked only in the full walk: set
``POSENC_FULL_SWEEP_WALK=1`` to build every frame of every figure.
"""

from __future__ import annotations

import os

import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import animate, registry
from posenc.drawing.animate import build_frames
from posenc.drawing.sweep import Sweep, check_sweep, spread_indices
from posenc.ui.sweep_box import as_sweep, box_defaults, numeric_params


@pytest.fixture
def built_once(monkeypatch):
    """registry.build, each distinct (figure, parameters, style) built once in the test: a sweep's first frame is
    often the figure at its defaults, the same in every parameter's sweep."""
    real_build, kept = registry.build, {}

    def build(figure_id, params, **kwargs):
        key = (figure_id, repr(sorted(params.items())), repr(sorted(kwargs.items())))
        if key not in kept:
            try:
                kept[key] = real_build(figure_id, params, **kwargs)
            except ValueError as error:
                kept[key] = error
        if isinstance(kept[key], ValueError):
            raise kept[key]
        return kept[key]

    monkeypatch.setattr(registry, "build", build)


THINNED_TO = 3  # frames built of a thinned walk's sweep: the first, the middle and the last the box would build


class Thinning:
    """Whether ``build_frames`` builds only the first, middle and last of the frames the box would build."""

    on = True


@pytest.fixture
def thinned(monkeypatch) -> Thinning:
    """While ``Thinning.on``, the frames ``build_frames`` builds are, of those the work budget keeps
    (``sweep.budget_frames``), the first, the middle and the last."""
    thinning, real_budget = Thinning(), animate.budget_frames

    def budget_frames(works, sweep, budget):
        chosen, note = real_budget(works, sweep, budget)
        if thinning.on and len(chosen) > THINNED_TO:
            chosen = [chosen[k] for k in spread_indices(len(chosen), THINNED_TO)]
        return chosen, note

    monkeypatch.setattr(animate, "budget_frames", budget_frames)
    return thinning


FULL_WALK = os.environ.get("POSENC_FULL_SWEEP_WALK") == "1"
FULL_WALK_ONLY = ("lab-scaling",)  # the lab's model evaluated at every factor: tens of seconds
WALKED = [figure_id for figure_id in registry.FIGURES if FULL_WALK or figure_id not in FULL_WALK_ONLY]


@pytest.mark.parametrize("figure_id", WALKED)
def test_every_parameter_of_every_figure_plays_with_the_boxs_defaults(figure_id, built_once, thinned):
    thinned.on = not (FULL_WALK or registry.get_spec(figure_id).page == "rope")  # the RoPE page: every frame
    walk(figure_id, thinned)


def test_a_thinned_walk_builds_the_first_middle_and_last_frame_the_box_would(monkeypatch, thinned):
    """The thinning keeps the box's own values: its ends and its middle frame, nothing else."""
    params, _messages = registry.resolve_params("rope-angles", {})
    sweep = as_sweep("base", *box_defaults("base", params))
    built = []
    monkeypatch.setattr(registry, "build", lambda figure_id, frame, **kwargs: built.append(frame["base"]) or frame)
    values, _frames = build_frames("rope-angles", params, check_sweep(sweep, "rope-angles"))
    every = sweep.values()
    assert len(every) == 12 and values == built == [every[0], every[6], every[11]]


def test_where_the_figure_refuses_a_thinned_frame_every_frame_is_built(thinned):
    """Llama 3.1's low_freq_factor from 1 to 100 over high_freq_factor 4: of the three thinned frames two are refused
    (12.33 and 100 are past 4), so the walk builds every frame the box would and plays those at or below 4."""
    params, _messages = registry.resolve_params("context-yarn-ramp", {"rope_type": "llama3"})
    sweep = check_sweep(as_sweep("low_freq_factor", *box_defaults("low_freq_factor", params)), "context-yarn-ramp")
    with pytest.raises(ValueError, match="fewer than two frames"):
        build_frames("context-yarn-ramp", params, sweep)
    values, frames = play("context-yarn-ramp", params, sweep, thinned)
    assert values == [value for value in sweep.values() if value <= 4] and len(frames) == len(values) > 2
    assert thinned.on


def walk(figure_id: str, thinning: Thinning) -> None:
    """Play every numeric parameter of ``figure_id`` with the box's defaults: no error escapes, two frames or more."""
    spec = registry.get_spec(figure_id)
    params, _ = registry.resolve_params(figure_id, {})
    failures = []
    for name in numeric_params(spec):
        sweep = as_sweep(name, *box_defaults(name, params))
        try:
            values, frames = play(figure_id, params, check_sweep(sweep, figure_id), thinning)
        except Exception as error:  # any escape is the defect: the page would show an error box
            failures.append(f"{sweep.to_url()}: {type(error).__name__}: {error}")
            continue
        if len(frames) < 2 or len(values) != len(frames):
            failures.append(f"{sweep.to_url()}: {len(frames)} frames")
    assert not failures, "\n".join(failures)


def play(figure_id: str, params: dict, sweep: Sweep, thinning: Thinning) -> tuple[list, list]:
    """``build_frames`` of ``sweep``, thinned while ``thinning.on``; where the figure refuses two of the three frames
    (a Llama 3.1 low_freq_factor past high_freq_factor), every frame the box would build, as the page would."""
    try:
        return build_frames(figure_id, params, sweep)
    except ValueError:
        if not thinning.on:
            raise
    thinning.on = False
    try:
        return build_frames(figure_id, params, sweep)
    finally:
        thinning.on = True
