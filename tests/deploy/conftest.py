"""The replicas behind HAProxy (bench/replicas.py). `make test` installs Debian's haproxy when run as root
(scripts/ensure_haproxy.sh). Locally without it these tests skip with a message; in CI (CI=true) a missing
haproxy is a failure, never a skip, as a missing browser is (tests/browser/conftest.py)."""

from __future__ import annotations

import os

import pytest

from bench.replicas import find_haproxy


def require_haproxy() -> str:
    """The haproxy executable; skip (fail in CI) without one."""
    haproxy = find_haproxy()
    if haproxy is None:
        message = "no haproxy found: run `make test` as root (it installs Debian's haproxy) or set HAPROXY"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return haproxy
