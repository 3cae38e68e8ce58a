"""bench/figure_alone.py without a browser: which message is a page's first figure, and the table."""

import json

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.figure_alone import first_figure, table


def _chart(spec: dict, config: dict) -> bytes:
    msg = ForwardMsg()
    msg.delta.new_element.plotly_chart.spec = json.dumps(spec)
    msg.delta.new_element.plotly_chart.config = json.dumps(config)
    return msg.SerializeToString()


def _markdown() -> bytes:
    msg = ForwardMsg()
    msg.delta.new_element.markdown.body = "text"
    return msg.SerializeToString()


def test_the_first_figure_is_the_first_chart_that_is_not_a_computing_frame():
    frame = _chart({"data": [], "layout": {"title": "Computing…"}}, {"staticPlot": True})
    real = _chart({"data": [{"y": [1, 2]}]}, {"displaylogo": False})
    later = _chart({"data": [{"y": [3]}]}, {})
    found = first_figure([_markdown(), frame, real, later])
    assert json.loads(found["spec"]) == {"data": [{"y": [1, 2]}]}
    assert json.loads(found["config"]) == {"displaylogo": False}
    assert first_figure([_markdown(), frame]) is None


def test_the_table_sorts_by_draw_time_and_puts_each_against_three_points():
    text = table(
        {"rope": 45.0, "three points": 16.0, "alibi": 24.4}, {"rope": 14320, "three points": 60, "alibi": 2430}
    )
    rows = [line.split("|")[1].strip() for line in text.splitlines()[2:]]
    assert rows == ["three points", "alibi", "rope"]
    assert "| rope | 14.3 | 45 | +29 |" in text and "| three points | 0.1 | 16 | +0 |" in text
