"""ui.controls: a control keeps its value when the reader goes to a page without it and comes back."""

import pytest

from tests.pages.conftest import assert_healthy, chart_specs, open_page


def test_a_value_survives_a_visit_to_a_page_without_that_control():
    at = open_page("sinusoidal", section=None)
    at.number_input(key="d_model").set_value(96).run()
    at.switch_page("pages/why_position.py").run()  # no d_model control here
    assert_healthy(at)
    for name in list(at.query_params):  # a page switch in the browser starts from a link without them
        del at.query_params[name]
    at.switch_page("pages/sinusoidal.py").run()
    assert_healthy(at)
    assert at.number_input(key="d_model").value == 96


def test_a_range_follows_the_model_and_a_kept_value_moves_into_it():
    at = open_page("rope", {"head_dim": "64"}, section="One pair turning")
    assert_healthy(at)
    assert at.slider(key="pair").max == 31  # head_dim 64: 32 pairs
    at.slider(key="pair").set_value(30).run()
    at.number_input(key="head_dim").set_value(32).run()  # 16 pairs: pair 30 no longer exists
    assert_healthy(at)
    assert at.slider(key="pair").value == 15 and at.slider(key="pair").max == 15
    assert any("rotary dim 32 has 16 pairs" in w.value for w in at.warning)


def test_a_link_past_the_models_range_says_what_the_range_follows():
    at = open_page("rope", {"head_dim": "64", "pair": "40"}, section="One pair turning")
    assert_healthy(at)
    assert at.slider(key="pair").value == 31
    assert any("pair='40'" in w.value and "rotary dim 64 has 32 pairs" in w.value for w in at.warning)


def test_use_this_base_sets_the_base_to_the_smallest_one_found():
    at = open_page("context_extension", {"target_context": "4096"}, section="Base calculator")
    assert_healthy(at)
    button = next(b for b in at.button if b.label.startswith("Use this base"))
    button.click().run()
    assert_healthy(at)
    smallest = float(button.label.split("(")[1].rstrip(")").replace(",", ""))
    assert at.number_input(key="base").value == pytest.approx(smallest, rel=1e-4)  # the label is rounded
    assert "B(m) >= 0 over the whole context" in chart_specs(at)[0]["layout"]["title"]["text"]


def test_a_page_starts_a_control_where_its_figures_show_their_point_and_a_link_still_wins():
    at = open_page("context_extension", section=None)
    assert at.number_input(key="seq_len").value == 16384  # past L = 4096: dynamic NTK and LongRoPE act
    assert not any("outgrows L" in caption.value for caption in at.caption)
    linked = open_page("context_extension", {"seq_len": "1024"}, section=None)
    assert linked.number_input(key="seq_len").value == 1024
    assert any("outgrows L" in caption.value for caption in linked.caption)


def test_a_slider_keeps_its_value_when_its_range_moves():
    """A slider whose range follows another control is a new widget to Streamlit when the range moves: it keeps the
    reader's value (inside the new range), not the range's minimum."""
    at = open_page("rope", {"head_dim": "128"}, section="One pair turning")
    at.slider(key="pair").set_value(10).run()
    at.number_input(key="head_dim").set_value(64).run()  # 32 pairs: pair 10 still exists
    assert_healthy(at)
    assert at.slider(key="pair").max == 31 and at.slider(key="pair").value == 10
    assert "Pair i=10 " in chart_specs(at)[0]["layout"]["title"]["text"]
