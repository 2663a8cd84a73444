"""Drive one qdisc by script, without a network: ``aqmlab.replay``.

>>> recs = aqmlab.replay(
...     {"kind": "red", "min_th": 5, "max_th": 15, "max_p": 0.1},
...     [("enqueue", 0.0, 1000), ("enqueue", 0.001, 1000), ("dequeue", 0.002)],
...     uniforms=[0.5, 0.5],
... )                                                                 # doctest: +SKIP
>>> [r["action"] for r in recs]                                       # doctest: +SKIP
['enqueued', 'enqueued', 'dequeued']

Each record: ``event`` (index), ``t_s``, ``t_ns``, ``action`` (``enqueued``, ``marked``,
``dropped``, ``dequeued``, ``empty``), ``reason`` (``early``, ``forced``, ``overflow``, ...,
or None), ``packet`` (arrival index of the packet enqueued or dequeued), ``qlen_pkts_before``,
``qlen_bytes_before``, ``dropped`` (packets dropped inside a dequeue: ``[(packet, reason)]``),
``marked`` (the reason when this event CE-marked its packet, at enqueue or at dequeue as CoDel,
FQ-CoDel, PIE and DualPI2 do, else None),
``probes`` (the algorithm's variables after the event: ``avg``, ``max_p``, ...) and ``draws``
(random numbers drawn so far). ``pandas.DataFrame(records)`` makes a table of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import tomli_w

from aqmlab import _core
from aqmlab.scenario import scenario_error

#: An event: ``("enqueue", t_s[, size_bytes[, flow[, ecn_capable]]])`` or ``("dequeue", t_s)``,
#: or a dict ``{"op": "enqueue", "t": t_s, "size": ..., "flow": ..., "ecn": ...}`` where
#: ``t_ns`` (integer nanoseconds) may replace ``t`` for exact times.
Event = Sequence[Any] | Mapping[str, Any]

_ENQ = {"enqueue", "enq", "e", "+"}
_DEQ = {"dequeue", "deq", "d", "-"}


def _t_ns(t: Any, where: str) -> int:
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not t >= 0:
        raise scenario_error(where, repr(t), "a time in seconds >= 0")
    return round(t * 1e9)


_Columns = tuple[list[bool], list[int], list[int], list[int], list[bool]]


def _columns(events: Iterable[Event], default_size: int) -> _Columns:
    enq: list[bool] = []
    t_ns: list[int] = []
    size: list[int] = []
    flow: list[int] = []
    ecn: list[bool] = []
    for i, ev in enumerate(events):
        where = f"events.{i}"
        if isinstance(ev, Mapping):
            op = ev.get("op", "")
            t = int(ev["t_ns"]) if "t_ns" in ev else _t_ns(ev.get("t"), where + ".t")
            args = (ev.get("size", default_size), ev.get("flow", 0), ev.get("ecn", False))
        else:
            if not ev:
                raise scenario_error(where, "()", "(op, t_s, ...)")
            op, t = ev[0], _t_ns(ev[1] if len(ev) > 1 else None, where + ".1")
            args = (
                ev[2] if len(ev) > 2 else default_size,
                ev[3] if len(ev) > 3 else 0,
                ev[4] if len(ev) > 4 else False,
            )
        if op in _ENQ:
            enq.append(True)
            size.append(int(args[0]))
            flow.append(int(args[1]))
            ecn.append(bool(args[2]))
            if size[-1] <= 0:
                raise scenario_error(where + ".size", str(args[0]), "a packet size in bytes > 0")
        elif op in _DEQ:
            enq.append(False)
            size.append(0)
            flow.append(0)
            ecn.append(False)
        else:
            raise scenario_error(where + ".op", repr(op), "'enqueue' or 'dequeue'")
        t_ns.append(t)
    return enq, t_ns, size, flow, ecn


def replay(
    qdisc: str | Mapping[str, Any],
    events: Iterable[Event],
    uniforms: Sequence[float] | None = None,
    seed: int = 0,
    link_rate: str | int | None = None,
    *,
    buffer: int | str = 1000,
    mean_pkt_size: int = 1000,
) -> list[dict[str, Any]]:
    """Replays ``events`` through a fresh qdisc and returns one record per event.

    ``qdisc`` is a kind (``"red"``) or a qdisc table (``{"kind": "red", "min_th": 5, ...}``),
    validated by the core like a scenario's ``bottleneck.qdisc``. With ``uniforms``, the
    algorithm's random decisions consume exactly those numbers, in order (an error if it needs
    more); otherwise they come from ``seed``. ``link_rate`` (default ``"10Mbps"``) and
    ``mean_pkt_size`` (bytes) are what the algorithm is told about its link; ``buffer`` is
    packets (int) or a size string (``"150KB"``).
    """
    table = {"kind": qdisc} if isinstance(qdisc, str) else dict(qdisc)
    enq, t_ns, size, flow, ecn = _columns(events, mean_pkt_size)
    records = _core.replay(
        tomli_w.dumps(table),
        enq,
        t_ns,
        size,
        flow,
        ecn,
        buffer,
        link_rate if link_rate is not None else "10Mbps",
        uniforms=list(uniforms) if uniforms is not None else None,
        seed=seed,
        mean_pkt_bytes=mean_pkt_size,
    )
    for r in records:
        r["t_s"] = r["t_ns"] / 1e9
    return records
