"""The key reader behind :func:`posenc_core.hf_config.from_hf_config`: one place that looks keys up in a
``config.json`` and records which it used, which it could not read, and what it noted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posenc_core._checks import check_int


class Reader:
    """Looks keys up in ``text_config`` first (multimodal configs nest the language model there), then at
    the top level, and records every key it uses."""

    def __init__(self, top: Mapping[str, Any]):
        text = top.get("text_config")
        self.sources = [("text_config.", text)] if isinstance(text, Mapping) else []
        self.sources.append(("", top))
        self.read: dict[str, Any] = {}  # config key (dotted if nested) -> value
        self.unread: list[str] = []  # sentences: ignored keys, unknown types, derived values
        self.notes: list[str] = []  # sentences for the preset's notes

    def get(self, *keys: str) -> tuple[str | None, Any]:
        """(label, value) of the first of ``keys`` present and not null, else (None, None)."""
        for key in keys:
            for prefix, source in self.sources:
                if source.get(key) is not None:
                    self.read[prefix + key] = source[key]
                    return prefix + key, source[key]
        return None, None

    def integer(self, *keys: str, what: str | None = None) -> int | None:
        """A positive int under one of ``keys``; ``what`` makes it required (ValueError naming the keys)."""
        label, value = self.get(*keys)
        if label is None:
            if what is not None:
                raise ValueError(f"config has no {what}: expected one of {', '.join(map(repr, keys))}")
            return None
        return check_int(label, value, minimum=1)

    def default(self, key: str, value: Any) -> Any:
        """``value``, noting that ``key`` was absent and this default was used."""
        self.unread.append(f"no {key}: using the default {value}")
        return value
