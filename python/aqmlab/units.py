"""Reading the resolved scenario's unit strings (``"5ms"``, ``"10Mbps"``, ``"150KB"``) as numbers.

The core writes every duration, rate and size of a resolved scenario with a unit; the ns-2
translator needs them as seconds, bit/s and bytes, and the CLI's progress line the duration. Only
the units the core writes are accepted. A module of its own (not in :mod:`aqmlab.ns2`, whose
package imports pyarrow) so that reading a duration costs a run's start-up nothing.
"""

from __future__ import annotations

import re

_NUM = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*)\s*$")

_DURATION = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
_RATE = {"bps": 1.0, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}
_SIZE = {"B": 1, "KB": 1000, "MB": 1000**2, "GB": 1000**3}


def _split(text: str, units: dict[str, float] | dict[str, int], what: str) -> tuple[float, str]:
    m = _NUM.match(str(text))
    if not m or m.group(2) not in units:
        raise ValueError(f"{text!r} is not a {what} ({', '.join(units)})")
    return float(m.group(1)), m.group(2)


def duration_s(text: str) -> float:
    """``"150000ms"`` → 150.0 seconds."""
    value, unit = _split(text, _DURATION, "duration")
    return value * _DURATION[unit]


def duration_ns(text: str) -> int:
    """A duration in integer nanoseconds (the core's clock), exact for the units it writes."""
    value, unit = _split(text, _DURATION, "duration")
    return round(value * {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9, "min": 6 * 10**10}[unit])


def rate_bps(text: str) -> float:
    """``"10Mbps"`` → 1e7 bit/s."""
    value, unit = _split(text, _RATE, "rate")
    return value * _RATE[unit]


def size_bytes(text: str) -> int:
    """``"150KB"`` → 150000 bytes."""
    value, unit = _split(text, _SIZE, "size")
    return round(value * _SIZE[unit])
