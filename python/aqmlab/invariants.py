"""Invariants every run's results must satisfy before they are written or served from a cache.

A summary that breaks one is a bug (in the core, or a damaged file on disk), never a result:
:func:`check_summary` and :func:`check_links` raise :class:`InvariantError` naming the run, the
key, the value and what was expected. The checks:

- every number the summary promises is a finite number (JSON ``NaN``/``Infinity``/``null``
  where a number belongs is an error); counters are integers ≥ 0;
- ``utilisation`` in [0, 1 + 1e-9] (bits serialised in the window over rate x window; the
  core counts partial packets at the window's edges, so it cannot exceed 1 by more than
  rounding), ``loss_rate`` and ``jain_index`` in [0, 1], delay and queue statistics ≥ 0 with
  ``p50 ≤ p99`` and ``min ≤ mean ≤ max`` for goodput;
- every link conserves packets over the whole run: ``arrivals = dequeued + drops + backlog``,
  ``enqueued ≤ arrivals``, ``dequeued ≤ enqueued``, ``lost_on_wire ≤ tx_packets ≤ dequeued``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

#: Slack on upper bounds of ratios computed in floating point.
EPS = 1e-9


class InvariantError(ValueError):
    """A run's results break an invariant. ``.run`` names the run, ``.path`` the key."""

    def __init__(self, run: str, path: str, value: Any, expected: str) -> None:
        super().__init__(f"run {run}: {path}: {value!r} ({expected})")
        self.run = run
        self.path = path
        self.value = value
        self.expected = expected

    def __reduce__(self) -> tuple[Any, tuple[str, str, Any, str]]:
        # Raised in process-pool and Dask workers: must survive pickling with its fields.
        return (type(self), (self.run, self.path, self.value, self.expected))


def _number(run: str, path: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
        raise InvariantError(run, path, v, "a finite number")
    return float(v)


def _count(run: str, path: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0:
        raise InvariantError(run, path, v, "an integer count >= 0")
    return int(v)


def _within(run: str, path: str, v: Any, lo: float, hi: float) -> float:
    x = _number(run, path, v)
    if not lo - EPS <= x <= hi + EPS:
        raise InvariantError(run, path, v, f"in [{lo:g}, {hi:g}]")
    return x


def _table(run: str, path: str, v: Any) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise InvariantError(run, path, v, "a table")
    return v


def check_summary(summary: Any, run: str) -> None:
    """Raises :class:`InvariantError` if ``summary`` (a parsed ``summary.json``) is not sound."""
    s = _table(run, "<summary>", summary)
    for key in ("utilisation", "loss_rate", "arrivals", "departures", "marks", "drops"):
        if key not in s:
            raise InvariantError(run, key, None, "present in every summary")
    _within(run, "utilisation", s["utilisation"], 0.0, 1.0)
    _within(run, "loss_rate", s["loss_rate"], 0.0, 1.0)
    for key in ("arrivals", "departures", "marks"):
        _count(run, key, s[key])
    for reason, n in _table(run, "drops", s["drops"]).items():
        _count(run, f"drops.{reason}", n)
    if s.get("jain_index") is not None:
        _within(run, "jain_index", s["jain_index"], 0.0, 1.0)
    if isinstance(s.get("goodput_mbps"), Mapping):
        g = s["goodput_mbps"]
        lo, mean, hi = (_number(run, f"goodput_mbps.{k}", g.get(k)) for k in ("min", "mean", "max"))
        if not (0.0 <= lo <= mean * (1 + EPS) + EPS and mean <= hi * (1 + EPS) + EPS):
            raise InvariantError(run, "goodput_mbps", dict(g), "0 <= min <= mean <= max")
    if isinstance(s.get("delay_ms"), Mapping):
        d = s["delay_ms"]
        vals = {k: _number(run, f"delay_ms.{k}", d[k]) for k in ("mean", "p50", "p99") if k in d}
        if any(v < 0 for v in vals.values()) or vals.get("p50", 0) > vals.get("p99", math.inf):
            raise InvariantError(run, "delay_ms", dict(d), "values >= 0 and p50 <= p99")
    if isinstance(s.get("queue_pkts"), Mapping):
        for k in ("mean", "std"):
            if k in s["queue_pkts"] and _number(run, f"queue_pkts.{k}", s["queue_pkts"][k]) < 0:
                raise InvariantError(run, f"queue_pkts.{k}", s["queue_pkts"][k], ">= 0")
    for i, win in enumerate(s.get("windows") or []):
        w = _table(run, f"windows.{i}", win)
        _within(run, f"windows.{i}.utilisation", w.get("utilisation"), 0.0, 1.0)
        _within(run, f"windows.{i}.loss_rate", w.get("loss_rate"), 0.0, 1.0)
    for i, flow in enumerate(s.get("flows") or []):
        if _flow_sound(flow):
            continue
        f = _table(run, f"flows.{i}", flow)
        if _number(run, f"flows.{i}.goodput_mbps", f.get("goodput_mbps")) < 0:
            raise InvariantError(run, f"flows.{i}.goodput_mbps", f["goodput_mbps"], ">= 0")
        for key in _FLOW_COUNTS:
            if key in f:
                _count(run, f"flows.{i}.{key}", f[key])


#: The per-flow counters :func:`check_summary` reads.
_FLOW_COUNTS = ("drops", "marks", "retransmits", "timeouts")


def _flow_sound(f: Any) -> bool:
    """True when one per-flow entry passes :func:`check_summary`'s checks, decided without
    building each key's path (a summary has a row per flow: ~3 ms of CPU per 1,000 flows that
    way). Only a plain dict of plain numbers is decided here; False sends anything else to the
    checks that name the key."""
    if type(f) is not dict:
        return False
    g = f.get("goodput_mbps")
    if not ((type(g) is float and 0.0 <= g < math.inf) or (type(g) is int and g >= 0)):
        return False
    for key in _FLOW_COUNTS:
        v = f.get(key, 0)
        if type(v) is not int or v < 0:
            return False
    return True


#: The link counters the conservation checks read, and the one they may do without.
_LINK_COUNTS = ("arrivals", "enqueued", "dequeued", "drops", "backlog", "tx_packets")
#: Above this a sum of three counters could wrap around in int64: such columns take the row loop.
_WHOLE_COLUMN_LIMIT = 2**61


def _links_hold(links: Mapping[str, Any]) -> bool:
    """True when every link passes :func:`check_links`, decided on whole numpy columns (the
    core's tables): the row loop costs ~15 ms of CPU per 1,000 links. False when a check
    fails or the columns are not what this path reads (lists, floats, missing counters,
    ragged lengths): the row loop then decides, and names the first bad link."""
    import numpy as np

    found = [links.get(k) for k in (*_LINK_COUNTS, "lost_on_wire")]
    if found[-1] is None:
        found[-1] = np.zeros(len(links.get("arrivals", [])), dtype=np.int64)
    cols: list[np.ndarray[Any, Any]] = [
        c for c in found if isinstance(c, np.ndarray) and c.ndim == 1 and c.dtype.kind in "iu"
    ]
    if len(cols) != len(found):
        return False
    arrivals, enqueued, dequeued, drops, backlog, tx, lost = cols
    n = len(arrivals)
    if any(len(c) != n for c in cols) or any(len(v) < n for v in links.values()):
        return False
    if n == 0:
        return True
    if any(int(c.min()) < 0 or int(c.max()) >= _WHOLE_COLUMN_LIMIT for c in cols):
        return False
    return bool(
        np.array_equal(arrivals, dequeued + drops + backlog)
        and np.all(dequeued <= enqueued)
        and np.all(enqueued <= arrivals)
        and np.all(lost <= tx)
        and np.all(tx <= dequeued)
    )


def check_links(links: Mapping[str, list[Any]], run: str) -> None:
    """Packet conservation on every link (``links`` as columns: name -> list of values)."""
    if _links_hold(links):
        return
    n = len(links.get("arrivals", []))
    for i in range(n):
        row = {k: v[i] for k, v in links.items()}
        name = f"links.{row.get('role', i)}"
        c = {k: _count(run, f"{name}.{k}", row[k]) for k in _LINK_COUNTS if k in row}
        lost = _count(run, f"{name}.lost_on_wire", row.get("lost_on_wire", 0))
        if len(c) < 6:
            continue
        if c["arrivals"] != c["dequeued"] + c["drops"] + c["backlog"]:
            raise InvariantError(
                run, name, c, "arrivals = dequeued + drops + backlog (packet conservation)"
            )
        if not (c["dequeued"] <= c["enqueued"] <= c["arrivals"]):
            raise InvariantError(run, name, c, "dequeued <= enqueued <= arrivals")
        if not (lost <= c["tx_packets"] <= c["dequeued"]):
            raise InvariantError(run, name, c, "lost_on_wire <= tx_packets <= dequeued")


__all__ = ["EPS", "InvariantError", "check_links", "check_summary"]
