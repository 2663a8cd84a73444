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
FQ-CoDel, PIE and DualPI2 do, e.g. ``sojourn``, or ``ce_threshold`` for CoDel's CE threshold;
else None),
``probes`` (the algorithm's variables after the event: ``avg``, ``max_p``, ...), for multi-queue
schedulers (FQ-CoDel) ``sub_queue`` (the sub-queue of the event's packet, else None) and
``queues`` (the sub-queues this event changed or used for the first time: ``index``, ``pkts``,
``bytes``, ``status`` = ``new`` / ``old`` / ``inactive``, ``deficit``; with ``full_state=True``
every sub-queue used so far; empty for single-queue algorithms; changes only by default so that
memory grows with events, not events x sub-queues), and ``draws``
(random numbers drawn so far). ``pandas.DataFrame(records)`` makes a table of them.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import tomli_w

from aqmlab import _core
from aqmlab.scenario import scenario_error

#: An event: ``("enqueue", t_s[, size_bytes[, flow[, ecn]]])``, ``("dequeue", t_s)`` or
#: ``("set", t_s, name, value)`` (sets a variable the algorithm offers to tests, e.g. PIE's
#: ``accu_prob``), or a dict ``{"op": "enqueue", "t": t_s, "size": ..., "flow": ..., "ecn":
#: ...}`` / ``{"op": "set", "t": t_s, "name": ..., "value": ...}`` where ``t_ns`` (integer
#: nanoseconds) may replace ``t`` for exact times. ``ecn``: ``False``/``"not_ect"``,
#: ``True``/``"ect0"`` (ECT(0)) or ``"ect1"`` (ECT(1), an L4S sender's packet).
Event = Sequence[Any] | Mapping[str, Any]

_ENQ = {"enqueue", "enq", "e", "+"}
_DEQ = {"dequeue", "deq", "d", "-"}
_SET = {"set"}
#: `ecn` values and the core's codepoint numbers (0 not-ECT, 1 ECT(0), 2 ECT(1)).
_ECN = {"not_ect": 0, "ect0": 1, "ect1": 2}

#: Largest time the core's integer nanoseconds hold (u64 ns, kept well inside i64 too).
_MAX_T_NS = 2**63 - 1
_MAX_T_S = 9.2e9  # seconds: just below 2^63 ns
_U32 = 2**32 - 1


# -- the input gate: every argument checked here, errors shaped like the schema's -------------


def _int(v: Any, where: str, lo: int, hi: int, allowed: str) -> int:
    """An integer in [lo, hi] (floats only when integral, never bools)."""
    iv = _as_int(v, lo, hi)
    if iv is None:
        raise scenario_error(where, _show(v), allowed)
    return iv


def _as_int(v: Any, lo: int, hi: int) -> int | None:
    t = type(v)
    if t is int:  # the common case first: this runs once per event
        return v if lo <= v <= hi else None
    if t is bool:
        return None
    if isinstance(v, float):
        return int(v) if v.is_integer() and lo <= v <= hi else None
    if isinstance(v, numbers.Integral):
        return int(v) if lo <= int(v) <= hi else None
    return None


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _t_ns(t: Any, where: Any) -> int:
    """Seconds to integer nanoseconds; ``where`` is the key path, or a callable making it
    (built only for an error: this runs once per event)."""
    if (type(t) is float or type(t) is int) and 0 <= t < _MAX_T_S:
        return round(t * 1e9)
    path = where() if callable(where) else where
    allowed = "a finite number of seconds >= 0"
    if isinstance(t, bool) or not isinstance(t, numbers.Real):
        raise scenario_error(path, _show(t), allowed)
    x = float(t)
    if not math.isfinite(x) or x < 0:
        raise scenario_error(path, _show(t), allowed)
    if x >= _MAX_T_S:
        raise scenario_error(path, _show(t), f"{allowed} and < {_MAX_T_S:.3e}")
    return round(x * 1e9)


def _bool(v: Any, where: str) -> bool:
    if isinstance(v, bool) or (isinstance(v, numbers.Integral) and int(v) in (0, 1)):
        return bool(v)
    raise scenario_error(where, _show(v), "true or false")


def _uniforms(uniforms: Any) -> list[float] | None:
    if uniforms is None:
        return None
    if isinstance(uniforms, (str, bytes, Mapping)) or not isinstance(uniforms, Iterable):
        raise scenario_error("uniforms", _show(uniforms), "a list of numbers in [0, 1)")
    out: list[float] = []
    for i, u in enumerate(uniforms):
        if type(u) is float and 0.0 <= u < 1.0:
            out.append(u)
            continue
        if isinstance(u, bool) or not isinstance(u, numbers.Real) or not 0.0 <= float(u) < 1.0:
            raise scenario_error(f"uniforms.{i}", _show(u), "a number in [0, 1)")
        out.append(float(u))
    return out


_Columns = tuple[list[int], list[int], list[int], list[int], list[int], list[str], list[float]]


def _ecn(v: Any, where: str) -> int:
    if isinstance(v, str):
        if v in _ECN:
            return _ECN[v]
        raise scenario_error(where, _show(v), "false, true, 'not_ect', 'ect0' or 'ect1'")
    return int(_bool(v, where))


def _columns(events: Any, default_size: int) -> _Columns:
    if isinstance(events, (str, bytes, Mapping)) or not isinstance(events, Iterable):
        raise scenario_error("events", _show(events), "a list of events (op, t_s, ...)")
    ops: list[int] = []
    t_ns: list[int] = []
    size: list[int] = []
    flow: list[int] = []
    ecn: list[int] = []
    names: list[str] = []
    values: list[float] = []
    for i, ev in enumerate(events):
        args: tuple[Any, Any, Any]
        if isinstance(ev, Mapping):
            where = f"events.{i}"
            op = ev.get("op")
            allowed = {"op", "t", "t_ns"} | (
                {"name", "value"} if op == "set" else {"size", "flow", "ecn"}
            )
            unknown = set(ev) - allowed
            if unknown:
                names_ = ", ".join(sorted(map(str, unknown)))
                keys_ = ", ".join(sorted(allowed - {"t_ns"})).replace("t,", "t (or t_ns),")
                raise scenario_error(where, names_, f"keys {keys_}")
            if "t_ns" in ev:
                t = _int(ev["t_ns"], where + ".t_ns", 0, _MAX_T_NS, "integer nanoseconds >= 0")
            else:
                t = _t_ns(ev.get("t"), where + ".t")
            if op == "set":
                args = (ev.get("name"), ev.get("value"), None)
                keys = ("name", "value", "", "t")
            else:
                args = (ev.get("size", default_size), ev.get("flow", 0), ev.get("ecn", False))
                keys = ("size", "flow", "ecn", "t")
        elif isinstance(ev, (tuple, list)) and 2 <= len(ev) <= 5:
            op, t = ev[0], _t_ns(ev[1], lambda i=i: f"events.{i}.1")
            n = len(ev)
            if op == "set":
                if n != 4:
                    raise scenario_error(f"events.{i}", _show(ev), "('set', t_s, name, value)")
                args = (ev[2], ev[3], None)
            else:
                args = (
                    ev[2] if n > 2 else default_size,
                    ev[3] if n > 3 else 0,
                    ev[4] if n > 4 else False,
                )
            keys = ("2", "3", "4", "1")
        elif isinstance(ev, Sequence) and not isinstance(ev, (str, bytes)):
            raise scenario_error(
                f"events.{i}", _show(ev), "(op, t_s[, size[, flow[, ecn]]]) or ('dequeue', t_s)"
            )
        else:
            raise scenario_error(f"events.{i}", _show(ev), "a tuple (op, t_s, ...) or a dict")
        if op in _ENQ if type(op) is str else False:
            s_ = _as_int(args[0], 1, _U32)
            f_ = _as_int(args[1], 0, _U32)
            e_ = args[2]
            if s_ is None:
                _int(args[0], f"events.{i}.{keys[0]}", 1, _U32, "a packet size in bytes, 1..2^32-1")
            if f_ is None:
                _int(args[1], f"events.{i}.{keys[1]}", 0, _U32, "a flow id, an integer 0..2^32-1")
            ops.append(1)
            size.append(s_)  # type: ignore[arg-type]
            flow.append(f_)  # type: ignore[arg-type]
            ecn.append(_ecn(e_, f"events.{i}.{keys[2]}"))
            names.append("")
            values.append(0.0)
        elif op in _DEQ if type(op) is str else False:
            ops.append(0)
            size.append(0)
            flow.append(0)
            ecn.append(0)
            names.append("")
            values.append(0.0)
        elif op in _SET if type(op) is str else False:
            name, value = args[0], args[1]
            if not isinstance(name, str) or not name:
                raise scenario_error(f"events.{i}.{keys[0]}", _show(name), "a variable name")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise scenario_error(f"events.{i}.{keys[1]}", _show(value), "a finite number")
            ops.append(2)
            size.append(0)
            flow.append(0)
            ecn.append(0)
            names.append(name)
            values.append(float(value))
        else:
            raise scenario_error(f"events.{i}.op", _show(op), "'enqueue', 'dequeue' or 'set'")
        if t_ns and t < t_ns[-1]:
            raise scenario_error(
                f"events.{i}.{keys[3]}",
                f"{t / 1e9!r}",
                f"a time not before the previous event's ({t_ns[-1] / 1e9!r} s)",
            )
        t_ns.append(t)
    return ops, t_ns, size, flow, ecn, names, values


def replay(
    qdisc: str | Mapping[str, Any],
    events: Iterable[Event],
    uniforms: Sequence[float] | None = None,
    seed: int = 0,
    link_rate: str | int | None = None,
    *,
    buffer: int | str = 1000,
    mean_pkt_size: int = 1000,
    full_state: bool = False,
) -> list[dict[str, Any]]:
    """Replays ``events`` through a fresh qdisc and returns one record per event.

    ``qdisc`` is a kind (``"red"``) or a qdisc table (``{"kind": "red", "min_th": 5, ...}``),
    validated by the core like a scenario's ``bottleneck.qdisc``. With ``uniforms``, the
    algorithm's random decisions consume exactly those numbers, in order (an error if it needs
    more); otherwise they come from ``seed``. ``link_rate`` (default ``"10Mbps"``) and
    ``mean_pkt_size`` (bytes) are what the algorithm is told about its link; ``buffer`` is
    packets (int) or a size string (``"150KB"``). ``full_state`` puts every sub-queue's state
    in every record (memory: events x sub-queues) instead of the changed ones.

    Every argument passes one gate before the core sees it: a bad value raises
    :class:`aqmlab.ScenarioError` naming its path (``events.3.1: inf (a finite number of
    seconds >= 0)`` for the time of a tuple event, ``events.3.t`` of a dict event,
    ``uniforms.0: nan (a number in [0, 1))``), never a ``TypeError`` or
    ``OverflowError``.
    """
    if isinstance(qdisc, str):
        table: dict[str, Any] = {"kind": qdisc}
    elif isinstance(qdisc, Mapping):
        table = {str(k): v for k, v in qdisc.items()}
    else:
        raise scenario_error("qdisc", _show(qdisc), "a kind such as 'red' or a qdisc table")
    mean = _int(mean_pkt_size, "mean_pkt_size", 1, _U32, "bytes, an integer 1..2^32-1")
    ops, t_ns, size, flow, ecn, names, values = _columns(events, mean)
    seed = _int(seed, "seed", 0, 2**64 - 1, "an integer 0..2^64-1")
    if isinstance(buffer, bool) or not isinstance(buffer, (int, str)):
        raise scenario_error("buffer", _show(buffer), "packets (an integer) or a size like '150KB'")
    if isinstance(buffer, int):
        buffer = _int(buffer, "buffer", 1, _U32, "at least 1 packet, at most 2^32-1")
    rate = link_rate if link_rate is not None else "10Mbps"
    if isinstance(rate, bool) or not isinstance(rate, (int, str)):
        raise scenario_error("link_rate", _show(rate), "bit/s (an integer) or a rate like '10Mbps'")
    if isinstance(rate, int):
        rate = _int(rate, "link_rate", 1, 2**63 - 1, "a positive rate in bit/s")
    try:
        text = tomli_w.dumps(table)
    except (TypeError, ValueError) as e:
        raise scenario_error("qdisc", _show(qdisc), f"a table of TOML values ({e})") from None
    records = _core.replay(
        text,
        ops,
        t_ns,
        size,
        flow,
        ecn,
        names,
        values,
        buffer,
        rate,
        uniforms=_uniforms(uniforms),
        seed=seed,
        mean_pkt_bytes=mean,
        full_queues=_bool(full_state, "full_state"),
    )
    for r in records:
        r["t_s"] = r["t_ns"] / 1e9
    return records
