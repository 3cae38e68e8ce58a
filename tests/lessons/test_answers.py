"""The numbers lesson answers quote (lessons/answers.py): every answer function agrees with the core and with
the figure that shows the same number."""

from __future__ import annotations

import math
import textwrap

import pytest
import torch

from posenc import figures  # noqa: F401  (registers every figure)
from posenc.drawing import registry
from posenc.figures.rope.frequencies import pair_turn
from posenc.lessons import answers as lesson_answers
from posenc.lessons.reader import LESSONS_DIR, load_lessons
from posenc_core.encodings import alibi
from posenc_core.rope import scaling as rope_scaling

EVERY_NEED = {
    "d_model": 64,
    "base": 10000.0,
    "layout": "interleaved",
    "head_dim": 64,
    "partial_rotary_factor": 1.0,
    "pair": 4,
    "n_heads": 8,
    "alibi_bias_max": 8.0,
    "heads": (0,),
    "factor": 4.0,
    "seq_len": 16384,
    "original_max_position_embeddings": 4096,
    "clip_distance": 4,
    "mass": 0.9,
    "max_len": 128,
}


@pytest.mark.parametrize("name", sorted(lesson_answers.ANSWERS))
def test_every_answer_function_gives_a_finite_number_and_says_what_it_reads(name):
    answer = lesson_answers.ANSWERS[name]
    assert set(answer.needs) <= set(EVERY_NEED)
    value = lesson_answers.value(name, {need: EVERY_NEED[need] for need in answer.needs})
    assert math.isfinite(value) and value > 0


def test_an_unknown_answer_or_a_missing_parameter_is_refused():
    with pytest.raises(ValueError, match="unknown answer value 'nope'"):
        lesson_answers.value("nope", {})
    with pytest.raises(ValueError, match="'rope_theta' needs pair"):
        lesson_answers.value("rope_theta", {"head_dim": 64, "base": 10000.0})


def _figure_data(figure_id: str, **overrides):
    params, messages = registry.resolve_params(figure_id, overrides)
    assert not messages
    return registry.build(figure_id, params).data, params


def test_the_slowest_sinusoidal_wavelength_is_the_longest_the_figure_draws():
    data, params = _figure_data("sinusoidal-wavelengths", d_model=64, base=10000.0)
    expected = max(float(v) for v in data["wavelength"] if math.isfinite(v))
    assert lesson_answers.sinusoidal_slowest_wavelength(params) == pytest.approx(expected, rel=1e-6)
    assert expected == pytest.approx(2 * math.pi * 10000 ** (62 / 64), rel=1e-6)


def test_rope_theta_and_wavelength_of_a_pair_are_the_pair_rotation_figures():
    params = {**_figure_data("rope-pair-rotation", head_dim=64, pair=4)[1], "device": "cpu"}
    theta, _, wavelength = pair_turn(params)
    assert lesson_answers.rope_theta(params) == pytest.approx(theta, rel=1e-6)
    assert lesson_answers.rope_pair_wavelength(params) == pytest.approx(wavelength, rel=1e-6)
    assert lesson_answers.rope_theta(params) == pytest.approx(10000 ** (-8 / 64))


def test_the_slowest_rope_wavelength_is_the_last_the_wavelength_figure_draws():
    data, params = _figure_data("rope-wavelengths", head_dim=64)
    key = next(name for name in data if "wavelength" in name)
    assert lesson_answers.rope_slowest_wavelength(params) == pytest.approx(float(max(data[key])), rel=1e-5)


def test_an_alibi_slope_is_the_slope_figure_s():
    data, params = _figure_data("alibi-slopes", n_heads=8)
    for head in range(8):
        assert lesson_answers.alibi_slope({**params, "heads": (head,)}) == pytest.approx(float(data["slope"][head]))
    assert lesson_answers.alibi_slope({**params, "heads": (0,)}) == 0.5


def test_the_ntk_base_gives_the_ntk_variant_s_frequencies():
    params = {"head_dim": 128, "base": 10000.0, "factor": 4.0}
    ntk, _ = rope_scaling.ntk_rope(
        128, 10000.0, {"factor": 4.0}, seq_len=None, max_position_embeddings=4096, dtype=torch.float64
    )
    from_base = rope_scaling.default_inv_freq(128, lesson_answers.ntk_base(params), dtype=torch.float64)
    torch.testing.assert_close(ntk, from_base)


def test_the_dynamic_base_and_the_yarn_factor_are_the_core_s():
    params = {
        "head_dim": 128,
        "base": 10000.0,
        "factor": 4.0,
        "seq_len": 16384,
        "original_max_position_embeddings": 4096,
    }
    assert lesson_answers.dynamic_ntk_base(params) == rope_scaling.dynamic_ntk_base(10000.0, 128, 4.0, 16384, 4096)
    assert lesson_answers.yarn_attention_factor({"factor": 4.0}) == pytest.approx(1.1386294, rel=1e-7)


def test_shaw_s_count_is_the_number_of_indices_the_matrix_uses():
    data, params = _figure_data("relative-shaw", seq_len=24, clip_distance=4)
    assert lesson_answers.shaw_offsets(params) == len(set(data["index"].ravel().tolist())) == 9
    assert lesson_answers.interpolated_positions({"seq_len": 16384, "original_max_position_embeddings": 4096}) == 4


def test_the_pairs_past_the_context_are_those_whose_wavelength_the_figure_draws_above_l():
    data, params = _figure_data("rope-wavelengths", head_dim=128, base=10000.0)
    key = next(name for name in data if "wavelength" in name)
    longer = [i for i, wavelength in enumerate(data[key]) if wavelength > 4096]
    needs = {**params, "original_max_position_embeddings": 4096}
    assert lesson_answers.rope_pairs_past_context(needs) == len(longer) == 18
    assert longer == list(range(46, 64)), "the answer names pairs 46 to 63"


def test_alibi_s_widest_span_is_the_span_figure_s_tallest_bar_and_barely_grows_with_the_input():
    for seq_len, widest in ((1024, 551), (16384, 590)):
        data, params = _figure_data("alibi-span", n_heads=8, seq_len=seq_len, mass=0.9)
        assert lesson_answers.alibi_widest_span(params) == max(data["effective_span"]) == widest
    assert math.ceil(math.log(10) * 256) == 590, "about ln 10 / m tokens for the flattest head, m = 1/256"


def test_yarn_s_score_multiplier_is_the_square_of_its_factor():
    factor = lesson_answers.yarn_attention_factor({"factor": 4.0})
    assert lesson_answers.yarn_logit_scale({"factor": 4.0}) == pytest.approx(factor**2)
    assert f"{factor:.3f}" == "1.139" and f"{factor**2:.3f}" == "1.296", "the numbers the lesson writes out"


def test_a_learned_table_has_one_parameter_per_position_and_channel():
    data, params = _figure_data("learned-heatmap", max_len=128, seq_len=128, d_model=64)
    assert lesson_answers.learned_table_parameters(params) == data["table"].size == 8192


def test_the_alibi_slopes_a_lesson_quotes_for_12_heads_are_press_s():
    """The note on slopes for a head count that is not a power of two: 2^-1 … 2^-8, then 2^-0.5 … 2^-3.5."""
    quoted = [2.0**-k for k in range(1, 9)] + [2.0**-0.5, 2.0**-1.5, 2.0**-2.5, 2.0**-3.5]
    assert alibi.slopes(12, dtype=torch.float64).tolist() == pytest.approx(quoted)
    first_of_16 = alibi.slopes(16, dtype=torch.float64)[:12]
    assert not torch.allclose(alibi.slopes(12, dtype=torch.float64), first_of_16)
    assert float(alibi.slopes(8, dtype=torch.float64)[0]) == 2.0 ** (-8 / 8)
    note = load_lessons()["rotary"].steps[2].mistake["en"]
    assert "2^−0.5, 2^−1.5, 2^−2.5, 2^−3.5" in note and "2^−1 … 2^−8" in note


def test_the_lesson_format_is_documented_with_every_answer_function():
    readme = (LESSONS_DIR / "README.md").read_text(encoding="utf-8")
    for name in lesson_answers.ANSWERS:
        assert f"`{name}`" in readme, name
    assert textwrap.dedent("[step.predict]") in readme
