"""ui.show: a figure not built before is preceded by its placeholder frame; a cached one is drawn directly."""

from streamlit.testing.v1 import AppTest

from posenc.figures import registry
from posenc.ui import show
from tests.pages.conftest import assert_healthy, chart_specs, open_page


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
        from posenc import figures  # noqa: F401
        from posenc.ui import show

        show.figure("rope-wavelengths", {"head_dim": 64})

    at = AppTest.from_function(page).run()
    assert not at.exception
    assert "rope-wavelengths" in at.error[0].value and "seq_len" in at.error[0].value


def test_the_code_behind_a_figure_is_in_a_closed_expander_under_it():
    at = open_page("sinusoidal", {"d_model": "96", "base": "5000"}, section="The table")
    assert_healthy(at)
    expanders = [box for box in at.expander if box.label.startswith("Code:")]
    assert len(expanders) == 1
    source = expanders[0].code[0].value
    assert "d_model = 96" in source and "base = 5000.0" in source and "result = pe" in source
    assert "positions = np.arange(" in source
    assert not expanders[0].proto.expanded
    order = [kind for kind, _ in _elements(at.main)]
    chart = order.index("plotly_chart")
    assert ("expander", expanders[0].label) in _elements(at.main)[chart:]  # under the figure


def _elements(node) -> list[tuple[str, str | None]]:
    """(type, label) of ``node`` and everything inside it, in page order."""
    found = [(getattr(node, "type", None), getattr(node, "label", None))]
    children = getattr(node, "children", None)
    for key in sorted(children) if isinstance(children, dict) else ():
        found += _elements(children[key])
    return found
