"""The app's figure cache: every figure built in this process, and a sweep's files with their drawn frames, shared
read-only by all sessions, bounded in bytes (``drawing.cache``; the budget from ``POSENC_FIGURE_CACHE_MB``).

Its own module so that :mod:`ui.show` (which draws figures and the sweep box under them) and :mod:`ui.sweep_box`
(which keeps a sweep's files in it) both use it without importing each other."""

from __future__ import annotations

from posenc.drawing.cache import BoundedCache, budget_from_environment

FIGURES = BoundedCache(budget_from_environment())
"""Every figure built in this process, shared read-only by all sessions, bounded in bytes (drawing.cache)."""
