"""A process-wide cache of built figures, bounded in bytes: least recently used first out.

The app builds a figure once per (figure, parameters, style, language) and every session that asks for the same
one shares it read-only. Streamlit's own caches bound the number of entries, not their size, and one entry here
can be a few kilobytes (a slope chart) or tens of megabytes (a 1M-position heatmap's arrays), so a count says
nothing about memory. This cache counts each entry's size (:func:`deep_nbytes`: its arrays, lists, strings and
numbers, what the Python objects hold) and evicts the least recently used entries until the total is within the
budget (:data:`DEFAULT_BUDGET_MB`, or ``POSENC_FIGURE_CACHE_MB``). Keys are kept as digests, so a long text
parameter costs 32 bytes here, not its length.

Two sessions asking at once for a figure not built yet wait for one build (a lock per key), as a class opening
one link does. What is there when the server's warm-up ends is pinned (:meth:`BoundedCache.pin`): kept for the
server's life, within the budget, so a burst of distinct links never evicts the pages' defaults.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

import numpy as np

DEFAULT_BUDGET_MB = 256
"""The figure cache's budget in MiB when ``POSENC_FIGURE_CACHE_MB`` does not set one. What :func:`deep_nbytes`
counts is what the objects hold; the process grows by about 1.4 times that (the allocator's own overhead), so the
default budget costs at most about 360 MB of server memory."""

V = TypeVar("V")


def budget_from_environment() -> int:
    """The budget in bytes: ``POSENC_FIGURE_CACHE_MB`` (a positive whole number of MiB) or the default."""
    raw = os.environ.get("POSENC_FIGURE_CACHE_MB", "").strip()
    if not raw:
        return DEFAULT_BUDGET_MB * 2**20
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"POSENC_FIGURE_CACHE_MB must be a positive whole number of MiB (got {raw!r})")
    return int(raw) * 2**20


def digest(key: Hashable) -> bytes:
    """The 16-byte BLAKE2b digest of ``repr(key)``: what the cache keeps instead of the key itself."""
    return hashlib.blake2b(repr(key).encode(), digest_size=16).digest()


def deep_nbytes(obj: Any) -> int:
    """Bytes held by ``obj`` and everything it refers to (each object counted once): NumPy arrays by ``nbytes``,
    containers and scalars by ``sys.getsizeof``, other objects (a Plotly figure and its traces) by their
    ``__dict__``."""
    seen: set[int] = set()
    total = 0
    stack = [obj]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, np.ndarray):
            total += sys.getsizeof(item)  # with its buffer when it owns one
            if item.base is not None:
                stack.append(item.base)
            if item.dtype == object:
                stack.extend(item.ravel().tolist())
            continue
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        elif isinstance(item, str | bytes | int | float | bool | type(None)):
            pass
        elif hasattr(item, "__dict__"):
            stack.append(vars(item))
    return total


class BoundedCache(Generic[V]):
    """Least-recently-used values under digests of their keys, at most ``budget`` bytes in all, the values pinned
    by :meth:`pin` (never evicted) included.

    A value larger than what the pinned values leave of the budget is returned but not kept."""

    def __init__(self, budget: int, size: Callable[[V], int] = deep_nbytes) -> None:
        if budget < 1:
            raise ValueError(f"budget must be at least 1 byte (got {budget})")
        self.budget = budget
        self._size = size
        self._entries: OrderedDict[bytes, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._pinned: dict[bytes, tuple[V, int]] = {}
        self._pinned_bytes = 0
        self._lock = threading.Lock()
        self._building: dict[bytes, threading.Lock] = {}

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            name = digest(key)
            return name in self._entries or name in self._pinned

    def __len__(self) -> int:
        return len(self._entries) + len(self._pinned)

    @property
    def nbytes(self) -> int:
        """Bytes held now, pinned values included (at most :attr:`budget`)."""
        return self._bytes + self._pinned_bytes

    @property
    def pinned_nbytes(self) -> int:
        """Bytes held by pinned values."""
        return self._pinned_bytes

    def pin(self, max_bytes: int | None = None) -> int:
        """Keep the values held now for the life of the cache, oldest first, up to ``max_bytes`` (default: all of
        them); drop the rest. Pinned values stay in the budget and what they leave of it holds the least recently
        used others. Returns how many values were pinned.

        The server pins what its warm-up built (:mod:`posenc.ui.warmup`), at most half the budget: the pages'
        defaults stay however many distinct links a class opens. It then freezes the heap out of the garbage
        collector's scans (:func:`gc.freeze`), and a frozen Plotly figure, which holds reference cycles, would never
        be freed if it were evicted later: so nothing built before the freeze stays evictable."""
        limit = self.budget if max_bytes is None else max_bytes
        with self._lock:
            pinned = 0
            for name, (value, nbytes) in self._entries.items():
                if self._pinned_bytes + nbytes > limit:
                    break
                self._pinned[name] = (value, nbytes)
                self._pinned_bytes += nbytes
                pinned += 1
            self._entries.clear()
            self._bytes = 0
            return pinned

    def get_or_build(self, key: Hashable, build: Callable[[], V]) -> V:
        """The value kept under ``key``, or ``build()``'s, kept; concurrent callers of one key share one build. A
        build that raises keeps nothing (a caller that was waiting on it then builds for itself)."""
        name = digest(key)
        found = self._get(name)
        if found is not None:
            return found[0]
        with self._lock:
            building = self._building.setdefault(name, threading.Lock())
        with building:
            found = self._get(name)
            if found is not None:
                return found[0]
            try:
                value = build()
                self._put(name, value, self._size(value))
            finally:
                with self._lock:
                    self._building.pop(name, None)
        return value

    def clear(self) -> None:
        """Drop every value, pinned ones included."""
        with self._lock:
            self._entries.clear()
            self._pinned.clear()
            self._bytes = self._pinned_bytes = 0

    def _get(self, name: bytes) -> tuple[V, int] | None:
        with self._lock:
            entry = self._entries.get(name)
            if entry is not None:
                self._entries.move_to_end(name)
                return entry
            return self._pinned.get(name)

    def _put(self, name: bytes, value: V, nbytes: int) -> None:
        with self._lock:
            if name in self._entries or name in self._pinned or nbytes > self.budget - self._pinned_bytes:
                return
            self._entries[name] = (value, nbytes)
            self._bytes += nbytes
            while self._bytes + self._pinned_bytes > self.budget:
                _, (_, evicted) = self._entries.popitem(last=False)
                self._bytes -= evicted
