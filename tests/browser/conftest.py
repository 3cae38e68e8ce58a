"""Browser tests: the real app in a real headless Chromium (Debian's), driven by Playwright.

`make test` installs Debian's chromium when run as root. Locally without a browser these tests skip with a
message; in CI (CI=true) a missing browser is a failure, never a skip.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bench.app_server import CHROMIUM_ARGS, ROOT, running_app
from posenc.drawing.export import find_browser

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


# Opening a deep link (/rope) makes Streamlit's frontend first probe /rope/_stcore/... for a base path; those
# two 404s are its normal discovery, not errors of the app. Every other failed request or console error counts.
BASE_PATH_PROBE = re.compile(r"/[\w-]+/_stcore/(health|host-config)$")


def _record_failed_response(page, response) -> None:
    if response.status >= 400 and not BASE_PATH_PROBE.search(response.url.split("?")[0]):
        page.console_errors.append(f"HTTP {response.status} {response.url}")


def _record_console(page, message) -> None:
    if message.type == "error" and not message.text.startswith("Failed to load resource"):
        page.console_errors.append(message.text)


@pytest.fixture
def tab(browser):
    """A fresh page that records console errors and failed requests; the test fails if any occurred."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    page.console_errors = []
    page.on("console", lambda message: _record_console(page, message))
    page.on("response", lambda response: _record_failed_response(page, response))
    page.on("pageerror", lambda error: page.console_errors.append(str(error)))
    yield page
    errors = list(page.console_errors)
    context.close()
    assert not errors, f"browser console errors: {errors}"
