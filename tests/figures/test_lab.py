"""The Length lab's figures on a small made-up lab folder (tests/figures/lab_data.py): the trained length marked,
six schemes drawn, the learned table's curve stopping with a note, small payloads, the papers' ordering beside
ours computed from the numbers, and a figure that says how to make the results when there are none."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.figures.lab import published, source
from tests.figures import lab_data


@pytest.fixture
def lab(tmp_path, monkeypatch):
    monkeypatch.setenv(source.ENVIRONMENT, str(lab_data.make_folder(tmp_path / "lab")))
    return tmp_path / "lab"


def build(figure_id: str, **given):
    params, messages = registry.resolve_params(figure_id, given)
    assert not messages, messages
    return registry.build(figure_id, params)


def annotations(fig) -> list[str]:
    return [a.text for a in fig.layout.annotations]


def trained_line_at(fig, x: float) -> bool:
    return any(shape.type == "line" and shape.x0 == x == shape.x1 for shape in fig.layout.shapes)


def test_loss_against_length_draws_six_schemes_marks_L_and_stops_the_learned_curve(lab):
    result = build("lab-lengths")
    fig = result.figure
    assert [trace.name for trace in fig.data] == ["NoPE", "sinusoidal", "learned", "T5 bias", "ALiBi", "RoPE"]
    assert trained_line_at(fig, math.log2(64)) and "trained length L = 64" in annotations(fig)
    learned = np.asarray(fig.data[2].y, dtype=float)
    assert np.isfinite(learned[:2]).all() and np.isnan(learned[2:]).all()  # 32 and 64 tokens, then no row
    assert "learned: no row past L" in annotations(fig)
    assert "sliding window" in fig.layout.title.text and "appendix B" in result.notes[0]
    assert len(fig.to_json()) < 40_000
    np.testing.assert_allclose(result.data["sinusoidal"][-1], 1.5 + 3.0)  # 8L: three doublings of +1


def test_perplexity_and_the_other_cut_change_the_figure(lab):
    fig = build("lab-lengths", lab_metric="perplexity", lab_mode="nonoverlapping").figure
    assert fig.layout.yaxis.type == "log" and "non-overlapping" in fig.layout.title.text
    np.testing.assert_allclose(fig.data[0].y[1], math.exp(1.6))  # the nonoverlapping loss at L, as e^loss


def test_copy_accuracy_marks_the_trained_region(lab):
    fig = build("lab-copy").figure
    assert len(fig.data) == 6 and trained_line_at(fig, math.log2(41))  # the longest training string, 20 letters
    rect = next(shape for shape in fig.layout.shapes if shape.type == "rect")  # the strings seen in training
    assert (rect.x0, rect.x1) == (math.log2(21), math.log2(41))
    assert list(fig.layout.xaxis.ticktext) == ["10", "20", "30", "40", "60", "80"]  # letters
    assert fig.layout.yaxis.tickformat == ".0%"
    assert build("lab-copy", lab_copy_metric="loss").figure.layout.yaxis.tickformat is None


def test_loss_along_one_sequence_is_smoothed_and_says_so(lab):
    result = build("lab-positions", lab_smooth=4)
    assert [trace.name for trace in result.figure.data] == ["NoPE", "sinusoidal", "T5 bias", "ALiBi", "RoPE"]
    assert trained_line_at(result.figure, 64)
    assert "rolling mean" in result.notes[0] and "last 4 positions" in result.notes[0]
    assert "learned" in result.notes[1] and "no row past L" in result.notes[1]
    nope = result.data["nope"]  # a step of +0.5 at L, smoothed over 4 positions: 0.125 a position
    np.testing.assert_allclose(nope[62:68], [1.5, 1.5, 1.625, 1.75, 1.875, 2.0])


def test_scaling_reads_the_shipped_factor_and_evaluates_another_once(lab, monkeypatch):
    calls = []

    def fake(checkpoint, rope_type, factor, lengths, mode):
        calls.append((rope_type, factor, mode))
        return [{"length": n, "loss": factor, "perplexity": math.exp(factor)} for n in lengths]

    monkeypatch.setattr(source.lab_results, "scaled_rows", fake)
    source._scaled.cache_clear()
    shipped = build("lab-scaling", factor=4.0)
    assert calls == [] and len(shipped.figure.data) == 7 and trained_line_at(shipped.figure, math.log2(64))
    assert shipped.figure.data[0].name == "no scaling"
    build("lab-scaling", factor=2.0)
    build("lab-scaling", factor=2.0)
    evaluated = [kind for kind in source.lab_results.SCALING_TYPES[1:] if kind != "longrope"]
    assert sorted(calls) == sorted((kind, 2.0, "sliding") for kind in evaluated)  # LongRoPE: searched at 4 only
    away = build("lab-scaling", factor=2.0).figure
    assert "LongRoPE" not in [trace.name for trace in away.data] and len(away.data) == 6


def test_attention_at_L_and_4L_and_the_learned_table_stopping(lab):
    result = build("lab-attention", lab_scheme="rope", lab_layer=1, lab_head=3)
    assert [trace.z.shape for trace in result.figure.data] == [(64, 64), (256, 256)]
    np.testing.assert_allclose(result.data["attention_4L"].sum(axis=1), 1, rtol=1e-5)
    assert len(result.figure.to_json()) < 1_500_000
    learned = build("lab-attention", lab_scheme="learned")
    assert len(learned.figure.data) == 1 and any("no row past L" in t for t in annotations(learned.figure))
    with pytest.raises(ValueError, match="the model has 4 heads"):
        build("lab-attention", lab_head=5)


def test_pair_norms_per_head_and_pair(lab):
    result = build("lab-pair-norms")
    assert result.data["query"].shape == (4, 8) and result.data["key"].shape == (4, 8)
    assert "Barbero" not in result.figure.layout.title.text and "pair" in result.figure.layout.title.text
    with pytest.raises(ValueError, match="layer must be"):
        build("lab-pair-norms", lab_layer=3)


def test_our_statement_is_computed_from_the_numbers(lab):
    results = lab_data.results()
    text = " ".join(published.ours(results))
    assert "more than 10% worse: NoPE, sinusoidal, RoPE" in text and "learned: no loss at 4L" in text
    assert "asked for 40: ALiBi 100%, T5 bias 95%, RoPE 70%, NoPE 50%, sinusoidal 0%." in text  # learned: no row
    assert "NoPE is not among the best two" in text
    calm = " ".join(published.ours(lab_data.results({"nope": 0.0, "sinusoidal": 0.0, "rope": 0.0})))
    assert "NoPE is not among" not in calm and "sinusoidal holds up here" in calm
    assert any("Press et al. 2022" in line for line in published.published())


def test_without_results_every_figure_says_how_to_make_them(tmp_path, monkeypatch):
    monkeypatch.setenv(source.ENVIRONMENT, str(tmp_path / "nothing"))
    for figure_id in ("lab-lengths", "lab-copy", "lab-positions", "lab-scaling", "lab-attention", "lab-pair-norms"):
        result = build(figure_id)
        assert result.figure.data == () and result.data == {}
        assert "posenc lab train --all" in annotations(result.figure)[0], figure_id
