"""Read the translation catalogues: every ``.po`` file of a language, merged into one message -> text table.

A message left untranslated (empty) or marked fuzzy in its ``.po`` file is not used: the English shows instead.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

LOCALES = Path(__file__).with_name("locales")
LOCALE_DIRS = {"ko": "ko", "zh-CN": "zh_CN"}  # app language -> gettext locale folder


def catalogue_files(code: str) -> list[Path]:
    """The ``.po`` files of language ``code``, one per area, sorted."""
    return sorted((LOCALES / LOCALE_DIRS[code] / "LC_MESSAGES").glob("*.po"))


@cache
def catalogue(code: str) -> dict[str, str]:
    """Message -> translation for language ``code`` (read once per process)."""
    table: dict[str, str] = {}
    for path in catalogue_files(code):
        with path.open("rb") as file:
            for message in read_po(file):
                if message.id and message.string and not message.fuzzy:
                    table[str(message.id)] = str(message.string)
    return table
