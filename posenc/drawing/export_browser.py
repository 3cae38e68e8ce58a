"""The browser that draws PNG / SVG / PDF exports: found as kaleido's driver (choreographer) finds one, with
``BROWSER_PATH`` first, and checked to start; and what to tell a reader who has none.

Ref: choreographer ``browsers.chromium.Chromium.find_browser`` and ``browsers._chrome_constants`` (the names and
usual places of Chrome, Chromium, Edge, Brave and Vivaldi on Linux, macOS and Windows).
"""

from __future__ import annotations

import functools
import os
import platform
import subprocess
import time

from choreographer.browsers.chromium import Chromium

from posenc.i18n import N_, _

NO_BROWSER = N_(
    "PNG, SVG and PDF are drawn by Plotly's export (kaleido), which needs Chrome or Chromium; none was found."
)
BAD_BROWSER_PATH = N_("BROWSER_PATH is set to {path}, which is not an executable file.")
BROWSER_FAILED = N_("The browser found at {path} does not start, so PNG, SVG and PDF cannot be drawn.")
HOW_TO_GET_ONE = N_(
    'Get one with `python -c "import kaleido; kaleido.get_chrome_sync()"` or from your system\'s packages '
    "(Debian/Ubuntu: `apt-get install chromium`), or set BROWSER_PATH to a browser's executable."
)
CAMERA_STILL_WORKS = N_(
    "In the app, the camera button of a figure's toolbar still downloads a PNG drawn by the reader's own browser; "
    "the HTML and data files need no browser."
)
VERSION_TIMEOUT_S = 20


LOOKUP_TTL_S = 60
"""How long a browser lookup is reused (every figure of every new session asks; one installed while the app runs
is found within a minute)."""


def find_browser() -> str | None:
    """The browser kaleido is given: ``$BROWSER_PATH`` when set (None if that is no executable file), else the one
    kaleido's driver finds: the Chrome that ``kaleido.get_chrome_sync()`` downloads, then Chrome, Chromium, Edge,
    Brave or Vivaldi on PATH, in the Windows registry or at their usual places. Looked up again when
    ``BROWSER_PATH`` or ``PATH`` change, and at least every :data:`LOOKUP_TTL_S` seconds."""
    window = int(time.monotonic() // LOOKUP_TTL_S)
    return _find_browser(os.environ.get("BROWSER_PATH"), os.environ.get("PATH"), window)


@functools.lru_cache(maxsize=4)
def _find_browser(configured: str | None, _path: str | None, _window: int) -> str | None:
    if configured:
        return configured if runnable(configured) else None
    found = Chromium.find_browser(skip_local=False)
    return str(found) if found and runnable(found) else None


def runnable(path: str | os.PathLike) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


@functools.lru_cache(maxsize=16)
def browser_starts(path: str) -> bool:
    """Whether ``path --version`` runs and succeeds (a browser that cannot start would leave kaleido's server
    waiting for ever). Not checked on Windows, where ``chrome.exe --version`` opens a window instead."""
    if platform.system() == "Windows":
        return True
    try:
        done = subprocess.run([path, "--version"], capture_output=True, timeout=VERSION_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def no_browser_message(found: str | None) -> str:
    """Why images cannot be drawn here (``found``: the browser found, which does not start; None: none found) and how
    to get a browser, in the current language."""
    configured = os.environ.get("BROWSER_PATH")
    if found is not None:
        reason = _(BROWSER_FAILED).format(path=found)
    elif configured and not runnable(configured):
        reason = _(BAD_BROWSER_PATH).format(path=configured)
    else:
        reason = _(NO_BROWSER)
    return " ".join([reason, _(HOW_TO_GET_ONE), _(CAMERA_STILL_WORKS)])
