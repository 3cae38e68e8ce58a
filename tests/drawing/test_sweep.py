"""drawing.sweep: a sweep's text form, its frames' values on the parameter's own scale, and what it refuses."""

from __future__ import annotations

import itertools
import math

import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.drawing.sweep import DEFAULT_FRAMES, MAX_FRAMES, Sweep, check_sweep, parse_sweep


def test_the_link_and_command_forms_parse_alike():
    assert parse_sweep("base:10000..1000000:12") == parse_sweep("base=10000..1000000:12") == Sweep("base", 1e4, 1e6, 12)
    assert parse_sweep("factor=1..64").frames == DEFAULT_FRAMES
    assert parse_sweep(" base = 0.5..1e6 : 3 ") == Sweep("base", 0.5, 1e6, 3)


def test_a_decades_parameter_steps_geometrically_with_exact_ends():
    values = parse_sweep("base:10000..1000000:5").values()
    assert values[0] == 10000.0 and values[-1] == 1000000.0
    ratios = [b / a for a, b in itertools.pairwise(values)]
    assert all(r == pytest.approx(math.sqrt(math.sqrt(100)), rel=1e-5) for r in ratios)  # 100^(1/4) each step


def test_a_linear_parameter_steps_evenly_and_whole_numbers_drop_repeats():
    assert parse_sweep("partial_rotary_factor:0.25..1:4").values() == [0.25, 0.5, 0.75, 1.0]
    heads = parse_sweep("n_heads:1..8:12").values()
    assert heads == list(range(1, 9))  # 12 steps over 8 whole values: each once
    assert all(isinstance(v, int) for v in heads)


def test_an_even_parameter_keeps_even_values():
    values = check_sweep(parse_sweep("head_dim:64..256:7"), "rope-wavelengths").values()
    assert values[0] == 64 and values[-1] == 256 and all(v % 2 == 0 for v in values)


def test_to_url_round_trips():
    sweep = parse_sweep("base:10000..1000000:12")
    assert sweep.to_url() == "base:10000..1000000:12" and parse_sweep(sweep.to_url()) == sweep


@pytest.mark.parametrize(
    ("text", "figure", "message"),
    [
        ("rope_type:1..2:3", "context-inv-freq", "rope_type is not a number"),
        ("colour:1..2:3", "rope-wavelengths", "has no parameter 'colour'; its numeric ones: seq_len"),
        ("base:0.5..1000000:12", "rope-wavelengths", "0.5 is outside what it allows"),
        ("base:10000..1e13:12", "rope-wavelengths", "outside what it allows"),
        ("base:10000..1000000:0", "rope-wavelengths", f"frames must be 2 to {MAX_FRAMES} (got 0)"),
        ("base:10000..1000000:10000", "rope-wavelengths", "(got 10000)"),
        ("base:10000..10000:12", "rope-wavelengths", "from and to are the same"),
        ("seq_len:10.5..20:3", "rope-wavelengths", "10.5 is outside"),
        ("head_dim:64..66:5", "rope-wavelengths", None),  # 64 and 66: two whole even values, allowed
    ],
)
def test_bad_sweeps_are_refused_naming_what_is_allowed(text, figure, message):
    if message is None:
        assert check_sweep(parse_sweep(text), figure).values() == [64, 66]
        return
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_sweep(parse_sweep(text), figure)


@pytest.mark.parametrize("text", ["base 1..2", "base:1-2:3", "base:a..b:3", "base:1..2:x", "", "1base:1..2"])
def test_malformed_text_says_the_form(text):
    with pytest.raises(ValueError, match="sweep"):
        parse_sweep(text)


# Issue 35, defect 5b: a sweep's work is budgeted before any frame is built.
def test_a_plan_sweep_to_16m_positions_is_cut_to_the_work_budget_and_says_the_bound():
    from posenc.drawing.animate import frame_params
    from posenc.drawing.sweep import SWEEP_WORK_BUDGET, budget_frames, frame_work

    sweep = check_sweep(parse_sweep("target:8000000..16777216:60"), "plan-wavelengths")
    params, _ = registry.resolve_params("plan-wavelengths", {})
    works = [
        frame_work("plan-wavelengths", frame_params("plan-wavelengths", params, "target", v)) for v in sweep.values()
    ]
    assert sum(works) > 10 * SWEEP_WORK_BUDGET  # the hostile link asked for more than ten budgets' work
    chosen, note = budget_frames(works, sweep)
    assert 2 <= len(chosen) < 60 and chosen[0] == 0 and chosen[-1] == 59
    assert sum(works[k] for k in chosen) <= SWEEP_WORK_BUDGET
    assert f"{SWEEP_WORK_BUDGET:.2g}" in note and f"{len(chosen)} frames built" in note


def test_a_sweep_whose_ends_alone_are_over_the_budget_is_refused_naming_it():
    from posenc.drawing.sweep import budget_frames

    sweep = parse_sweep("target:8000000..16777216:12")
    with pytest.raises(ValueError, match=r"more than the 1e\+03 a sweep may use"):
        budget_frames([600] * 12, sweep, budget=1000)


def test_a_default_sweep_is_within_the_budget():
    from posenc.drawing.animate import frame_params
    from posenc.drawing.sweep import budget_frames, frame_work

    for figure_id, text in (("rope-angles", "seq_len:1..1048576:60"), ("plan-wavelengths", "base:10000..1000000:12")):
        sweep = check_sweep(parse_sweep(text), figure_id)
        params, _ = registry.resolve_params(figure_id, {})
        works = [frame_work(figure_id, frame_params(figure_id, params, sweep.param, v)) for v in sweep.values()]
        assert budget_frames(works, sweep) == (list(range(len(sweep.values()))), None)
