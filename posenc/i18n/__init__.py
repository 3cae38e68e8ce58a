"""The app's languages: English, Korean and Simplified Chinese.

Text shown to a reader is written in English in the source and marked for translation: ``_("...")`` translates at
once (in the language of the script run in progress), ``N_("...")`` only marks a string that is stored now (a
parameter's label, a figure's title) and translated where it is shown, with ``_(stored)``. Placeholders are
``str.format`` fields: ``_("{count:,} positions").format(count=n)``, so a translation can move them.

The catalogues are gettext ``.po`` files (``i18n/locales/<lang>/LC_MESSAGES/<area>.po``), one per area of the app
(``i18n.areas``), read with Babel; ``python -m i18n.extract`` brings them up to date with the source.

The language is per script run (a context variable): the app sets it at the top of every run, and a figure built
inside that run is built in that language. This module knows nothing of Streamlit.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from posenc.i18n.catalogues import catalogue

LANGUAGES = {"en": "English", "ko": "한국어", "zh-CN": "简体中文"}
DEFAULT = "en"
_language: ContextVar[str] = ContextVar("posenc_language", default=DEFAULT)
_missing: set[tuple[str, str]] | None = None  # (language, message) looked up but not in its catalogue, when recorded


def current() -> str:
    """The language of the run in progress ("en", "ko" or "zh-CN")."""
    return _language.get()


def set_language(code: str) -> None:
    """Use ``code`` for the rest of this run (the app calls this first thing)."""
    _language.set(check(code))


@contextmanager
def language(code: str) -> Iterator[None]:
    """Use ``code`` inside the ``with`` block only (a test, an export in another language)."""
    token = _language.set(check(code))
    try:
        yield
    finally:
        _language.reset(token)


def check(code: str) -> str:
    """``code`` when it is one of LANGUAGES, else ``ValueError`` naming the choices."""
    if code not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}; got {code!r}")
    return code


def from_locale(locale: str | None) -> str:
    """The app language for a browser locale ("ko-KR" -> "ko", "zh-CN"/"zh-Hans-SG"/"zh" -> "zh-CN"); English for
    any other, or none. Traditional Chinese (zh-TW, zh-HK, zh-Hant) gets English rather than simplified
    characters it did not ask for."""
    parts = (locale or "").replace("_", "-").lower().split("-")
    if parts[0] == "ko":
        return "ko"
    if parts[0] == "zh" and not {"tw", "hk", "mo", "hant"} & set(parts[1:]):
        return "zh-CN"
    return DEFAULT


def _(message: str) -> str:
    """``message`` in the current language: its translation, or the English when the catalogue has none."""
    code = _language.get()
    if code == DEFAULT or not message:
        return message
    translated = catalogue(code).get(message)
    if translated is None:
        if _missing is not None:
            _missing.add((code, message))
        return message
    return translated


def N_(message: str) -> str:
    """Mark ``message`` for the catalogues without translating it now; show it with ``_(message)``."""
    return message


@contextmanager
def recording_missing() -> Iterator[set[tuple[str, str]]]:
    """Collect every (language, message) looked up without a translation inside the block (the tests use this to
    find text a page shows that no catalogue holds)."""
    global _missing
    previous, _missing = _missing, set()
    try:
        yield _missing
    finally:
        _missing = previous
