"""Keep a server's C heap near what it holds: two malloc arenas and large blocks mapped apart (glibc's mallopt).

Why (issue 24): after 600 distinct links a served app's resident memory had grown 80-120 MB while its figure cache
(the one cache that grows with distinct links) grew 15 MiB, on this 2-core machine. The rest was glibc's
allocator keeping freed memory:

- Each Streamlit session runs its script in a thread of its own, and glibc gives threads up to 8 arenas per core;
  every arena keeps the freed pages of the figures built in it.
- A figure's build allocates large temporary arrays (NumPy, torch). glibc maps a block over its mmap threshold
  apart and unmaps it when freed, but it raises that threshold after each such free (up to 32 MiB), so the
  later temporaries land in the arenas and stay there as holes between live objects.

With ``M_ARENA_MAX`` 2 and a fixed ``M_MMAP_THRESHOLD`` of 1 MiB (which also stops the raising), the same run grew
27 MB and the warmed server started 60 MB smaller (docs/SESSION_COST.md, "Memory"). A setting the operator gave
in the environment (``MALLOC_ARENA_MAX``, ``MALLOC_MMAP_THRESHOLD_``, ``GLIBC_TUNABLES``) is left as it is;
elsewhere than glibc (musl, macOS) this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_MMAP_THRESHOLD = -3  # malloc.h
M_ARENA_MAX = -8
ARENAS = 2
MMAP_THRESHOLD = 2**20
OPERATOR_SETTINGS = ("MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES")


def settle(environ: dict[str, str] | None = None) -> dict[str, int]:
    """Set glibc's arena count and mmap threshold for this process (call it before the server's threads start);
    returns what was set (empty where nothing was: not glibc, or the operator's own settings)."""
    environ = os.environ if environ is None else environ
    if any(name in environ for name in OPERATOR_SETTINGS):
        return {}
    mallopt = _mallopt()
    if mallopt is None:
        return {}
    wanted = {"arena_max": (M_ARENA_MAX, ARENAS), "mmap_threshold": (M_MMAP_THRESHOLD, MMAP_THRESHOLD)}
    return {name: value for name, (option, value) in wanted.items() if mallopt(option, value) == 1}


def _mallopt():
    """glibc's ``mallopt`` (1 on success), or None where the C library has none."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        function = libc.mallopt
    except (OSError, AttributeError):
        return None
    function.argtypes, function.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return function
