"""Where a learned table comes from: a seeded random table, a built-in trained one, or a reader's own table (an
uploaded file, or a model's table fetched by id).

A reader's tables are kept in their own :class:`TableStore` (the app keeps one in each Streamlit session, so it goes
when the session ends) and the figures read them through :func:`using`: one reader's upload is never another's, and
no reader's upload pushes out another's. The same bytes uploaded by several readers are read once and shared while
any of them holds them (a class uploading one checkpoint holds one copy).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

import torch

from posenc.drawing.plain_text import for_plotly
from posenc.figures.learned.budget import TableBudget, server_budget, trim
from posenc.i18n import _
from posenc_core.device import resolve_device
from posenc_core.encodings import learned

MAX_SESSION_TABLES = 2
"""Tables one reader keeps (an upload and a model's table; up to 32 MiB each, on the CPU)."""


class Upload(NamedTuple):
    sha256: str  # the ``upload_sha256`` parameter
    shape: tuple[int, int]


class Kept(NamedTuple):
    name: str  # the file name, or org/name:tensor
    table: torch.Tensor  # (L, d) float32 on the CPU, shared read-only
    key: str = ""  # what the upload budget counts it under (the content's SHA-256)


_shared: weakref.WeakValueDictionary[str, torch.Tensor] = weakref.WeakValueDictionary()  # sha256 -> table held
_shared_lock = threading.Lock()


class TableStore:
    """One reader's tables by SHA-256, at most ``limit`` (the least recently used goes first), each counted in the
    server's upload budget (:mod:`posenc.figures.learned.budget`) while it is kept.

    :meth:`close` lets every table go and gives its bytes back (the app calls it when Streamlit drops the session);
    a store that is collected without being closed does the same, so a session that ends unseen still gives its
    share of the budget back. A closed store can keep tables again (a session that reconnects)."""

    def __init__(self, limit: int = MAX_SESSION_TABLES, budget: TableBudget | None = None):
        self.limit = limit
        self.budget = budget if budget is not None else server_budget()
        self._tables: OrderedDict[str, Kept] = OrderedDict()
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _let_go, self._tables, self._lock, self.budget)

    def __contains__(self, digest: object) -> bool:
        return digest in self._tables

    def __len__(self) -> int:
        return len(self._tables)

    def get(self, digest: str) -> Kept | None:
        with self._lock:
            return self._tables.get(digest)

    def discard(self, digest: str) -> None:
        with self._lock:
            kept = self._tables.pop(digest, None)
        if kept is not None:
            key = kept.key
            del kept  # the table itself, before the allocator is asked for its memory
            trim(self.budget.release(key))

    def close(self) -> int:
        """Let every table go; the bytes given back to the budget."""
        return _let_go(self._tables, self._lock, self.budget)

    def add_upload(self, data: bytes, filename: str) -> Upload:
        """Read an uploaded table (``posenc_core.encodings.learned.load_table``; a ValueError says what is wrong,
        :class:`BudgetFull` when the server's upload budget has no room for it, known from the file's header before
        its values are read) and keep it under the SHA-256 of its name and ``data`` (figures show the name: the
        figure cache keys on both); bytes another reader holds are not read again, nor counted again."""
        content = hashlib.sha256(data).hexdigest()
        with _shared_lock:
            table = _shared.get(content)
        if table is not None:
            self.budget.hold(content, table.nbytes)
        else:
            charged = []

            def charge(shape: tuple[int, int]) -> None:
                self.budget.hold(content, shape[0] * shape[1] * 4)  # float32, as kept
                charged.append(content)

            try:
                with self.budget.reading():
                    table = learned.load_table((data, filename), on_shape=charge, device="cpu")
            except Exception:
                for key in charged:  # read no further: its hold goes
                    self.budget.release(key)
                raise
            with _shared_lock:
                table = _shared.setdefault(content, table)
        digest = hashlib.sha256(filename.encode() + b"\0" + bytes.fromhex(content)).hexdigest()
        return self._keep(digest, filename, table, content)

    def add_table(self, table: torch.Tensor, name: str) -> Upload:
        """Keep a table read elsewhere (a model's table fetched by id) as an upload is kept, under the SHA-256 of its
        name and values; it is counted in the budget but never refused (it is in memory already)."""
        table = table.detach().to("cpu", torch.float32).contiguous()
        digest = hashlib.sha256(name.encode() + b"\0" + table.numpy().tobytes()).hexdigest()
        self.budget.hold(digest, table.nbytes, refuse=False)
        return self._keep(digest, name, table, digest)

    def _keep(self, digest: str, name: str, table: torch.Tensor, key: str) -> Upload:
        """Keep ``table`` (its budget already held once for this store under ``key``)."""
        released = []
        with self._lock:
            if digest in self._tables:
                released.append(key)  # kept already: its one hold stays
            self._tables[digest] = Kept(name, table, key)
            self._tables.move_to_end(digest)
            while len(self._tables) > self.limit:
                released.append(self._tables.popitem(last=False)[1].key)
        trim(sum(self.budget.release(each) for each in released))
        return Upload(digest, tuple(table.shape))


def _let_go(tables: OrderedDict[str, Kept], lock: threading.Lock, budget: TableBudget) -> int:
    with lock:
        keys = [kept.key for kept in tables.values()]
        tables.clear()
    freed = sum(budget.release(key) for key in keys)
    trim(freed)
    return freed


_current: contextvars.ContextVar[TableStore | None] = contextvars.ContextVar("learned_tables", default=None)


@contextlib.contextmanager
def using(store: TableStore) -> Iterator[TableStore]:
    """Figures built inside this block read the reader's tables from ``store``."""
    token = _current.set(store)
    try:
        yield store
    finally:
        _current.reset(token)


# The few most recent tables, on the CPU, shared read-only by the figures of one page (up to 32 MB each).
@lru_cache(maxsize=2)
def _random(max_len: int, d_model: int, std: float, seed: int) -> torch.Tensor:
    return learned.random_table(max_len, d_model, std=std, seed=seed, device="cpu")


@lru_cache(maxsize=2)
def _builtin(name: str) -> torch.Tensor:
    return learned.load_builtin(name, device="cpu")


def load(p: Mapping[str, Any]) -> tuple[torch.Tensor, str]:
    """The (L, d) table the parameters name, on ``p["device"]``, and a short description of it."""
    source = p["table_source"]
    if source == "random":
        table = _random(p["max_len"], p["d_model"], p["std"], p["seed"])
        described = _("random N(0, {std:g}²) table, seed={seed}").format(std=p["std"], seed=p["seed"])
        return table.to(resolve_device(p["device"])), described
    if source == "upload":
        store = _current.get()
        kept = store.get(p["upload_sha256"]) if store is not None else None
        if kept is None:
            raise ValueError(
                _(
                    "upload_sha256={digest!r} names a table not held in this session: upload the file again (a link "
                    "cannot carry an uploaded file)"
                ).format(digest=p["upload_sha256"][:12] or "(none)")
            )
        # the name is the reader's file name or a tensor name from a model's header: text, never Plotly markup
        return kept.table.to(resolve_device(p["device"])), _("uploaded {name}").format(name=for_plotly(kept.name))
    if source not in learned.BUILTIN_SOURCES:
        known = ", ".join(learned.BUILTIN_SOURCES)
        raise ValueError(
            _("table_source must be one of random, upload, {known} (got {source!r})").format(known=known, source=source)
        )
    if source not in learned.builtin_tables():
        raise ValueError(
            _(
                "table_source {source!r} is not installed: {command} (make install does it); it can be chosen as soon "
                "as it is installed, without restarting the app"
            ).format(source=source, command=learned.BUILTIN_SOURCES[source].install_command)
        )
    return _builtin(source).to(resolve_device(p["device"])), _("{source} (trained)").format(source=source)


def shape_text(table: torch.Tensor) -> str:
    return f"{table.shape[0]:,} x {table.shape[1]:,}"


def length_note(table: torch.Tensor, seq_len: int) -> str | None:
    """What seq_len means for this table: positions past its end have no row."""
    rows = table.shape[0]
    if seq_len > rows:
        return _(
            "seq_len={seq_len:,} but the table has only {rows:,} rows: positions {rows:,}..{last:,} have no row and "
            "are not shown (see the table's end below)"
        ).format(seq_len=seq_len, rows=rows, last=seq_len - 1)
    return None
