"""Close what a session holds when Streamlit lets the session go, not when Python gets round to collecting it.

Streamlit offers no hook for a session's end. When a reader's tab closes, its websocket's handler calls the
runtime's ``disconnect_session``: the session stops, and is kept (for two minutes, for a reconnect) in a store that
drops it without shutting it down (read in Streamlit 1.67's ``websocket_session_manager`` and
``memory_session_storage``: the expired entry goes on the store's next write, and its uploaded files are never
removed); its state is then freed whenever that happens and the garbage collector reaches it (the app runs no
collection after each script run). A ``weakref.finalize`` on a session's objects alone would fire minutes late, or
never on an idle server.

So :func:`close_at_end` wraps the runtime's own ``disconnect_session`` and ``close_session`` (once per process):
after either, a session that is no longer active has what it registered closed at once. A session that reconnects
within Streamlit's window keeps its state and registers again on its next run; what was closed (an uploaded table)
is read again or asked for again. Objects are registered weakly: a session dropped any other way still frees
them when it is collected (:class:`~posenc.figures.learned.sources.TableStore` closes itself then).
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Protocol

from streamlit import runtime
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

_LOGGER = logging.getLogger(__name__)
_registered: dict[str, dict[str, weakref.ref]] = {}  # session id -> name -> what to close
_lock = threading.Lock()
_MARK = "_posenc_session_end"


class Closable(Protocol):
    def close(self) -> object: ...


def close_at_end(name: str, thing: Closable) -> bool:
    """Close ``thing`` (its ``close()``) when this run's session ends; the last registration under ``name`` wins.
    False outside a served session (no script run, or no runtime: a test's AppTest)."""
    ctx = get_script_run_ctx()
    if ctx is None or not runtime.exists():
        return False
    if not _install(runtime.get_instance()):
        return False
    with _lock:
        _registered.setdefault(ctx.session_id, {})[name] = weakref.ref(thing)
    return True


def registered(session_id: str) -> int:
    """How many things wait for ``session_id``'s end (for the tests)."""
    with _lock:
        return len(_registered.get(session_id, {}))


def ended(session_id: str) -> int:
    """Close everything registered for ``session_id`` (Streamlit no longer holds it as active); how many."""
    with _lock:
        things = _registered.pop(session_id, {})
    closed = 0
    for ref in things.values():
        thing = ref()
        if thing is None:
            continue
        try:
            thing.close()
            closed += 1
        except Exception:  # one failure must not keep the others (or the runtime's disconnect) from finishing
            _LOGGER.exception("closing %r at the end of session %s failed", thing, session_id)
    return closed


def _install(instance) -> bool:
    """Wrap ``instance``'s disconnect_session and close_session once; False when it has no such methods."""
    if getattr(instance, _MARK, False):
        return True
    with _lock:
        if getattr(instance, _MARK, False):
            return True
        disconnect, close = getattr(instance, "disconnect_session", None), getattr(instance, "close_session", None)
        if not (callable(disconnect) and callable(close) and callable(getattr(instance, "is_active_session", None))):
            return False

        def after(original):
            def wrapped(session_id: str, *args, **kwargs):
                try:
                    return original(session_id, *args, **kwargs)
                finally:
                    if not instance.is_active_session(session_id):
                        ended(session_id)

            wrapped.__wrapped__ = original
            return wrapped

        instance.disconnect_session = after(disconnect)
        instance.close_session = after(close)
        setattr(instance, _MARK, True)
    return True
