"""ui.warmup: the server opens its own pages as a learner would, so that the first learners of a class find their
figures built. The served test checks it end to end: after the warm-up a page's first visit gets its figures
straight away, with no placeholder frame before them (a page sends one only for a figure not built yet)."""

from __future__ import annotations

import gc
import time
import urllib.parse

import pytest

from bench.app_server import running_app
from posenc.i18n import LANGUAGES
from posenc.serve.stream_client import open_link, run
from posenc.ui import warmup
from posenc.ui.navigation import PAGES
from posenc_core.models.presets import PRESETS


def test_the_links_cover_every_page_in_every_language_then_every_preset():
    pages = warmup.links("pages")
    assert len(pages) == len(PAGES) * len(LANGUAGES)
    opened = {
        (urllib.parse.urlsplit(link).path, urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["lang"][0])
        for link in pages
    }
    assert opened == {(f"/{page.url_path}", language) for page in PAGES for language in LANGUAGES}
    assert all("section=All+sections" in link for link in pages)  # every figure of every page
    every = warmup.links("all")
    assert every[: len(pages)] == pages  # the pages' defaults first
    presets = {urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["preset"][0] for link in every[len(pages) :]}
    assert presets == set(PRESETS)
    assert warmup.links("off") == []


def test_the_level_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("POSENC_WARMUP", raising=False)
    assert warmup.level() == "all"
    monkeypatch.setenv("POSENC_WARMUP", "Pages")
    assert warmup.level() == "pages"
    monkeypatch.setenv("POSENC_WARMUP", "sometimes")
    with pytest.raises(ValueError, match="POSENC_WARMUP must be one of all, pages, off"):
        warmup.level()


def test_off_starts_nothing(monkeypatch):
    monkeypatch.setenv("POSENC_WARMUP", "off")
    monkeypatch.setattr(warmup, "_started", None)
    assert warmup.start("http://127.0.0.1:1") is None


def test_settling_the_heap_pins_the_warmed_figures_and_freezes_what_is_alive(monkeypatch):
    from posenc.drawing.cache import BoundedCache
    from posenc.ui import show

    figures = BoundedCache(2**20)
    monkeypatch.setattr(show, "FIGURES", figures)
    warmed = figures.get_or_build(("rope-angles", "defaults"), lambda: {"figure": list(range(10))})
    try:
        kept = warmup.settle_heap()
        assert kept["figures"] == 1 and kept["mib"] > 0 and figures.pinned_nbytes == figures.nbytes > 0
        # What was frozen, counted when it was; a frozen object freed since (by reference counting, in another
        # thread of the test process) leaves the count, and nothing joins it: never more, at most a few fewer
        assert kept["frozen"] > 1000 and 0.99 * kept["frozen"] <= gc.get_freeze_count() <= kept["frozen"]
        assert gc.is_tracked(warmed)
        assert not any(scanned is warmed for scanned in gc.get_objects())  # frozen: in no generation the GC scans
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0


@pytest.mark.parametrize(
    ("address", "port", "base", "url"),
    [
        ("", 8501, "", "http://127.0.0.1:8501"),
        ("0.0.0.0", 80, "/class/", "http://127.0.0.1:80/class"),
        ("127.0.0.1", 9000, "", "http://127.0.0.1:9000"),
        ("::1", 9000, "", "http://[::1]:9000"),
    ],
)
def test_the_server_is_reached_over_loopback_where_it_listens_everywhere(address, port, base, url):
    assert warmup.local_url(address, port, base) == url


def test_after_the_warm_up_a_first_visit_finds_its_figures_built(monkeypatch):
    monkeypatch.setenv("POSENC_WARMUP", "pages")
    with running_app() as base_url:
        log = _log_of(base_url)
        first = run(open_link(base_url, "/sinusoidal?section=The+table", timeout=120))
        assert first.served  # the first session also starts the warm-up (app.py, once per process)
        deadline = time.monotonic() + 300
        while "posenc: warmed en:" not in log.read_text():  # English first: enough to check
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(1)
        for link in ("/rope", "/alibi", "/context_extension", "/nope_and_sinks?section=All+sections"):
            later = run(open_link(base_url, link, timeout=120))
            again = run(open_link(base_url, link, timeout=120))
            assert later.served and again.served, (later.errors, again.errors)
            assert later.figures == again.figures, link  # no placeholder frame: the figures were built
        assert "Traceback" not in log.read_text()


def _log_of(base_url: str):
    from bench.app_server import ROOT

    return ROOT / "build" / f"streamlit-{urllib.parse.urlsplit(base_url).port}.log"
