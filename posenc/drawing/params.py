"""Every parameter a figure can take: its type, default, allowed range and label.

One registry serves the app's controls, the URL (``?seq_len=4096&base=500000``), the command-line exporter
and the tests. Names equal the core's argument names where one exists. A value from a URL or a command line
that is malformed or out of range is replaced by the nearest valid one, with a sentence saying so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from posenc.drawing.plain_text import quoted, shorten
from posenc.i18n import N_, _

KINDS = ("int", "float", "choice", "bool", "ints", "floats", "text")


@dataclass(frozen=True)
class ParamSpec:
    """One parameter. ``minimum``/``maximum`` bound numbers (and the items of ``ints``); a text's length is
    ``minimum`` (when set) to ``max_chars`` characters."""

    name: str
    kind: str
    default: Any
    label: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    even: bool = False  # ints only: must be even (rotary dims)
    log: bool = False  # floats only: spans decades (base, factor)
    help: str = ""
    max_items: int = 16  # ints only
    unique: bool = True  # ints only: drop repeated items (dims, heads); False keeps them (mrope_section)
    max_chars: int = 200  # text only: a longer value is cut (a link's 960 KB sentences grew the server by 2 GB)
    widget: str = "auto"  # ints: "slider" or "number" to override the choice by range size
    choice_labels: Mapping[str, str] = field(default_factory=dict)
    # A range that depends on other parameters (pair < rotary_dim/2, start < seq_len, head < n_heads): given the
    # values chosen so far, (minimum, maximum, why) or None when a value it needs is not there.
    limits: Callable[[Mapping[str, Any]], tuple[float, float, str] | None] | None = None
    range_reason: str = ""  # set by within(): what the narrowed range follows, e.g. "head_dim 64 has 32 pairs"

    def within(self, values: Mapping[str, Any]) -> ParamSpec:
        """This parameter with its range narrowed by the other parameters' ``values`` (itself when unaffected)."""
        bounds = self.limits(values) if self.limits is not None else None
        if bounds is None:
            return self
        low, high, why = bounds
        low = low if self.minimum is None else max(low, self.minimum)
        high = high if self.maximum is None else min(high, self.maximum)
        return replace(self, minimum=low, maximum=max(low, high), range_reason=why)

    def coerce(self, raw: Any) -> tuple[Any, str | None]:
        """Return ``(valid value, None)``, or ``(nearest valid value, message)`` when ``raw`` is not valid."""
        try:
            value = _PARSERS[self.kind](self, raw)
        except (TypeError, ValueError, OverflowError):  # OverflowError: an int past float's range (10**400)
            message = _("{name}={raw} is not a valid {kind}; using {default}")
            kind = _(_KIND_WORDS[self.kind])
            return self.default, message.format(name=self.name, raw=_show(raw), kind=kind, default=_show(self.default))
        valid = self._nearest(value)
        if self.kind == "text" and valid != value:
            if len(value) > self.max_chars:
                message = _("{name}={raw} is longer than {most} characters; using its first {most}")
            else:  # shorter than its minimum: the default
                message = _("{name}={raw} is not {allowed} long; using {valid}")
            shown = {"raw": _show(raw), "allowed": self.allowed(), "valid": _show(valid), "most": self.max_chars}
            return valid, message.format(name=self.name, **shown)
        if valid != value:
            message = _("{name}={raw} is outside the allowed range ({allowed}); using {valid}")
            return valid, message.format(name=self.name, raw=_show(raw), allowed=self.allowed(), valid=_show(valid))
        return valid, None

    def parse(self, raw: Any) -> Any:
        """The value ``raw`` gives, for callers that refuse rather than replace (the exporter's ``--set``, the
        notebook API): :meth:`coerce`, with its message raised as a ValueError saying what is allowed."""
        value, message = self.coerce(raw)
        if message:  # "seq_len=0 is outside the allowed range (1 to 1048576); using 1": no "using" here
            reason, allowed = message.split("; using")[0], self.allowed()
            raise ValueError(reason if allowed in reason else f"{reason} (allowed: {allowed})")
        return value

    def allowed(self) -> str:
        """The allowed values in words, for messages and help texts (``range_reason`` is in the reader's language
        already: ``limits`` and a page's ``least`` give it translated)."""
        if self.kind == "choice":
            return _("one of {choices}").format(choices=", ".join(self.choices))
        if self.kind in ("int", "float", "ints", "floats"):
            if self.even:
                text = _("{low} to {high}, even").format(low=_show(self.minimum), high=_show(self.maximum))
            else:
                text = _("{low} to {high}").format(low=_show(self.minimum), high=_show(self.maximum))
            return _("{range}: {reason}").format(range=text, reason=self.range_reason) if self.range_reason else text
        if self.kind == "text":
            if self.minimum:
                return _("{low} to {high} characters").format(low=int(self.minimum), high=self.max_chars)
            return _("at most {high} characters").format(high=self.max_chars)
        return self.kind

    def to_url(self, value: Any) -> str:
        """The value as it is written into the URL or a file name."""
        if self.kind == "ints":
            return ",".join(str(int(v)) for v in value)
        if self.kind == "floats":
            return ",".join(f"{float(v):.10g}" for v in value)
        if self.kind == "bool":
            return "1" if value else "0"
        if self.kind == "float":
            return f"{float(value):.10g}"
        return str(value)

    def _nearest(self, value: Any) -> Any:
        if self.kind == "choice":
            return value if value in self.choices else self.default
        if self.kind == "ints":
            clamped = [self._clamp(int(v)) for v in value]
            items = (list(dict.fromkeys(clamped)) if self.unique else clamped)[: self.max_items]
            return tuple(items) if items else tuple(self.default)
        if self.kind == "floats":
            return tuple(self._clamp(float(v)) for v in value[: self.max_items])
        if self.kind in ("int", "float"):
            return self._clamp(value)
        if self.kind == "text":
            value = value[: self.max_chars]
            return value if len(value) >= (self.minimum or 0) else self.default
        return value

    def _clamp(self, value):
        if self.minimum is not None and value < self.minimum:
            value = type(value)(self.minimum)
        if self.maximum is not None and value > self.maximum:
            value = type(value)(self.maximum)
        if self.even and int(value) % 2:
            value = value + 1 if self.maximum is None or value + 1 <= self.maximum else value - 1
        return value


def _parse_int(spec: ParamSpec, raw: Any) -> int:
    if isinstance(raw, bool):
        raise ValueError
    if isinstance(raw, int):  # as it is: 10**40 is a whole number out of range, not a malformed one
        return raw
    number = float(raw)
    if not math.isfinite(number) or not number.is_integer():
        raise ValueError
    return int(number)


def _parse_float(spec: ParamSpec, raw: Any) -> float:
    if isinstance(raw, bool):
        raise ValueError
    number = float(raw)
    if not math.isfinite(number):
        raise ValueError
    return number


def _parse_bool(spec: ParamSpec, raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError


def _items(raw: Any) -> list[Any]:
    """The items of a list parameter: a comma-separated string, or any sequence."""
    return [item for item in raw.replace(" ", "").split(",") if item] if isinstance(raw, str) else list(raw)


def _parse_ints(spec: ParamSpec, raw: Any) -> tuple[int, ...]:
    return tuple(_parse_int(spec, item) for item in _items(raw))


_PARSERS = {
    "int": _parse_int,
    "float": _parse_float,
    "choice": lambda spec, raw: str(raw),
    "bool": _parse_bool,
    "ints": _parse_ints,
    "floats": lambda spec, raw: tuple(_parse_float(spec, item) for item in _items(raw)),
    "text": lambda spec, raw: str(raw),
}
_KIND_WORDS = {  # shown translated, with _()
    "int": N_("whole number"),
    "float": N_("number"),
    "choice": N_("choice"),
    "bool": N_("yes/no value"),
    "ints": N_("comma-separated list of whole numbers"),
    "floats": N_("comma-separated list of numbers"),
    "text": N_("text"),
}


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple | list):
        return shorten(",".join(map(str, value)))
    return quoted(value)


def index_below(name: str, reason: str) -> Callable[[Mapping[str, Any]], tuple[int, int, str] | None]:
    """``limits`` for an index into something of size ``values[name]``: 0 .. size - 1, ``reason`` (marked ``N_``,
    translated here) formatted with ``{n}`` = the size (e.g. ``index_below("n_heads", N_("the model has {n} heads"))``).
    """

    def limits(values: Mapping[str, Any]) -> tuple[int, int, str] | None:
        if name not in values:
            return None
        size = int(values[name])
        return 0, size - 1, _(reason).format(n=f"{size:,}")

    return limits


PARAMS: dict[str, ParamSpec] = {}


def register_param(spec: ParamSpec) -> ParamSpec:
    """Add a parameter to the registry (each name once)."""
    if spec.kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS} (got {spec.kind!r})")
    if spec.name in PARAMS and PARAMS[spec.name] != spec:
        raise ValueError(f"parameter {spec.name!r} is already registered with another definition")
    PARAMS[spec.name] = spec
    return spec


def defaults(names) -> dict[str, Any]:
    """The default value of each named parameter."""
    return {name: PARAMS[name].default for name in names}


def coerce_all(raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Coerce every known parameter in ``raw``; unknown names are reported, not fatal."""
    values, messages = {}, []
    for name, value in raw.items():
        if name not in PARAMS:
            messages.append(f"unknown parameter {name!r}")
            continue
        values[name], message = PARAMS[name].coerce(value)
        if message:
            messages.append(message)
    return values, messages
