"""Per-flow TCP traces from both simulators, in one shape, and where they first part.

ns-2 writes a line per change of a traced `Agent/TCP` variable
(``time saddr sport daddr dport name value``); aqmlab records one row per sender event
(``tcp_trace`` table: ``flow``, ``t_s``, ``event``, ``cwnd``, ``ssthresh``, ``rto_s``, ...).
Both become a long table ``flow, t_s, var, value`` with the same variable names:

========== ==================================== =====================================
var        aqmlab                               ns-2.35
========== ==================================== =====================================
cwnd       congestion window (segments)         ``cwnd_``
ssthresh   slow-start threshold (segments)      ``ssthresh_``
srtt_s     smoothed RTT (s)                     ``srtt_`` (s, tick resolution)
backoff    RTO backoff factor                   ``backoff_``
timeouts   timeouts so far                      ``nrexmit_``
rexmits    retransmitted packets so far         ``nrexmitpack_``
========== ==================================== =====================================

:func:`first_divergence` walks two such traces of one flow in time order and returns the first
change of a variable whose value sequence differs, with the context on both sides.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

NS2_VARS = {
    "cwnd_": "cwnd",
    "ssthresh_": "ssthresh",
    "srtt_": "srtt_s",
    "backoff_": "backoff",
    "nrexmit_": "timeouts",
    "nrexmitpack_": "rexmits",
}
AQMLAB_VARS = {
    "cwnd": "cwnd",
    "ssthresh": "ssthresh",
    "srtt_s": "srtt_s",
    "backoff": "backoff",
    "timeouts": "timeouts",
    "retransmits": "rexmits",
}


def read_ns2(path: str | Path, flow: int) -> pa.Table:
    """An ns-2 variable trace file as ``flow, t_s, var, value`` (only the variables above)."""
    t: list[float] = []
    var: list[str] = []
    val: list[float] = []
    started = False
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split()
        if len(parts) < 7 or parts[5] not in NS2_VARS:
            continue
        # The lines `trace` prints when it is set up (t = 0) are initial values, not events.
        started = started or float(parts[0]) > 0
        if not started:
            continue
        try:
            t.append(float(parts[0]))
            val.append(float(parts[6]))
        except ValueError:
            continue
        var.append(NS2_VARS[parts[5]])
    return pa.table(
        {"flow": pa.array([flow] * len(t), pa.int64()), "t_s": t, "var": var, "value": val}
    )


def long_aqmlab(table: pa.Table) -> pa.Table:
    """aqmlab's ``tcp_trace`` table (one row per event) as ``flow, t_s, var, value``, one row
    per change of each variable (as ns-2 traces them)."""
    cols = table.to_pydict()
    flow: list[int] = []
    t: list[float] = []
    var: list[str] = []
    val: list[float] = []
    last: dict[tuple[int, str], float] = {}
    # Counters start at 0 and the backoff at 1; as in ns-2's trace, only changes are events.
    start = {"timeouts": 0.0, "rexmits": 0.0, "backoff": 1.0, "srtt_s": 0.0}
    for i in range(table.num_rows):
        f = int(cols["flow"][i])
        for name, v0 in start.items():
            last.setdefault((f, name), v0)
        for src, name in AQMLAB_VARS.items():
            if src not in cols:
                continue
            v = float(cols[src][i])
            if name == "ssthresh" and v == 0:
                continue  # unlimited: ns-2 traces its initial 1e6 only at t = 0
            if last.get((f, name)) != v:
                last[(f, name)] = v
                flow.append(f)
                t.append(float(cols["t_s"][i]))
                var.append(name)
                val.append(v)
    return pa.table({"flow": pa.array(flow, pa.int64()), "t_s": t, "var": var, "value": val})


def _series(table: pa.Table, flow: int, var: str) -> list[tuple[float, float]]:
    """The changes of one variable, one per instant (the last value of that instant; ns-2
    prints its times with 10 µs resolution and counts retransmissions one line each)."""
    d = table.to_pydict()
    last: dict[float, float] = {}
    for i in range(table.num_rows):
        if d["flow"][i] == flow and d["var"][i] == var:
            last[round(d["t_s"][i], 5)] = d["value"][i]
    return sorted(last.items())


def first_divergence(
    aqmlab: pa.Table,
    ns2: pa.Table,
    flow: int,
    *,
    variables: tuple[str, ...] = ("ssthresh", "timeouts", "rexmits"),
    rel_tol: float = 1e-3,
) -> dict[str, Any] | None:
    """The earliest point where one of ``variables`` changes differently in the two traces of
    ``flow``: a different value, or the same value more than 20 µs apart (ns-2 prints times to
    10 µs). Returns ``{t, var, index, t_aqmlab, t_ns2, aqmlab, ns2}`` (the changes around it on
    both sides), None if they never part. `cwnd` is left out by default: during Reno/NewReno
    recovery ns-2 keeps the inflation in `dupwnd_`, which it does not trace."""
    best: dict[str, Any] | None = None
    for v in variables:
        a, b = _series(aqmlab, flow, v), _series(ns2, flow, v)
        for k in range(min(len(a), len(b)) + 1):
            if k == len(a) or k == len(b):
                if len(a) == len(b):
                    break
                diverged = True
            else:
                x, y = a[k][1], b[k][1]
                diverged = abs(x - y) > rel_tol * max(1.0, abs(x), abs(y))
                diverged = diverged or abs(a[k][0] - b[k][0]) > 2e-5
            if diverged:
                ta = a[k][0] if k < len(a) else float("inf")
                tb = b[k][0] if k < len(b) else float("inf")
                when = min(ta, tb)
                if best is None or when < best["t"]:
                    best = {
                        "t": when,
                        "var": v,
                        "index": k,
                        "t_aqmlab": ta,
                        "t_ns2": tb,
                        "aqmlab": a[max(0, k - 3) : k + 3],
                        "ns2": b[max(0, k - 3) : k + 3],
                    }
                break
    return best
