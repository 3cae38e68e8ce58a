"""The Length lab's figures on a small made-up lab folder (tests/figures/lab_data.py): the trained length marked,
six schemes drawn, the learned table's curve stopping with a note, small payloads, the papers' ordering beside
ours computed from the numbers, and a figure that says how to make the results when there are none."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.figures.lab import published, seeds, source
from posenc_lab.results import passkey_lengths_for
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


def lines(fig) -> list:
    """The curves (the seeds' means), not their bands."""
    return [trace for trace in fig.data if trace.fill != "toself"]


def bands(fig) -> list:
    return [trace for trace in fig.data if trace.fill == "toself"]


def test_loss_against_length_draws_six_schemes_marks_L_and_stops_the_learned_curve(lab):
    result = build("lab-lengths")
    fig = result.figure
    assert [trace.name for trace in lines(fig)] == ["NoPE", "sinusoidal", "learned", "T5 bias", "ALiBi", "RoPE"]
    assert [trace.name for trace in bands(fig)] == [trace.name for trace in lines(fig)]  # a band each
    assert trained_line_at(fig, math.log2(64)) and "trained length L = 64" in annotations(fig)
    learned = np.asarray(lines(fig)[2].y, dtype=float)
    assert np.isfinite(learned[:2]).all() and np.isnan(learned[2:]).all()  # 32 and 64 tokens, then no row
    assert "learned: no row past L" in annotations(fig)
    assert "sliding window" in fig.layout.title.text and "appendix B" in result.notes[0]
    assert len(fig.to_json()) < 40_000
    np.testing.assert_allclose(result.data["sinusoidal"][-1], 1.5 + 3.0 + 0.02)  # 8L: three doublings of +1
    assert "3 seeds (0, 1, 2)" in result.notes[-1] and "lowest seed to the highest" in result.notes[-1]


def test_the_band_runs_from_the_lowest_seed_to_the_highest_and_the_line_is_their_mean(lab):
    views = lab_data.views()
    seeds = np.array([[row["loss"] for row in view["lm"]["sliding"]["rope"]] for view in views])
    result = build("lab-lengths")
    np.testing.assert_allclose(result.data["rope_low"], seeds.min(axis=0))
    np.testing.assert_allclose(result.data["rope_high"], seeds.max(axis=0))
    np.testing.assert_allclose(result.data["rope"], seeds.mean(axis=0))
    assert (result.data["rope_high"] - result.data["rope_low"] > 0.03).all()  # 0.04 apart: seed 0 to seed 2
    band = next(trace for trace in bands(result.figure) if trace.name == "RoPE")
    np.testing.assert_allclose(band.y, np.concatenate([seeds.max(axis=0), seeds.min(axis=0)[::-1]]))
    learned = next(trace for trace in bands(result.figure) if trace.name == "learned")
    assert len(learned.y) == 4  # 32 and 64 tokens, there and back: no band where the table has no row


def test_spread_leaves_a_length_empty_where_one_seed_has_no_value():
    views = lab_data.views()
    views[1]["lm"]["sliding"]["rope"][3] = {**views[1]["lm"]["sliding"]["rope"][3], "loss": None}
    found = seeds.spread(views, ("lm", "sliding", "rope"), "loss")
    assert found.seeds == (0, 1, 2) and np.isnan(found.mean[3]) and np.isnan(found.low[3])
    assert np.isfinite(found.mean[[0, 1, 2, 4]]).all()
    assert seeds.spread(views, ("lm", "sliding", "absent"), "loss") is None
    views[2]["lm"]["sliding"]["rope"] = views[2]["lm"]["sliding"]["rope"][:-1]
    with pytest.raises(ValueError, match="seed 2 has rows at other lengths"):
        seeds.spread(views, ("lm", "sliding", "rope"), "loss")


def test_one_seed_draws_no_band_and_says_so(tmp_path, monkeypatch):
    folder = lab_data.make_folder(tmp_path / "one", schemes=(), seeds=(0,))
    monkeypatch.setenv(source.ENVIRONMENT, str(folder))
    result = build("lab-lengths")
    assert not bands(result.figure) and len(lines(result.figure)) == 6
    assert result.notes[-1].startswith("1 seed (seed 0)")


def test_perplexity_and_the_other_cut_change_the_figure(lab):
    fig = build("lab-lengths", lab_metric="perplexity", lab_mode="nonoverlapping").figure
    assert fig.layout.yaxis.type == "log" and "non-overlapping" in fig.layout.title.text
    at_l = np.mean([math.exp(1.6 + offset) for offset in (0, 0.02, 0.04)])  # the nonoverlapping loss at L, e^loss
    np.testing.assert_allclose(lines(fig)[0].y[1], at_l)


def test_copy_accuracy_marks_the_trained_region(lab):
    fig = build("lab-copy").figure
    assert len(lines(fig)) == 6 and trained_line_at(fig, math.log2(41))  # the longest training string, 20 letters
    rect = next(shape for shape in fig.layout.shapes if shape.type == "rect")  # the strings seen in training
    assert (rect.x0, rect.x1) == (math.log2(21), math.log2(41))
    assert list(fig.layout.xaxis.ticktext) == ["10", "20", "30", "40", "60", "80"]  # letters
    assert fig.layout.yaxis.tickformat == ".0%"
    assert build("lab-copy", lab_copy_metric="loss").figure.layout.yaxis.tickformat is None


def test_loss_along_one_sequence_is_smoothed_and_says_so(lab):
    result = build("lab-positions", lab_smooth=4)
    assert [trace.name for trace in lines(result.figure)] == ["NoPE", "sinusoidal", "T5 bias", "ALiBi", "RoPE"]
    assert trained_line_at(result.figure, 64)
    assert "rolling mean" in result.notes[0] and "last 4 positions" in result.notes[0]
    assert "learned" in result.notes[1] and "no row past L" in result.notes[1]
    nope = result.data["nope"]  # a step of +0.5 at L, smoothed over 4 positions: 0.125 a position; seeds 0, .02, .04
    np.testing.assert_allclose(nope[62:68], np.array([1.5, 1.5, 1.625, 1.75, 1.875, 2.0]) + 0.02)
    np.testing.assert_allclose(result.data["nope_high"] - result.data["nope_low"], 0.04)
    assert "3 seeds" in result.notes[-1]


def test_scaling_reads_the_shipped_factor_and_evaluates_another_once(lab, monkeypatch):
    calls = []

    def fake(checkpoint, rope_type, factor, lengths, mode, scored_tokens):
        calls.append((rope_type, factor, mode, scored_tokens))
        return [{"length": n, "loss": factor, "perplexity": math.exp(factor)} for n in lengths]

    monkeypatch.setattr(source.lab_results, "scaled_rows", fake)
    source._scaled.cache_clear()
    shipped = build("lab-scaling", factor=4.0)
    assert calls == [] and len(lines(shipped.figure)) == 7 and trained_line_at(shipped.figure, math.log2(64))
    assert lines(shipped.figure)[0].name == "no scaling" and "3 seeds" in shipped.notes[-1]
    build("lab-scaling", factor=2.0)
    build("lab-scaling", factor=2.0)
    evaluated = [kind for kind in source.lab_results.SCALING_TYPES[1:] if kind != "longrope"]
    live = source.LIVE_TOKENS  # fewer tokens than the shipped rows, and the note says so
    assert sorted(calls) == sorted((kind, 2.0, "sliding", live) for kind in evaluated)  # LongRoPE: searched at 4 only
    away = build("lab-scaling", factor=2.0)
    assert "LongRoPE" not in [trace.name for trace in away.figure.data] and len(away.figure.data) == 6  # no bands
    assert away.notes[-1].startswith("1 seed (seed 0)")  # evaluated now: the first seed's model
    assert f"evaluated now, on {live:,} tokens a length" in away.notes[0] and "evaluated now" not in shipped.notes[0]


def test_attention_at_L_and_4L_and_the_learned_table_stopping(lab):
    result = build("lab-attention", lab_scheme="rope", lab_layer=1, lab_head=3)
    assert "(seed 0)" in result.figure.layout.title.text
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
    assert "RoPE model (seed 0)" in result.figure.layout.title.text
    with pytest.raises(ValueError, match="layer must be"):
        build("lab-pair-norms", lab_layer=3)


def test_our_statement_is_computed_from_the_numbers(lab):
    text = " ".join(published.ours(lab_data.views()))
    assert "more than 10% worse: NoPE, sinusoidal, RoPE" in text and "learned: no loss at 4L" in text
    assert "asked for 40: ALiBi 98%, T5 bias 93%, RoPE 68%, NoPE 48%, sinusoidal 0%." in text  # means of 3 seeds
    assert "NoPE is not among the best two" in text and "Across 3 seeds" in text
    assert "asked at 4L = 256 tokens: ALiBi 96%, T5 bias 86%, RoPE 36%, NoPE 0%, sinusoidal 0%." in text  # means
    older = " ".join(published.ours(lab_data.views(new_tables=False)))
    assert "Passkey" not in older and "more than 10% worse: NoPE, sinusoidal, RoPE" in older
    calm = " ".join(published.ours(lab_data.views({"nope": 0.0, "sinusoidal": 0.0, "rope": 0.0})))
    assert "NoPE is not among" not in calm and "sinusoidal holds up here" in calm
    assert any("Press et al. 2022" in line for line in published.published())


def test_a_statement_is_made_only_when_every_seed_agrees(lab):
    calm = {"nope": 0.0, "sinusoidal": 0.0, "rope": 0.0}
    one_breaks = lab_data.views(calm, seed_growth={1: {"sinusoidal": 1.0}})  # seed 1: sinusoidal breaks
    text = " ".join(published.ours(one_breaks))
    assert "sinusoidal holds up here" not in text and "sinusoidal: within 10% in some seeds, not in others" in text
    assert "within 10% of their loss at L: NoPE, T5 bias, ALiBi, RoPE;" in text  # sinusoidal in neither list
    assert "more than 10% worse: none" in text
    copy_differs = lab_data.views(calm, seed_growth={2: {"nope": 0.0}})  # seed 2: NoPE copies everything
    assert "NoPE is not among" not in " ".join(published.ours(copy_differs))
    swapped = lab_data.views(seed_growth={0: {"nope": 1.2}})  # seed 0: NoPE steeper than sinusoidal
    assert "(the seeds differ in the order)" in " ".join(published.ours(swapped))
    assert "(the seeds differ" not in " ".join(published.ours(lab_data.views()))


def test_passkey_accuracy_of_the_six_schemes_against_length_with_L_marked(lab):
    result = build("lab-passkey")
    fig = result.figure
    assert [trace.name for trace in lines(fig)] == ["NoPE", "sinusoidal", "learned", "T5 bias", "ALiBi", "RoPE"]
    assert len(bands(fig)) == 6 and trained_line_at(fig, math.log2(64)) and fig.layout.yaxis.tickformat == ".0%"
    assert "accuracy" in fig.layout.yaxis.title.text and "3 seeds" in result.notes[-1]
    keyed = passkey_lengths_for(64)
    np.testing.assert_array_equal(result.data["length"], keyed)
    sinusoidal = np.array([[row["accuracy"] for row in view["passkey"]["sinusoidal"]] for view in lab_data.views()])
    np.testing.assert_allclose(result.data["sinusoidal"], sinusoidal.mean(axis=0))
    np.testing.assert_allclose(result.data["sinusoidal_low"], sinusoidal.min(axis=0))
    assert result.data["alibi"][-1] > 0.9 > 0.1 > result.data["sinusoidal"][-1]  # made up: ALiBi keeps finding it
    assert "bytes back" in " ".join(result.notes)
    distances = {row["length"]: row["distance"] for row in lab_data.views()[0]["passkey"]["alibi"]}
    assert list(fig.layout.xaxis.ticktext) == [f"{n}<br>{distances[n]:.0f}" for n in keyed]  # accuracy vs distance
    assert "distance" in fig.layout.xaxis.title.text
    loss = build("lab-passkey", lab_passkey_metric="loss").figure
    assert loss.layout.yaxis.tickformat is None and "loss" in loss.layout.yaxis.title.text


def test_passkey_scaling_draws_each_method_but_longrope(lab):
    result = build("lab-passkey-scaling")
    names = [trace.name for trace in lines(result.figure)]
    assert names[0] == "no scaling" and "LongRoPE" not in names and len(names) == 6
    assert "s = 4" in result.figure.layout.title.text and "3 seeds" in result.notes[-1]
    np.testing.assert_allclose(result.data["linear"], 0.9 - 0.02)  # 1 - 0.1 a method, less 0.02 on average a seed


def test_finetune_pairs_each_method_without_and_with_its_fine_tune(lab):
    result = build("lab-finetune")
    drawn = {trace.name: trace.line.dash for trace in lines(result.figure)}
    for method in ("linear (PI)", "NTK", "YaRN"):
        assert drawn[f"{method}, no fine-tune"] == "dash" and drawn[f"{method}, fine-tuned"] == "solid"
    assert drawn["no scaling, fine-tuned"] == "solid" and len(drawn) == 7  # the control
    colour = {trace.name: trace.line.color for trace in lines(result.figure)}
    assert colour["linear (PI), no fine-tune"] == colour["linear (PI), fine-tuned"] != colour["NTK, fine-tuned"]
    assert trained_line_at(result.figure, math.log2(64)) and trained_line_at(result.figure, math.log2(256))
    assert "1,000 steps at 256 tokens" in result.figure.layout.title.text
    past = result.data["length"] > 64  # made up: PI breaks without its fine-tune (+1.0) and recovers with it
    assert (result.data["linear_untuned"][past] - result.data["linear_finetuned"][past] > 0.9).all()
    assert "3 seeds" in result.notes[-1]


def test_training_curves_per_scheme_with_nope_still_falling(lab):
    result = build("lab-training", lab_task="copy")
    assert len(lines(result.figure)) == 6 and "copy task" in result.figure.layout.title.text
    nope, rope = result.data["nope"], result.data["rope"]
    assert nope[-2] - nope[-1] > 10 * (rope[-2] - rope[-1])  # NoPE still learning at the last span
    np.testing.assert_allclose(result.data["rope_high"] - result.data["rope_low"], 0.04)
    np.testing.assert_allclose(result.data["step"][[0, -1]], [50, 1950])  # the middles of 20 spans of 2,000 steps


def test_a_table_the_results_lack_is_said_in_place(tmp_path, monkeypatch):
    folder = lab_data.make_folder(tmp_path / "old", schemes=(), new_tables=False)
    monkeypatch.setenv(source.ENVIRONMENT, str(folder))
    for figure_id, table in [
        ("lab-passkey", "passkey"),
        ("lab-passkey-scaling", "passkey scaling"),
        ("lab-finetune", "fine-tune"),
    ]:
        result = build(figure_id)
        assert result.figure.data == () and result.data == {}
        assert f"no {table} table yet" in annotations(result.figure)[0], figure_id
    assert "no training curve table yet" in annotations(build("lab-training", lab_task="passkey").figure)[0]
    assert len(lines(build("lab-lengths").figure)) == 6  # the older tables still draw


def test_without_results_every_figure_says_how_to_make_them(tmp_path, monkeypatch):
    monkeypatch.setenv(source.ENVIRONMENT, str(tmp_path / "nothing"))
    for figure_id in registry.FIGURES:
        if not figure_id.startswith("lab-"):
            continue
        result = build(figure_id)
        assert result.figure.data == () and result.data == {}
        assert "posenc lab train --all" in annotations(result.figure)[0], figure_id
