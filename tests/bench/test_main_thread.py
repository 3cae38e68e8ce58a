"""bench/main_thread.py on small hand-made traces: which tasks count, and under which kind of work."""

import pytest

from bench.main_thread import KINDS, kind_of, split

MAIN = {"pid": 1, "tid": 10}
OTHER = {"pid": 1, "tid": 11}
NAV = 1_000_000  # navigationStart, µs


def _thread(where: dict, name: str) -> dict:
    return {"ph": "M", "name": "thread_name", "args": {"name": name}, **where}


def _event(name: str, start_ms: float, cpu_ms: float, where: dict = MAIN, url: str = "", wall_ms: float = 0) -> dict:
    event = {"ph": "X", "name": name, "ts": NAV + start_ms * 1000, "dur": (wall_ms or cpu_ms) * 1000, **where}
    event["tdur"] = cpu_ms * 1000
    if url:
        event["args"] = {"data": {"url": url}}
    return event


def _trace(*events: dict) -> list[dict]:
    return [
        _thread(MAIN, "CrRendererMain"),
        _thread(OTHER, "Compositor"),
        {"ph": "R", "name": "navigationStart", "ts": NAV, **MAIN},
        *events,
    ]


def test_each_task_before_the_figure_counts_whole_under_the_work_inside_it():
    trace = _trace(
        _event("RunTask", 10, 100, wall_ms=150),  # a module evaluated: its CPU time counts, not its wall time
        _event("v8.evaluateModule", 11, 90),
        _event("RunTask", 200, 40),  # a websocket message handled by React
        _event("SimpleWatcher::OnHandleReady", 200, 39),
        _event("v8.callFunction", 201, 37),
        _event("FunctionCall", 201, 36, url="http://x/static/js/react-dom.abc.js"),
        _event("RunTask", 300, 20),
        _event("Layout", 301, 15),
        _event("RunTask", 400, 10),  # nothing inside it takes half of it
        _event("Paint", 401, 4),
        _event("RunTask", 500, 30),
        _event("FunctionCall", 501, 25, url="http://x/static/js/PlotlyChart.abc.js"),
        _event("RunTask", 450, 500, where=OTHER),  # another thread
        _event("RunTask", 900, 70),  # after the figure was drawn
        _event("v8.evaluateModule", 901, 60),
    )
    result = split(trace, drawn_ms=800)
    assert result == {
        "scripts": 100,
        "react": 40,
        "other_js": 30,
        "layout": 20,
        "network": 0,
        "other": 10,
        "total": 200,
    }
    assert set(KINDS) | {"total"} == set(result)


def test_the_innermost_event_holding_most_of_a_task_names_its_kind():
    task = _event("RunTask", 0, 100)
    handler = _event("SimpleWatcher::OnHandleReady", 0, 98)
    assert kind_of(task, [handler]) == "network"
    react = _event("FunctionCall", 1, 90, url="http://x/react-dom.js")
    assert kind_of(task, [handler, _event("v8.callFunction", 1, 95), react]) == "react"
    assert kind_of(task, [_event("Layout", 0, 40), _event("Paint", 50, 40)]) == "other"


def test_a_trace_without_the_pages_main_thread_or_navigation_start_is_refused():
    with pytest.raises(ValueError, match="events"):
        split([_thread(OTHER, "Compositor"), {"ph": "R", "name": "navigationStart", "ts": NAV, **OTHER}], 100)
    with pytest.raises(ValueError, match="navigationStart"):
        split([_thread(MAIN, "CrRendererMain"), _event("RunTask", 0, 10)], 100)
