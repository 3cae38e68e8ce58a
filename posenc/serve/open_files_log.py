"""Log "Too many open files" once, then one count a minute, instead of once per refused connection.

Why: when a server process runs out of file handles (a client holding thousands of idle websockets, issue 24),
asyncio's accept loop (``BaseSelectorEventLoop._accept_connection``, which uvicorn under Streamlit 1.67 serves
with) logs an error with a traceback for every failed ``accept()``, up to the listen backlog (Streamlit's: 2048)
per loop tick, and tries again every second. One ``posenc app`` behind a flood wrote 18.7 MB of log in 10 s on
this machine, and the same again at shutdown ("Exception in callback BaseSelectorEventLoop._start_serving" for each
retry still pending when the listening socket closed). The log then buries the one line that says what happened,
and fills the disk.

:class:`RepeatFilter` lets the first such record through whole (it says what happened and where), counts the
ones after it and turns one of them per :data:`INTERVAL_S` into a summary ("N more connection attempts refused:
too many open files"); what is counted when the process exits is summarised then. A record is one of these when
its exception is an ``OSError`` with ``EMFILE`` or ``ENFILE``, or its text says "Too many open files"; once one
was seen, the shutdown's retry callbacks are counted with them. Every other record passes unchanged.

:func:`install` puts one shared filter on the loggers that emit them: ``asyncio`` (the accept loop),
``uvicorn.error`` (a request whose handler could not open a file), and Tornado's (``tornado.general``,
``tornado.application``: the accept loop of Streamlit before 1.60 and of other Tornado servers). A filter on a
logger sees only the records logged to that logger itself, which is where these are logged.
"""

from __future__ import annotations

import atexit
import errno
import logging
import threading
import time
from collections.abc import Callable

INTERVAL_S = 60.0
LOGGERS = ("asyncio", "uvicorn.error", "tornado.general", "tornado.application")
OUT_OF_FILES = (errno.EMFILE, errno.ENFILE)
RETRY_CALLBACK = "Exception in callback BaseSelectorEventLoop._start_serving"
"""asyncio's retry of a refused accept, failing once the listening socket is closed (at shutdown, after a storm)."""
NOTE = " (repeats are counted: one line a minute says how many)"


class RepeatFilter(logging.Filter):
    """The first out-of-files record of a storm whole, then at most one summary per ``interval_s``."""

    def __init__(self, interval_s: float = INTERVAL_S, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.interval_s = interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._seen = False  # one was logged in this process: the shutdown's retry callbacks are its echo
        self._storm_since: float | None = None  # when the record let through or the last summary was
        self._last: float = 0.0  # the last matching record
        self.suppressed = 0  # counted since the record let through or the last summary
        self._logger: logging.Logger | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._matches(record):
            return True
        now = self._clock()
        with self._lock:
            self._logger = self._logger or logging.getLogger(record.name)
            quiet = self._storm_since is None or (not self.suppressed and now - self._last >= self.interval_s)
            self._last = now
            if quiet:  # a new storm: this record says what happened
                self._seen, self._storm_since = True, now
                record.msg, record.args = f"{record.getMessage()}{NOTE}", None
                return True
            self.suppressed += 1
            if now - self._storm_since < self.interval_s:
                return False
            record.msg, record.args = summary(self.suppressed, now - self._storm_since), None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text, record.stack_info = None, None, None
            self._storm_since, self.suppressed = now, 0
            return True

    def flush(self) -> None:
        """Log the summary of what was counted since the last line (at exit: a storm's tail is not lost)."""
        with self._lock:
            count, since, logger = self.suppressed, self._storm_since, self._logger
            self.suppressed = 0
        if count and since is not None and logger is not None:
            logger.warning(summary(count, self._clock() - since))

    def _matches(self, record: logging.LogRecord) -> bool:
        exception = record.exc_info[1] if record.exc_info else None
        if isinstance(exception, OSError) and exception.errno in OUT_OF_FILES:
            return True
        text = record.getMessage()
        return "Too many open files" in text or (self._seen and text.startswith(RETRY_CALLBACK))


def summary(count: int, seconds: float) -> str:
    """The line standing for ``count`` records left out over ``seconds``."""
    return f"{count} more connection attempts refused: too many open files (in the last {seconds:.0f} s)"


_installed: RepeatFilter | None = None


def install(interval_s: float = INTERVAL_S) -> RepeatFilter:
    """Put one :class:`RepeatFilter` on :data:`LOGGERS` (once per process) and summarise its count at exit."""
    global _installed
    if _installed is None:
        _installed = RepeatFilter(interval_s)
        for name in LOGGERS:
            logging.getLogger(name).addFilter(_installed)
        atexit.register(_installed.flush)
    return _installed
