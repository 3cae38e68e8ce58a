"""The translation function, the language of a run and the browser-locale mapping."""

from __future__ import annotations

import threading

import pytest

from posenc import i18n
from posenc.i18n import _
from posenc.i18n.areas import COMMON, area_of
from posenc.i18n.catalogues import catalogue


def _some_translated(code: str) -> tuple[str, str]:
    table = catalogue(code)
    assert table, f"the {code} catalogue is empty"
    return next(iter(table.items()))


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("ko", "ko"),
        ("ko-KR", "ko"),
        ("zh-CN", "zh-CN"),
        ("zh_CN", "zh-CN"),
        ("zh", "zh-CN"),
        ("zh-Hans-SG", "zh-CN"),
        ("zh-TW", "en"),
        ("zh-Hant", "en"),
        ("en-US", "en"),
        ("de-DE", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_a_browser_locale_picks_the_app_language(locale, expected):
    assert i18n.from_locale(locale) == expected


@pytest.mark.parametrize("code", ["ko", "zh-CN"])
def test_a_message_is_translated_inside_its_language_only(code):
    message, translated = _some_translated(code)
    assert _(message) == message
    with i18n.language(code):
        assert _(message) == translated
        assert i18n.current() == code
    assert _(message) == message and i18n.current() == "en"


def test_a_message_without_translation_falls_back_to_english_and_is_recorded():
    with i18n.language("ko"), i18n.recording_missing() as missing:
        assert _("No catalogue holds this sentence.") == "No catalogue holds this sentence."
    assert missing == {("ko", "No catalogue holds this sentence.")}


def test_the_language_is_per_thread_of_execution():
    """Each Streamlit session runs its script in its own thread: one reader's language is not another's."""
    seen = {}

    def run(code: str) -> None:
        i18n.set_language(code)
        seen[code] = i18n.current()

    threads = [threading.Thread(target=run, args=(code,)) for code in ("ko", "zh-CN")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {"ko": "ko", "zh-CN": "zh-CN"}
    assert i18n.current() == "en"


def test_an_unknown_language_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="language must be one of en, ko, zh-CN"):
        i18n.set_language("fr")


def test_n_marks_without_translating():
    message, _translated = _some_translated("ko")
    with i18n.language("ko"):
        assert i18n.N_(message) == message


@pytest.mark.parametrize(
    ("path", "area"),
    [
        ("pages/rope.py", "rope"),
        ("posenc/figures/rope/angles.py", "rope"),
        ("posenc/figures/layers/rope_bases.py", "rope"),
        ("pages/context_extension.py", "context"),
        ("posenc/figures/real_attention/model.py", "nope"),
        ("posenc/ui/lesson_view.py", "lessons"),
        ("posenc/ui/show.py", COMMON),
        ("posenc/drawing/params.py", COMMON),
        ("app.py", COMMON),
    ],
)
def test_each_source_file_has_one_catalogue_area(path, area):
    assert area_of(path) == area
