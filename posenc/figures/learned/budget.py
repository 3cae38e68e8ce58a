"""A server-wide byte budget for the tables readers upload, so that a class uploading its checkpoints at once cannot
take the server's memory.

Every reader's table is held in their own session (:class:`~posenc.figures.learned.sources.TableStore`), and a
60 MB upload held about 150 MB until the process ended (the file's bytes in Streamlit's upload manager, the parsed
table, the copies made while reading it): twenty concurrent uploads took a server from 70 MB to 3 GB
(bench/upload_memory.md). The budget counts what the kept tables hold (a table several readers uploaded is counted
once), is charged before a table's values are read (its shape is known from the file's header) and refuses the
table that would pass it with :class:`BudgetFull`, a ValueError the page shows in place; a table's bytes come back
when its last holder lets it go (a session ending). At most :data:`READING_SLOTS` files are read at once (the next
waits), so the copies made while reading stay bounded too.

The budget is :data:`DEFAULT_BUDGET_MB` MiB, or ``POSENC_UPLOAD_BUDGET_MB``.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import threading
from collections.abc import Iterator

DEFAULT_BUDGET_MB = 512
"""The uploads' budget in MiB when ``POSENC_UPLOAD_BUDGET_MB`` does not set one: 16 of the largest tables read
(32 MiB each in float32), beside the figure cache's 256 MiB (``POSENC_FIGURE_CACHE_MB``)."""
READING_SLOTS = 2
"""Files read at once, server-wide: reading one copies its values (up to 64 MiB in float64) before they are checked
and cast, so twenty readers at once would hold twenty such copies."""
TRIM_BYTES = 8 << 20
"""A release at least this large asks the C allocator to give its free memory back (glibc ``malloc_trim``)."""


class BudgetFull(ValueError):
    """A table that does not fit in what the budget has left: ``needed``, ``held`` and ``budget`` in bytes."""

    def __init__(self, needed: int, held: int, budget: int):
        super().__init__(
            f"the uploaded tables held by this server take {held:,} bytes of their budget of {budget:,} bytes; a "
            f"table of {needed:,} more bytes does not fit (POSENC_UPLOAD_BUDGET_MB)"
        )
        self.needed, self.held, self.budget = needed, held, budget


def budget_from_environment() -> int:
    """The budget in bytes: ``POSENC_UPLOAD_BUDGET_MB`` (a positive whole number of MiB) or the default."""
    raw = os.environ.get("POSENC_UPLOAD_BUDGET_MB", "").strip()
    if not raw:
        return DEFAULT_BUDGET_MB * 2**20
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"POSENC_UPLOAD_BUDGET_MB must be a positive whole number of MiB (got {raw!r})")
    return int(raw) * 2**20


class TableBudget:
    """Bytes held by tables under keys (a table's content digest), each counted once however many hold it: a key's
    bytes are charged by its first :meth:`hold` and given back by the :meth:`release` of its last holder."""

    def __init__(self, budget: int, reading_slots: int = READING_SLOTS):
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise ValueError(f"budget must be a whole number of bytes, at least 1 (got {budget!r})")
        if isinstance(reading_slots, bool) or not isinstance(reading_slots, int) or reading_slots < 1:
            raise ValueError(f"reading_slots must be a whole number, at least 1 (got {reading_slots!r})")
        self.budget = budget
        self._held: dict[str, list[int]] = {}  # key -> [bytes, holders]
        self._bytes = 0
        self._lock = threading.Lock()
        self._reading = threading.BoundedSemaphore(reading_slots)

    @property
    def nbytes(self) -> int:
        """Bytes held now (at most :attr:`budget`, apart from tables held with ``refuse=False``)."""
        return self._bytes

    def __len__(self) -> int:
        """Tables held now."""
        return len(self._held)

    def holders(self, key: str) -> int:
        entry = self._held.get(key)
        return entry[1] if entry else 0

    def hold(self, key: str, nbytes: int, *, refuse: bool = True) -> None:
        """One more holder of ``key``'s table of ``nbytes`` bytes. The first holder charges the bytes; BudgetFull if
        they do not fit and ``refuse`` (a table already in memory, a model's table fetched elsewhere, is counted
        with ``refuse=False`` and never refused)."""
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 0:
            raise ValueError(f"nbytes must be a whole number of bytes, at least 0 (got {nbytes!r})")
        with self._lock:
            entry = self._held.get(key)
            if entry is not None:
                entry[1] += 1
                return
            if refuse and self._bytes + nbytes > self.budget:
                raise BudgetFull(nbytes, self._bytes, self.budget)
            self._held[key] = [nbytes, 1]
            self._bytes += nbytes

    def release(self, key: str) -> int:
        """One holder of ``key`` fewer; the bytes given back (its table's when this was the last holder, else 0)."""
        with self._lock:
            entry = self._held.get(key)
            if entry is None:
                return 0
            entry[1] -= 1
            if entry[1] > 0:
                return 0
            del self._held[key]
            self._bytes -= entry[0]
            return entry[0]

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Hold one of the reading slots while a file is read (waits while :data:`READING_SLOTS` are taken)."""
        with self._reading:
            yield


_budget: TableBudget | None = None
_budget_lock = threading.Lock()


def server_budget() -> TableBudget:
    """The process's budget (made on first use, from the environment)."""
    global _budget
    with _budget_lock:
        if _budget is None:
            _budget = TableBudget(budget_from_environment())
        return _budget


def trim(freed: int) -> bool:
    """Ask glibc to return free heap memory to the system after ``freed`` bytes were let go (at least
    :data:`TRIM_BYTES`): a table's pages freed inside the heap otherwise stay in the process's resident size. True
    when the allocator was asked (False elsewhere than glibc, or for a small release)."""
    if freed < TRIM_BYTES or _malloc_trim is None:
        return False
    _malloc_trim(0)
    return True


def _find_malloc_trim():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to ask
        return None


_malloc_trim = _find_malloc_trim()
