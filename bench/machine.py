"""What the benchmarks say of the machine they ran on, beside each figure: the load average
moves every ratio measured on a shared 2-core machine (bench/README.md)."""

from __future__ import annotations

import os


def load_average() -> str:
    """``load average 1.02 0.87 0.95 on 2 cores`` (``unknown`` where the system has none)."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"
