"""Widgets bound to the parameter registry and mirrored into the URL.

A control's first value comes from the URL (``?base=500000``), else from the chosen preset, else from the
registry default. A malformed or out-of-range value is replaced by the nearest valid one and a message is
shown under the control. Every run writes the current value back into ``st.query_params``, so the address bar
always reproduces the view.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import streamlit as st

from posenc.drawing.params import PARAMS, ParamSpec
from posenc.i18n import _
from posenc.ui import echo, link, state

LARGE_INT_RANGE = 4096  # above this an int gets a number box instead of a slider
PERSIST = "session"  # a control keeps its value when the reader switches pages and comes back
DRAWN = "_controls_drawn"  # session state: {parameter name: what its widget was last drawn with} (_carry_over)


def control(
    name: str,
    *,
    label: str | None = None,
    choices: Sequence[str] | None = None,
    widget: str = "auto",
    chosen: Mapping[str, Any] | None = None,
    start: Any = None,
    least: tuple[float, str] | None = None,
) -> Any:
    """Render the control of parameter ``name`` and return its valid value.

    ``chosen``: the values of the page's other controls so far; a parameter whose range depends on them
    (``ParamSpec.limits``) offers only that range, and a value kept from before that falls outside it is moved in,
    with a message saying why. ``start``: this page's first value when neither the link, the preset nor an
    earlier page set one (else the parameter's default). ``least``: (the smallest value this page can use, why),
    e.g. ``(2, "distances need two positions")``.
    """
    spec = PARAMS[name].within(chosen or {})
    if least is not None and least[0] > spec.minimum:
        spec = replace(spec, minimum=least[0], range_reason=least[1])
    if choices is not None:
        spec = _with_choices(spec, tuple(choices))
    _initialise(spec, start)
    _keep_within(spec)
    label = label or _(spec.label)
    _carry_over(spec, (state.current_page(), widget, label, spec))
    raw = _render(spec, label, widget)
    value, message = spec.coerce(raw)
    if message:
        echo.warning(message, icon="⚠️")
    notice = state.pop_notice(name)
    if notice:
        echo.warning(notice)
    link.put(name, spec.to_url(value))
    return value


def controls(
    names: Sequence[str],
    *,
    columns: int | None = None,
    chosen: Mapping[str, Any] | None = None,
    starts: Mapping[str, Any] | None = None,
    least: Mapping[str, tuple[float, str]] | None = None,
) -> dict[str, Any]:
    """Render several controls side by side (``columns`` per row) and return their values by name. Each control's
    range may depend on ``chosen`` and on the controls before it in ``names``; ``starts``: first values of this
    page and ``least`` their smallest usable values (see :func:`control`)."""
    values: dict[str, Any] = {}
    per_row = columns or min(len(names), 4)
    for row_start in range(0, len(names), per_row):
        row = names[row_start : row_start + per_row]
        for column, name in zip(st.columns(per_row), row, strict=False):
            with column:
                values[name] = control(
                    name,
                    chosen={**(chosen or {}), **values},
                    start=(starts or {}).get(name),
                    least=(least or {}).get(name),
                )
    return values


def set_value(name: str, value: Any) -> None:
    """Set control ``name`` to ``value`` (made valid) from a button's callback, e.g. "use this base"."""
    spec = PARAMS[name]
    st.session_state[name] = _widget_value(spec, spec.coerce(value)[0])


def _keep_within(spec: ParamSpec) -> None:
    """Move a value the widget holds from before into the current range (a smaller head_dim, a shorter seq_len)."""
    if spec.range_reason == "":
        return
    held = st.session_state[spec.name]
    value, message = spec.coerce(held)
    if message:
        st.session_state[spec.name] = _widget_value(spec, value)
        state.add_notice(spec.name, f"{message}.")


def _carry_over(spec: ParamSpec, identity: tuple) -> None:
    """Hand the value held from before to a widget that Streamlit will register under a new identity.

    Streamlit names a keyed widget by its key, its page and, for a slider, its range. A control drawn on a page for
    the first time in a session (or a slider whose range just moved) is a new widget to Streamlit: the value kept
    under the same key by ``persist_state`` reaches it only after that first run, and the run itself reads the
    widget's default, which for our controls (drawn without ``value=``) is its minimum. Writing the held value
    through ``st.session_state`` before the widget is drawn makes the new widget start from it, on the server and
    in the browser. ``identity`` is everything the widget is drawn with; it is only re-written when that changes,
    so a rerun that changed nothing sends the browser no value (an edit in progress is never overwritten).
    """
    drawn = st.session_state.setdefault(DRAWN, {})
    if drawn.get(spec.name) == identity:
        return
    drawn[spec.name] = identity
    value, _message = spec.coerce(st.session_state[spec.name])
    st.session_state[spec.name] = _widget_value(spec, value)


def _initialise(spec: ParamSpec, start: Any = None) -> None:
    """The widget's first value: from the link, else the preset, else the page's ``start``, else the default."""
    if spec.name in st.session_state:  # kept across page switches by the widget's persist_state="session"
        return
    if spec.name in st.query_params:
        value, message = spec.coerce(st.query_params.get(spec.name))
        if message:
            state.add_notice(spec.name, _("From the link: {message}.").format(message=message))
    else:
        value = state.preset_values().get(spec.name, spec.default if start is None else start)
        value, message = spec.coerce(value)
        if message:
            state.add_notice(spec.name, _("From the preset: {message}.").format(message=message))
    st.session_state[spec.name] = _widget_value(spec, value)


def _widget_value(spec: ParamSpec, value: Any) -> Any:
    """What the widget holds: the value itself, or its text for list parameters."""
    return spec.to_url(value) if spec.kind == "ints" else value


def _render(spec: ParamSpec, label: str, widget: str) -> Any:
    key = spec.name
    help_text = _(spec.help) if spec.help else None
    if spec.kind == "choice":
        return st.selectbox(
            label,
            spec.choices,
            key=key,
            persist_state=PERSIST,
            help=help_text,
            format_func=lambda c: _(spec.choice_labels[c]) if c in spec.choice_labels else c,
        )
    if spec.kind == "bool":
        return st.toggle(label, key=key, persist_state=PERSIST, help=help_text)
    if spec.kind == "ints":
        return st.text_input(
            label,
            key=key,
            persist_state=PERSIST,
            help=(help_text or "") + " " + _("Comma-separated, {allowed}.").format(allowed=spec.allowed()),
        )
    if spec.kind == "text":
        allowed = _("Allowed: {allowed}.").format(allowed=spec.allowed())
        return st.text_input(
            label, key=key, persist_state=PERSIST, max_chars=spec.max_chars, help=f"{help_text or ''} {allowed}"
        )
    if spec.kind == "int":
        widget = spec.widget if widget == "auto" else widget
        small = spec.maximum - spec.minimum <= LARGE_INT_RANGE
        single = spec.maximum == spec.minimum  # a range narrowed to one value (start when seq_len is 1): no slider
        if not single and (widget == "slider" or (widget == "auto" and small and not spec.even)):
            return st.slider(
                label, int(spec.minimum), int(spec.maximum), key=key, persist_state=PERSIST, help=help_text
            )
        step = 2 if spec.even else 1
        return st.number_input(
            label,
            int(spec.minimum),
            int(spec.maximum),
            step=step,
            key=key,
            persist_state=PERSIST,
            help=help_text,
            disabled=single,
        )
    return st.number_input(
        label,
        float(spec.minimum),
        float(spec.maximum),
        key=key,
        persist_state=PERSIST,
        format="%g",
        step=_float_step(st.session_state.get(key, spec.default)),
        help=(help_text or "") + " " + _("Allowed: {allowed}.").format(allowed=spec.allowed()),
    )


def _float_step(value: float) -> float:
    """A step that is 10% of the value's order of magnitude (1000 for a base of 10000)."""
    value = abs(float(value)) or 1.0
    return 10.0 ** math.floor(math.log10(value)) / 10 if value >= 1 else 0.01


def _with_choices(spec: ParamSpec, choices: tuple[str, ...]) -> ParamSpec:
    default = spec.default if spec.default in choices else choices[0]
    return replace(spec, choices=choices, default=default)
