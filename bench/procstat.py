"""CPU time and memory of server processes, read from Linux's /proc (``man 5 proc``: ``/proc/PID/stat`` fields 14
and 15, utime and stime in clock ticks; ``/proc/PID/status`` VmRSS, the resident memory now, and VmHWM, its peak
since the process started)."""

from __future__ import annotations

import os
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds the process has used (0 if it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) ": field 3 is fields[0]
    return (int(fields[11]) + int(fields[12])) / TICKS


def memory_mb(pid: int) -> dict[str, float]:
    """``{"rss": MB now, "hwm": peak MB}`` of the process (zeros if it is gone)."""
    values = {"rss": 0.0, "hwm": 0.0}
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return values
    for line in lines:
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key[2:].lower()] = int(rest.split()[0]) / 1024  # kB
    return values


def total_cpu(pids: list[int]) -> float:
    """CPU seconds used by all of ``pids``."""
    return sum(cpu_seconds(pid) for pid in pids)


def memory(pids: list[int]) -> dict[str, float]:
    """Memory of all of ``pids``: resident now and peak, summed (MB), and the largest single peak."""
    each = [memory_mb(pid) for pid in pids]
    return {
        "rss_mb": round(sum(m["rss"] for m in each), 1),
        "peak_mb": round(sum(m["hwm"] for m in each), 1),
        "peak_one_mb": round(max((m["hwm"] for m in each), default=0.0), 1),
    }
