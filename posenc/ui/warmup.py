"""Warm the figure cache when the server starts, so the first learners of a class do not pay for the class.

The server opens its own pages as a learner would (a protocol-level session over loopback,
:mod:`posenc.serve.stream_client`), one after another in a background thread: every page with all its sections
at its defaults in every language, then every page as each model preset opens it. The pages then build and keep
exactly the figures a learner's link asks for (:data:`posenc.ui.show.FIGURES`), with the pages' own parameter
logic, so nothing here repeats it.

``POSENC_WARMUP`` says how much: ``all`` (the default), ``pages`` (the pages' defaults only) or ``off``.
:func:`start` is called by ``posenc app`` as the server starts and by app.py on a process's first run (for
``streamlit run app.py``); it runs once per process.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
import urllib.parse
import urllib.request

from posenc.i18n import LANGUAGES
from posenc.ui.navigation import PAGES
from posenc.ui.sections import ALL
from posenc.ui.sections import KEY as SECTION
from posenc_core.models.presets import PRESETS

LEVELS = ("all", "pages", "off")
SESSION_TIMEOUT_S = 120.0
_LOGGER = logging.getLogger(__name__)
_started: threading.Thread | None = None
_start_lock = threading.Lock()


def level() -> str:
    """``POSENC_WARMUP`` (one of :data:`LEVELS`; "all" when unset). ValueError for anything else."""
    raw = os.environ.get("POSENC_WARMUP", "all").strip().lower() or "all"
    if raw not in LEVELS:
        raise ValueError(f"POSENC_WARMUP must be one of {', '.join(LEVELS)} (got {raw!r})")
    return raw


def phases(how_much: str = "all") -> list[tuple[str, list[str]]]:
    """The links the warm-up opens, by phase, most asked first: every page at its defaults with all its sections,
    one phase per language; then (``all``) every explorer page as each preset opens it (its first section, in
    English)."""
    if how_much == "off":
        return []
    found = [
        (language, [_link(page.url_path, {"lang": language, SECTION: ALL}) for page in PAGES]) for language in LANGUAGES
    ]
    if how_much == "all":
        presets = [_link(page.url_path, {"preset": preset}) for preset in PRESETS for page in PAGES if page.explorer]
        found.append(("presets", presets))
    return found


def links(how_much: str = "all") -> list[str]:
    """Every link of :func:`phases`, in order."""
    return [link for _, phase in phases(how_much) for link in phase]


def warm(base_url: str, how_much: str = "all") -> dict[str, float]:
    """Open every link of :func:`phases` on the server at ``base_url``, one at a time, and say when each phase is
    done (on standard output, in the server's log); counts and seconds."""
    from posenc.serve.stream_client import open_link, run  # websockets and protobufs: only when warming

    started = time.perf_counter()
    opened = failed = 0
    for name, phase in phases(how_much):
        for link in phase:
            result = run(open_link(base_url, link, timeout=SESSION_TIMEOUT_S))
            opened += 1
            failed += 0 if result.finished_s is not None else 1
        print(f"posenc: warmed {name}: {len(phase)} links, {time.perf_counter() - started:.1f} s", flush=True)
    return {"links": opened, "unfinished": failed, "seconds": time.perf_counter() - started}


def start(base_url: str, *, wait_s: float = 120.0) -> threading.Thread | None:
    """Warm the server at ``base_url`` in a background thread once it answers its health check; once per process
    (later calls return the same thread), None when ``POSENC_WARMUP`` is off."""
    global _started
    how_much = level()
    if how_much == "off":
        return None
    with _start_lock:
        if _started is None:
            _started = threading.Thread(
                target=_wait_and_warm, args=(base_url, how_much, wait_s), name="posenc-warmup", daemon=True
            )
            _started.start()
        return _started


def start_in_this_server() -> threading.Thread | None:
    """:func:`start` for the server running this script (its address, port and base path from Streamlit's
    options); nothing under AppTest, which has no server."""
    import streamlit as st

    if st.get_option("global.appTest"):
        return None
    address, port = st.get_option("server.address") or "", int(st.get_option("server.port"))
    return start(local_url(address, port, st.get_option("server.baseUrlPath") or ""))


def local_url(address: str, port: int, base_path: str = "") -> str:
    """The URL this server answers on from its own machine: loopback where it listens on every interface."""
    host = "127.0.0.1" if address in ("", "0.0.0.0", "::") else address
    host = f"[{host}]" if ":" in host else host
    path = "/" + base_path.strip("/") if base_path.strip("/") else ""
    return f"http://{host}:{port}{path}"


def _link(path: str, query: dict[str, str]) -> str:
    return f"/{path}?{urllib.parse.urlencode(query)}"


def _wait_and_warm(base_url: str, how_much: str, wait_s: float) -> None:
    deadline = time.monotonic() + wait_s
    while True:
        try:
            with urllib.request.urlopen(f"{base_url}/_stcore/health", timeout=5) as answer:
                if answer.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            _LOGGER.warning("posenc: the server at %s did not answer within %.0f s; no warm-up", base_url, wait_s)
            return
        time.sleep(0.5)
    try:
        done = warm(base_url, how_much)
    except Exception:  # a failed warm-up must never stop the server: the pages build on demand
        _LOGGER.exception("posenc: warming the figure cache failed")
        return
    kept = settle_heap()
    print("posenc: figure cache warmed: {links} links in {seconds:.1f} s".format(**done), flush=True)
    print(
        "posenc: {figures} warmed figures ({mib:.0f} MiB) kept for the server's life; {frozen:,} objects kept out of "
        "the garbage collector's scans".format(**kept),
        flush=True,
    )


def settle_heap() -> dict[str, float]:
    """Pin what the warm-up built in the figure cache, up to half its budget, the pages' defaults first
    (:meth:`posenc.drawing.cache.BoundedCache.pin`, which drops the rest); collect once; then move every object
    still alive (the modules, torch, Plotly, the pinned figures) out of the reach of Python's cyclic garbage
    collector (:func:`gc.freeze`), so its full collections scan only what sessions allocate since.

    With ``runner.postScriptGC`` off the collector runs by its own thresholds, and a full collection of the whole
    heap (100-300 ms) landed in one learner's session now and then. A frozen object is still freed by reference
    counting, but one in a reference cycle (a Plotly figure) would never be: hence the pin first, so the warmed
    figures are never dropped. Returns the figures pinned, their MiB and the objects frozen."""
    from posenc.ui.show import FIGURES

    figures = FIGURES.pin(FIGURES.budget // 2)  # the other half holds what learners open next
    gc.collect()
    gc.freeze()
    return {"figures": figures, "mib": FIGURES.pinned_nbytes / 2**20, "frozen": gc.get_freeze_count()}
