"""Browser tests: the real app in a real headless Chromium (Debian's), driven by Playwright.

`make test` installs Debian's chromium when run as root. Locally without a browser these tests skip with a
message; in CI (CI=true) a missing browser is a failure, never a skip.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from figures.export import find_browser
from tests.browser.server import CHROMIUM_ARGS, ROOT, running_app

SCREENSHOTS = Path(os.environ.get("POSENC_SCREENSHOTS", ROOT / "build" / "screenshots"))


def _require_browser() -> str:
    browser = find_browser()
    if browser is None:
        message = (
            "no Chrome/Chromium found: run `make test` as root (it installs Debian's chromium) or set BROWSER_PATH"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return browser


@pytest.fixture(scope="session")
def app_url():
    _require_browser()
    (ROOT / "build").mkdir(exist_ok=True)
    with running_app() as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    executable = _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def tab(browser):
    """A fresh page that records console errors; the test fails if any were logged."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda message: message.type == "error" and page.console_errors.append(message.text))
    page.on("pageerror", lambda error: page.console_errors.append(str(error)))
    yield page
    errors = list(page.console_errors)
    context.close()
    assert not errors, f"browser console errors: {errors}"
