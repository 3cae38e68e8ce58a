"""Issue 35, defect 8: every parameter a Sweep box offers plays with the box's own From, To and Frames, on every figure
of every page (the RoPE page's partial rotary factor replaced the figure with Streamlit's error box: frames such as
0.233 leave an odd rotary dimension, which the figure refuses).

The walk asks the box's own functions for its defaults (``sweep_box.box_defaults``, ``sweep_box.as_sweep``) and builds
the frames on the path the page takes (``animate.build_frames``, which ``animate.animate`` calls), at each figure's
default parameters. A frame the figure refuses is left out and said; what must hold is that no error escapes and at
least two frames play.

The RoPE page's figures (the issue's) are walked in every run. Every other figure's walk builds hundreds of frames
(the plan figure's search, the base-bound search and the lab's models take a second or more a frame): set
``POSENC_FULL_SWEEP_WALK=1`` to walk them all (about 2 CPU-minutes on an idle 2-core machine).
"""

from __future__ import annotations

import os

import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.drawing.animate import build_frames
from posenc.drawing.sweep import check_sweep
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


EVERY_RUN = [figure_id for figure_id, spec in registry.FIGURES.items() if spec.page == "rope"]
WALKED = list(registry.FIGURES) if os.environ.get("POSENC_FULL_SWEEP_WALK") == "1" else EVERY_RUN


@pytest.mark.parametrize("figure_id", WALKED)
def test_every_parameter_of_every_figure_plays_with_the_boxs_defaults(figure_id, built_once):
    spec = registry.get_spec(figure_id)
    params, _ = registry.resolve_params(figure_id, {})
    failures = []
    for name in numeric_params(spec):
        sweep = as_sweep(name, *box_defaults(name, params))
        try:
            values, frames = build_frames(figure_id, params, check_sweep(sweep, figure_id))
        except Exception as error:  # any escape is the defect: the page would show an error box
            failures.append(f"{sweep.to_url()}: {type(error).__name__}: {error}")
            continue
        if len(frames) < 2 or len(values) != len(frames):
            failures.append(f"{sweep.to_url()}: {len(frames)} frames")
    assert not failures, "\n".join(failures)
