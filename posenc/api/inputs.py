"""What :mod:`posenc.api` takes in: a model's config.json (a path, a dict or its text), the checks of the plain
arguments (``lang``, ``style``, ``size``) with close-name suggestions, and the description of one parameter."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from posenc import i18n
from posenc.drawing.params import ParamSpec
from posenc_core.models.hf_config import ConfigReading, from_hf_config, read_config_file


@dataclass(frozen=True)
class Parameter:
    """One parameter of a figure: the value it is drawn with, its default, and what is allowed (in words, and as
    bounds or choices); the label and help the app's control shows."""

    name: str
    value: Any
    default: Any
    allowed: str
    kind: str  # int, float, choice, bool, ints, floats, text
    minimum: float | None
    maximum: float | None
    choices: tuple[str, ...]
    label: str
    help: str


def describe(spec: ParamSpec, values: Mapping[str, Any]) -> Parameter:
    """``spec`` with its range narrowed by the other ``values`` (``ParamSpec.within``), its label and help
    translated into the current language."""
    narrowed = spec.within(values)
    return Parameter(
        name=spec.name,
        value=values[spec.name],
        default=spec.default,
        allowed=narrowed.allowed(),
        kind=spec.kind,
        minimum=narrowed.minimum,
        maximum=narrowed.maximum,
        choices=tuple(spec.choices),
        label=i18n._(spec.label),
        help=i18n._(spec.help) if spec.help else "",
    )


def read_config(config: Mapping[str, Any] | str | bytes | os.PathLike) -> ConfigReading:
    """Read a model's ``config.json`` as the app's "From a config.json" does
    (:func:`posenc_core.models.hf_config.from_hf_config`): ``config`` is a dict, the JSON text (str or bytes), or the
    path
    of the file. The reading's ``preset`` is the model; ``read`` and ``unread`` say what was and was not used."""
    if isinstance(config, os.PathLike) or (isinstance(config, str) and not config.lstrip().startswith("{")):
        path = Path(config).expanduser()
        if not path.exists():
            raise ValueError(
                f"config must be a config.json's path, its JSON text or a dict; there is no file {str(path)!r}"
            )
        config = read_config_file(path)  # its size checked before it is read; a directory or FIFO refused
    elif not isinstance(config, Mapping | str | bytes | bytearray):
        raise ValueError(f"config must be a config.json's path, its JSON text or a dict (got {type(config).__name__})")
    try:
        return from_hf_config(config)
    except ValueError as error:  # the core's messages name the key ("config has no ..."), or not yet "config"
        message = str(error)
        raise ValueError(message if message.startswith("config") else f"config: {message}") from None


def check_lang(lang: str) -> str:
    """``lang`` when it is one of the app's languages, else a ValueError naming them."""
    return check_choice("lang", lang, i18n.LANGUAGES)


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """``value`` when it is one of ``choices``, else a ValueError naming the argument and the choices."""
    choices = list(choices)
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)} (got {value!r}){suggest(str(value), choices)}")
    return value


def suggest(wrong: str, known: Iterable[str]) -> str:
    """``"; did you mean 'a' or 'b'?"`` for the names in ``known`` closest to ``wrong``, or ``""``."""
    close = difflib.get_close_matches(wrong, list(known), n=3, cutoff=0.6)
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(name) for name in close) + "?"
