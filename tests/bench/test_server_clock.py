"""bench/server_clock.py without a server: one line per websocket client, at its first figure."""

import json

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.server_clock import FigureClock, is_figure


def _message(kind: str) -> ForwardMsg:
    msg = ForwardMsg()
    if kind == "new_session":
        msg.new_session.SetInParent()
    elif kind == "plotly_chart":
        msg.delta.new_element.plotly_chart.spec = "{}"
    else:
        msg.delta.new_element.markdown.body = "text"
    return msg


def test_a_clients_first_figure_is_logged_once_with_the_time_and_messages_since_its_first(tmp_path):
    log = tmp_path / "clock.jsonl"
    clock = FigureClock(log)
    clock.saw(1, _message("new_session"), 10.000)
    clock.saw(2, _message("new_session"), 10.001)
    clock.saw(1, _message("markdown"), 10.005)
    clock.saw(1, _message("plotly_chart"), 10.017)
    clock.saw(1, _message("plotly_chart"), 10.030)  # a second figure of the same client: not logged
    clock.saw(2, _message("markdown"), 10.040)  # a client without a figure yet: nothing
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines == [{"figure_ms": 17.0, "before": 2}]
    clock.saw(2, _message("plotly_chart"), 10.101)
    assert json.loads(log.read_text().splitlines()[1]) == {"figure_ms": 100.0, "before": 2}


def test_only_a_plotly_chart_is_a_figure():
    assert is_figure(_message("plotly_chart"))
    assert not is_figure(_message("markdown")) and not is_figure(_message("new_session"))
