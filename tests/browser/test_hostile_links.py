"""A link's markup in a real browser: Streamlit's own markdown (GitHub's extensions, autolinks) draws a refused value
as the characters it holds, and Plotly draws the Why page's sentences as text. No link, image, bold or HTML appears,
and the browser asks nothing of the link's host. (Every parameter and kind of value: tests/pages/test_hostile_links.py.)
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

import pytest

from posenc.ui.navigation import URL_PATHS
from tests.browser.helpers import exceptions_on_page, wait_until_drawn

pytestmark = pytest.mark.browser

EVIL = "evil.example"
MARKUP = (  # the same words in both sentences: the Why figures are drawn, with the words in their labels and title
    f"![x](http://{EVIL}/x.png) [log](http://{EVIL}/in) <a href='http://{EVIL}/a'>a</a> <b>PWNED</b> **PWNED** "
    f"www.{EVIL}"
)
MARKED = f"a[href*='{EVIL}'], img[src*='{EVIL}'], strong, b, script"  # what rendered markup would leave in the DOM


def test_a_links_markup_is_shown_as_text_in_warnings_and_figures(app_url, tab):
    asked = []
    tab.on("request", lambda request: asked.append(request.url) if EVIL in urlsplit(request.url).netloc else None)
    path = URL_PATHS["why_position"]
    query = {"sentence_a": MARKUP, "sentence_b": MARKUP, "theme": MARKUP, "lang": "en"}
    tab.goto(f"{app_url}/{path}?{urlencode(query)}&section=Attention%3A+all+at+once")
    wait_until_drawn(tab)
    warning = tab.locator("[data-testid='stAlert']").filter(has_text="From the link: theme=")
    warning.first.wait_for(state="visible", timeout=30_000)
    assert "![x](http://" in warning.first.inner_text().replace("\u200b", "")  # the characters, as written
    assert warning.first.locator(MARKED).count() == 0
    title = tab.locator(".js-plotly-plot .main-svg .g-gtitle").first
    assert "<b>PWNED</b>" in title.text_content() and title.locator("a, [style*='bold']").count() == 0
    assert tab.locator(f".js-plotly-plot .main-svg a[href*='{EVIL}']").count() == 0
    assert exceptions_on_page(tab) == [] and asked == [], asked
