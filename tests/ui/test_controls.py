"""ui.controls: a control keeps its value when the reader goes to a page without it and comes back."""

from tests.pages.conftest import assert_healthy, open_page


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
