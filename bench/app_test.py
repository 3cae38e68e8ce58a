"""Run the real app through Streamlit's AppTest as the server runs it: ``open_page`` opens a page the way a browser
opening ``/<page>?<query>`` would. Shared by the benchmark (``bench.page_probe``) and the page tests."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from streamlit.components.v2 import manifest_scanner
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

from posenc.drawing.text_wrap import UNWRAPPED_TITLE
from posenc.ui.navigation import PAGES
from posenc.ui.sections import ALL, KEY

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120


def _behave_like_the_server() -> None:
    """Make AppTest run app.py on every rerun, as the real server does: AppTest sets the pages-folder flag that
    :mod:`ui.router` explains before every run; keeping it off reproduces what a browser session gets."""
    original_init = PagesManager.__init__

    def init_without_pages_folder(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    if not getattr(PagesManager.__init__, "_posenc_patched", False):
        init_without_pages_folder._posenc_patched = True
        PagesManager.__init__ = init_without_pages_folder


def _scan_components_once() -> None:
    """Scan the installed packages for Streamlit components once per process, as the server does at start-up.

    Each new AppTest scans every installed distribution's metadata again (about half a second here: most of a
    test's time); the installed packages do not change while the tests run, so the first scan's result serves
    every AppTest of the process."""
    scan = manifest_scanner.scan_component_manifests
    if not getattr(scan, "_posenc_once", False):
        once = functools.cache(scan)
        once._posenc_once = True
        manifest_scanner.scan_component_manifests = once


_behave_like_the_server()
_scan_components_once()


def open_page(page: str, query: dict[str, str] | None = None, *, section: str | None = ALL) -> AppTest:
    """Run app.py on ``pages/<page>.py`` as a browser opening ``/<page>?<query>`` would.

    Pages with sections open on "All sections" (every figure) unless ``section`` says otherwise; ``None`` leaves
    the link without one, as a visitor's first click on the page would.
    """
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    query = dict(query or {})
    if section is not None:
        query.setdefault(KEY, section)
    for name, value in query.items():
        at.query_params[name] = str(value)
    if page != PAGES[0].name:  # the home page opens without a switch
        at.switch_page(f"pages/{page}.py")
    return at.run()


def chart_specs(at: AppTest) -> list[dict]:
    """The Plotly figures of the page, as the JSON sent to the browser, each title as its builder wrote it (the
    app wraps long titles for a phone and keeps the original in ``layout.meta``)."""
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    for spec in specs:
        original = (spec["layout"].get("meta") or {}).get(UNWRAPPED_TITLE)
        if original is not None:
            spec["layout"]["title"]["text"] = original
    return specs


def payload_bytes(at: AppTest) -> int:
    """Bytes of figure JSON the page sends."""
    return sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))
