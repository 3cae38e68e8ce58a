"""The browser's main thread until a page's first figure is drawn, in CPU time, split by the kind of work.

A page's JavaScript (Streamlit's bundle, each element's chunk, plotly.js), React's rendering of the elements, the
figure's drawing, style and layout all run on the renderer's one main thread. Chromium's trace (Playwright's
``browser.start_tracing`` with :data:`CATEGORIES`) records each task on it with its wall time (``dur``) and the
thread's CPU time (``tdur``); on a shared machine the wall time of a task stretches with whatever else runs, its CPU
time much less, so the CPU time says what the page itself asks of the browser.

:func:`split` takes the trace's events and the moment the first figure was drawn (ms from navigation start), and
returns the main thread's CPU time until then, in ms, by :data:`KINDS`: each top-level task is counted whole under
the kind of work that took more than half of it (``other`` if none did).
"""

from __future__ import annotations

from collections.abc import Iterable

CATEGORIES = (
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "v8.execute",
    "v8",
    "loading",
    "toplevel",
    "blink.user_timing",
)
"""Trace categories: tasks and their thread time, script evaluation, JavaScript calls with their file, layout, and
the navigation start the times are counted from."""

KINDS = ("scripts", "react", "other_js", "layout", "network", "other")
"""``scripts``: JavaScript files evaluated as they arrive (Streamlit's, its elements' chunks, plotly.js);
``react``: calls into React (Streamlit drawing its elements); ``other_js``: other JavaScript (callbacks and promise
jobs: plotly.js drawing the figure among them); ``layout``: style, layout and paint; ``network``: data and websocket
messages handed to the page; ``other``: the rest."""

MAIN_THREAD = "CrRendererMain"
TASKS = ("RunTask", "ThreadControllerImpl::RunTask")
SCRIPTS = ("v8.evaluateModule", "v8.compileModule", "EvaluateScript", "v8.compile")
LAYOUT = ("Layout", "UpdateLayoutTree", "Paint", "PrePaint", "Layerize", "RecalculateStyles")
NETWORK = ("Receive mojo message", "SimpleWatcher::OnHandleReady", "ResourceReceivedData", "HandlePostMessage")


def split(events: Iterable[dict], drawn_ms: float) -> dict[str, float]:
    """The renderer main thread's CPU time (ms) in the tasks that began before ``drawn_ms`` after navigation start,
    by :data:`KINDS`, and their sum under ``total``. ValueError if the trace has no main thread or no navigation
    start."""
    events = list(events)
    threads = {
        (event["pid"], event["tid"])
        for event in events
        if event.get("ph") == "M" and event.get("name") == "thread_name" and event["args"]["name"] == MAIN_THREAD
    }
    starts = [event["ts"] for event in events if event.get("name") == "navigationStart"]
    if not threads or not starts:
        raise ValueError("events: a Chromium trace with the renderer's main thread and its navigationStart")
    end = min(starts) + drawn_ms * 1000
    result = dict.fromkeys(KINDS, 0.0)
    for thread in threads:
        timed = sorted(
            (e for e in events if (e.get("pid"), e.get("tid")) == thread and e.get("ph") == "X" and "tdur" in e),
            key=lambda e: e["ts"],
        )
        for task, inside in _tasks(timed, end):
            result[kind_of(task, inside)] += task["tdur"] / 1000
    result["total"] = sum(result[kind] for kind in KINDS)
    return result


def _tasks(timed: list[dict], end: float) -> Iterable[tuple[dict, list[dict]]]:
    """Each outermost task beginning before ``end``, with the events inside it."""
    index = 0
    while index < len(timed):
        task = timed[index]
        index += 1
        if task["name"] not in TASKS or task["ts"] >= end:
            continue
        stop = task["ts"] + task["dur"]
        inside = []
        while index < len(timed) and timed[index]["ts"] < stop:
            if timed[index]["name"] not in TASKS:
                inside.append(timed[index])
            index += 1
        yield task, inside


def kind_of(task: dict, inside: list[dict]) -> str:
    """The kind of work (one of :data:`KINDS`) that took most of ``task``'s CPU time: of the events inside it that
    take more than half of it (each inside the one before: a websocket message's handler holds React's call, which
    holds the work), the innermost says; ``other`` when none does."""
    large = [event for event in inside if event["tdur"] > task["tdur"] / 2]
    if not large:
        return "other"
    innermost = max(large, key=lambda event: (event["ts"], -event["dur"]))
    return _kind(innermost)


def _kind(event: dict) -> str:
    name = event["name"]
    if name in SCRIPTS:
        return "scripts"
    if name in LAYOUT:
        return "layout"
    if name in NETWORK:
        return "network"
    if name in ("FunctionCall", "v8.callFunction", "RunMicrotasks", "TimerFire", "FireAnimationFrame", "EventDispatch"):
        url = ((event.get("args") or {}).get("data") or {}).get("url", "")
        return "react" if "react-dom" in url else "other_js"
    return "other"
