"""ui.show: a figure not built before is preceded by its placeholder frame; a cached one is drawn directly."""

from streamlit.testing.v1 import AppTest

from figures import registry
from tests.pages.conftest import assert_healthy, chart_specs, open_page
from ui import show


def test_a_placeholder_precedes_only_figures_not_built_before(monkeypatch):
    framed = []
    real_placeholder = show.placeholder
    monkeypatch.setattr(show, "placeholder", lambda title, **kw: framed.append(title) or real_placeholder(title, **kw))
    query = {"seq_len": "777", "d_model": "96"}  # parameters no other test builds
    first = open_page("sinusoidal", query, section="The table")
    assert_healthy(first)
    assert framed == [registry.get_spec("sinusoidal-heatmap").title]
    assert len(chart_specs(first)) == 1 and chart_specs(first)[0]["data"]  # the placeholder was replaced

    framed.clear()
    again = open_page("sinusoidal", query, section="The table")
    assert framed == []
    assert chart_specs(again) == chart_specs(first)


def test_a_figure_missing_a_parameter_shows_a_message_in_its_place():
    def page() -> None:
        import figures  # noqa: F401
        from ui import show

        show.figure("rope-wavelengths", {"head_dim": 64})

    at = AppTest.from_function(page).run()
    assert not at.exception
    assert "rope-wavelengths" in at.error[0].value and "seq_len" in at.error[0].value
