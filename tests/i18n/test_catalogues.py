"""The catalogues against the source: every message a page can show is translated in every language, no
catalogue keeps a message the source no longer has, and a translation keeps its message's placeholders."""

from __future__ import annotations

import re
import string

import pytest
from babel.messages.pofile import read_po

from posenc.i18n import extract
from posenc.i18n.catalogues import LOCALE_DIRS, catalogue_files

TEMPLATES = extract.extract()
LANGUAGES = list(LOCALE_DIRS)


def _messages(code: str) -> dict[str, tuple[str, bool, str]]:
    """msgid -> (msgstr, fuzzy, file) over every catalogue file of ``code``."""
    found = {}
    for path in catalogue_files(code):
        with path.open("rb") as handle:
            for message in read_po(handle):
                if message.id:
                    found[str(message.id)] = (str(message.string or ""), message.fuzzy, path.name)
    return found


def _fields(text: str) -> list[str]:
    """The ``str.format`` fields of ``text`` with their format specs, sorted ("{count:,}" -> "count:,")."""
    fields = []
    for _literal, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            fields.append(f"{name}!{conversion or ''}:{spec or ''}")
    return sorted(fields)


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_message_the_source_marks_is_translated(code):
    messages = _messages(code)
    missing = [
        f"{area}: {message.id!r} ({message.locations[0][0]}:{message.locations[0][1]})"
        for area, template in TEMPLATES.items()
        for message in template
        if message.id and (str(message.id) not in messages or not messages[str(message.id)][0])
    ]
    assert not missing, f"{len(missing)} messages without a {code} translation:\n" + "\n".join(missing[:40])


@pytest.mark.parametrize("code", LANGUAGES)
def test_no_translation_waits_unchecked(code):
    fuzzy = [message for message, (_text, is_fuzzy, _file) in _messages(code).items() if is_fuzzy]
    assert not fuzzy, f"fuzzy (unchecked) {code} entries: {fuzzy[:20]}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_no_catalogue_holds_a_message_the_source_no_longer_has(code):
    used = {str(message.id) for template in TEMPLATES.values() for message in template if message.id}
    unused = sorted(set(_messages(code)) - used)
    assert not unused, f"{len(unused)} {code} messages no page uses: {unused[:20]}"


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_translation_keeps_the_placeholders_of_its_message(code):
    wrong = [
        f"{message!r} -> {text!r}"
        for message, (text, _fuzzy, _file) in _messages(code).items()
        if text and _fields(message) != _fields(text)
    ]
    assert not wrong, "\n".join(wrong[:20])


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_translation_keeps_markup_and_hover_fields(code):
    """Bold/italic markers, Plotly's <br> and %{...} hover fields, and code spans come through the translation."""
    marks = [r"\*\*", r"<br>", r"%\{[^}]*\}", r"`[^`]*`"]
    wrong = []
    for message, (text, _fuzzy, _file) in _messages(code).items():
        for mark in marks:
            if text and len(re.findall(mark, message)) != len(re.findall(mark, text)):
                wrong.append(f"{mark}: {message!r} -> {text!r}")
    assert not wrong, "\n".join(wrong[:20])


def test_the_catalogue_files_are_what_extraction_writes():
    """``python -m i18n.extract`` has nothing to change: the templates and catalogues follow the source."""
    stale = [
        str(path.relative_to(extract.ROOT))
        for path, contents in extract.plan().items()
        if not path.exists() or path.read_bytes() != contents
    ]
    assert not stale, f"run `python -m i18n.extract`: out of date {stale}"


def test_a_translated_message_differs_from_its_english_where_it_is_prose():
    """A "translation" that is the English copied over is not a translation (names and formulas may stay)."""
    copied = []
    for code in LANGUAGES:
        for message, (text, _fuzzy, _file) in _messages(code).items():
            if text == message and len(re.findall(r"[a-z]{3,}", message)) >= 4:
                copied.append(f"{code}: {message!r}")
    assert not copied, "\n".join(copied[:20])
