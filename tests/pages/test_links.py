"""Hostile links: on every page, for every control it shows, a malformed, out-of-range, NaN or infinite value in the
link gives no exception and no error box, a warning naming the parameter and the value, and the control (and the
address bar) holding the nearest valid value: ``PARAMS[name].coerce(raw)[0]``, in the range the page's other values
allow where the parameter's range follows them (``ParamSpec.within``: a pair below rotary_dim/2, start < seq_len).

The (page, parameter) pairs come from the app, not from a list kept here: each page of pages/ is opened once at
its defaults on "All sections" (every control drawn), and every widget whose key is a registered parameter is a
control to attack, so a new page or control is covered without editing this file. Each attack opens the page on
"All sections" too: a value can break a figure, or narrow another control's range, in any section.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from posenc import figures  # noqa: F401  (registers every parameter)
from posenc.drawing.params import PARAMS, ParamSpec
from posenc.ui.navigation import PAGES as NAVIGATION
from tests.pages.conftest import ROOT, chart_specs, elements_by_key, error_texts, open_page, warning_text

PAGES = sorted(path.stem for path in (ROOT / "pages").glob("*.py") if not path.stem.startswith("_"))
DRAWS_NO_FIGURE = {page.name for page in NAVIGATION if page.name in PAGES and not page.explorer} - {"lessons"}
NOTHING_HOSTILE = {  # a text's hostile values (too long, empty, markup): tests/pages/test_hostile_links.py
    "text": "any short text is a valid value; pages that parse it (segments, schemes) test their messages"
}

# The registry replaces a refused value by the nearest value valid *for that parameter*; with the other parameters
# at their defaults that value can still be an impossible combination, which the page reports in place of the
# figures concerned (the message a link with that combination gives). (page, parameter, attack): words that every
# error box on that page must contain.
_ORDER = "beta_fast must be > beta_slow"
_RAMP = "low_freq_factor must be <= high_freq_factor"
_SECTIONS = "mrope_section must add up to head_dim/2"
_BUCKETS = "max_distance must be an integer >="
CLASHES = {
    ("context_extension", "beta_fast", "below"): _ORDER,
    ("context_extension", "beta_slow", "above"): _ORDER,
    ("context_extension", "low_freq_factor", "above"): _RAMP,
    ("context_extension", "high_freq_factor", "below"): _RAMP,
    ("mrope", "head_dim", "above"): _SECTIONS,
    ("mrope", "head_dim", "below"): _SECTIONS,
    ("mrope", "head_dim", "odd"): _SECTIONS,
    ("mrope", "mrope_section", "above"): _SECTIONS,
    ("mrope", "mrope_section", "below"): _SECTIONS,
    ("mrope", "spatial_merge_size", "above"): "must be divisible by spatial_merge_size=8",
    ("relative", "num_buckets", "above"): _BUCKETS,
    ("relative", "max_distance", "below"): _BUCKETS,
    ("context_extension", "head_dim", "below"): "no base up to max_base = 1e+12 keeps B(m) >= 0",  # 2 pairs
    ("plan", "target", "below"): "target must be longer than the original context L = 4,096",
    ("plan", "original", "above"): "target must be longer than the original context L = 16,777,216",
}


def _number(spec: ParamSpec, value: float) -> str:
    return str(int(value)) if spec.kind == "int" else f"{value:.10g}"


def _items(spec: ParamSpec, first: object) -> str:
    """The default list with its first item replaced."""
    return ",".join(str(item) for item in (first, *spec.default[1:]))


def hostile_values(spec: ParamSpec) -> dict[str, str]:
    """The link values the control must refuse, by what is wrong with them."""
    if spec.kind in ("int", "float"):
        low, high = spec.minimum, spec.maximum
        above = high + 1 if spec.kind == "int" or high <= 0 else high * 2
        below = low - 1 if spec.kind == "int" or low <= 0 else low / 2
        values = {"malformed": "abc", "above": _number(spec, above), "below": _number(spec, below)}
        values["nan"] = "nan"  # "inf" takes the same path (a non-finite number), as the params tests show
        if spec.even:
            values["odd"] = str(spec.default + 1 if spec.default + 1 <= high else spec.default - 1)
        return values
    if spec.kind == "ints":
        return {
            "malformed": _items(spec, "x"),
            "above": _items(spec, int(spec.maximum) + 1),
            "below": _items(spec, int(spec.minimum) - 1),
            "nan": _items(spec, "nan"),
        }
    if spec.kind == "choice":
        return {"malformed": "no-such-choice"}  # not "nope": a lab scheme of that name
    if spec.kind == "bool":
        return {"malformed": "maybe"}
    return {}


def controls_on(at: AppTest) -> dict[str, Any]:
    """Every widget of the page (main area and sidebar) whose key is a registered parameter, by its key."""
    return {key: element for key, element in elements_by_key(at).items() if key in PARAMS}


def _held(spec: ParamSpec, held: Any) -> Any:
    """The value a widget holds (list parameters hold their text)."""
    return spec.coerce(held)[0] if spec.kind == "ints" else held


def _page_range(spec: ParamSpec, widget: Any) -> ParamSpec:
    """``spec`` narrowed to a number widget's own range, where the page asks more (compare: seq_len >= 2; the
    length lab: a layer and a head the trained model has)."""
    proto = getattr(widget, "proto", None)
    if spec.kind not in ("int", "float"):
        return spec
    if getattr(proto, "has_min", False) and proto.min > spec.minimum:
        spec = replace(spec, minimum=type(spec.minimum)(proto.min))
    most = getattr(widget, "max", None)  # a slider's or a number box's upper end
    if most is not None and most < spec.maximum:
        spec = replace(spec, maximum=type(spec.maximum)(most))
    return spec


def _discover() -> list[tuple[str, str]]:
    """(page, parameter) for every control the app draws at its defaults."""
    return [(page, name) for page in PAGES for name in controls_on(open_page(page))]


CONTROLS = _discover()


# A malformed or non-finite value falls back to its parameter's default whatever the others hold, so one link
# carries every control of a page broken that way (as a mangled link would); a value out of range is clamped to a
# range the other values set, so each goes alone.
TOGETHER = ("malformed", "nan")


def _attacks() -> list:
    """(page, {parameter: raw}, what) for every control: alone out of range, together when malformed or NaN."""
    alone, together = [], {}
    for page, name in CONTROLS:
        for what, raw in hostile_values(PARAMS[name]).items():
            if what in TOGETHER:
                together.setdefault((page, what), {})[name] = raw
            else:
                alone.append(pytest.param(page, {name: raw}, what, id=f"{page}-{name}-{what}"))
    return alone + [
        pytest.param(page, attack, what, id=f"{page}-every-{what}") for (page, what), attack in together.items()
    ]


CASES = _attacks()


def test_the_controls_are_found_on_every_page():
    assert {page for page, _ in CONTROLS} == set(PAGES), "a page showed no control at its defaults"
    assert {("rope", "head_dim"), ("alibi", "n_heads"), ("why_position", "embedding_dim")} <= set(CONTROLS)
    assert ("rope", "pair") in CONTROLS and ("mrope", "vision_index") in CONTROLS  # inside a section
    assert ("context_extension", "beta_fast") in CONTROLS  # inside an expander
    assert ("sinusoidal", "theme") in CONTROLS  # the sidebar
    kinds = {PARAMS[name].kind for _, name in CONTROLS}
    assert all(hostile_values(PARAMS[name]) or PARAMS[name].kind in NOTHING_HOSTILE for _, name in CONTROLS)
    assert {"int", "float", "ints", "choice", "bool"} <= kinds


def test_every_control_is_attacked_in_every_way():
    attacked = {(page, name, what) for page, attack, what in (case.values for case in CASES) for name in attack}
    expected = {(page, name, what) for page, name in CONTROLS for what in hostile_values(PARAMS[name])}
    assert attacked == expected
    assert not {(page, name, what) for page, name, what in CLASHES if what in TOGETHER}, "a clash needs its own link"


@pytest.mark.parametrize(("page", "attack", "what"), CASES)
def test_a_hostile_link_value_warns_and_the_control_holds_the_nearest_valid_value(page, attack, what):
    at = open_page(page, attack)
    assert not at.exception, [e.message for e in at.exception]
    errors = error_texts(at)
    clash = CLASHES.get((page, *attack, what)) if len(attack) == 1 else None
    if clash is None:
        assert not errors, errors
        assert chart_specs(at) or page in DRAWS_NO_FIGURE, "the page drew no figure"
    else:
        assert errors and all(clash in error for error in errors), (clash, errors)
    warned, shown = warning_text(at), controls_on(at)
    for name, raw in attack.items():
        assert f"{name}={raw!r}" in warned, (name, warned)
        assert name in shown, f"{name} is not drawn on {page}"
        others = {other: _held(PARAMS[other], widget.value) for other, widget in shown.items() if other != name}
        spec = _page_range(PARAMS[name].within(others), shown[name])
        expected, _ = spec.coerce(raw)
        assert shown[name].value == (spec.to_url(expected) if spec.kind == "ints" else expected), name
        assert at.query_params[name] == spec.to_url(expected), name
