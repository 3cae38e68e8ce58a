"""The reader's language: from the link, the sidebar or the browser; kept in the link; switching it keeps the
page's settings and open section."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from posenc import i18n
from tests.pages.conftest import ROOT, TIMEOUT, assert_healthy, open_page, warning_text


def _visit(locale: str, query: dict[str, str] | None = None) -> AppTest:
    """The home page as a browser in ``locale`` opens it."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.context["locale"] = locale
    for name, value in (query or {}).items():
        at.query_params[name] = value
    return at.run()


@pytest.mark.parametrize(("locale", "expected"), [("ko-KR", "ko"), ("zh-CN", "zh-CN"), ("en-GB", "en")])
def test_a_first_visit_follows_the_browsers_language_and_writes_it_into_the_link(locale, expected):
    at = _visit(locale)
    assert_healthy(at)
    assert at.session_state["lang"] == expected
    assert at.query_params["lang"] in (expected, [expected])


def test_a_shared_link_keeps_its_language_in_a_browser_of_another():
    at = _visit("ko-KR", {"lang": "zh-CN"})
    assert at.session_state["lang"] == "zh-CN"


def test_the_link_sets_the_language_of_the_sidebar_the_titles_and_the_page():
    english = open_page("rope", {"lang": "en"})
    korean = open_page("rope", {"lang": "ko"})
    assert_healthy(korean)
    assert korean.sidebar.selectbox(key="lang").value == "ko"
    assert korean.title[0].value != english.title[0].value
    assert korean.sidebar.selectbox(key="preset").label != english.sidebar.selectbox(key="preset").label


def test_an_unknown_language_in_the_link_warns_and_falls_back_to_english():
    at = open_page("alibi", {"lang": "fr"}, section=None)
    assert_healthy(at)
    assert at.session_state["lang"] == "en"
    assert "lang='fr'" in warning_text(at) and "en, ko, zh-CN" in warning_text(at)


def test_switching_the_language_keeps_the_settings_and_the_open_section():
    at = open_page("rope", {"lang": "en", "base": "500000"}, section="The relative property")
    open_label = at.session_state["section-tabs"]
    at.sidebar.selectbox(key="lang").set_value("zh-CN").run()
    assert_healthy(at)
    assert at.query_params["lang"] in ("zh-CN", ["zh-CN"])
    assert at.number_input(key="base").value == 500000
    assert at.query_params["section"] in ("The relative property", ["The relative property"])
    with i18n.language("zh-CN"):
        assert at.session_state["section-tabs"] == i18n._("The relative property") != open_label
