"""The servers' logs during a load step or a soak: where each log ends now, and the error lines written since.

Its own module so that the load test (``bench.loadtest``) and the soak it runs (``bench.soak``) both read the logs
without importing each other.
"""

from __future__ import annotations

from pathlib import Path

LOG_ERROR_MARKERS = ("Traceback", "ERROR", "Exception", "[ALERT]", "is DOWN")
"""A log line with one of these reports an error (Python, Streamlit, HAProxy)."""


def log_errors(paths: list[Path], offsets: dict[Path, int]) -> list[str]:
    """The lines written to ``paths`` since ``offsets`` that report an error."""
    found = []
    for path in paths:
        with path.open("rb") as log:
            log.seek(offsets.get(path, 0))
            text = log.read().decode(errors="replace")
        found += [line.strip()[:200] for line in text.splitlines() if any(m in line for m in LOG_ERROR_MARKERS)]
    return found


def log_offsets(paths: list[Path]) -> dict[Path, int]:
    return {path: path.stat().st_size for path in paths if path.exists()}
