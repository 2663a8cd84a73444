"""Hostile inputs and the checks every answer must pass, shared by the property tests
(``tests/test_fuzz.py``, a few seconds in ``make test``) and the long campaign (``make fuzz``,
``tests/fuzz/campaign.py``).

Scenario cases are the shipped scenario files mutated 1-4 times (a key set to a hostile value,
deleted, an unknown key added, a table replaced by the array of its values, a list emptied or
repeated). Each goes through ``aqmlab.validate``: it must either be accepted (and its resolved
TOML must validate to itself) or raise ``aqmlab.ScenarioError`` with a one-line message; every
other exception (a ``TypeError``, a Rust panic, a ``RecursionError``) is a failure. Accepted
cases, shortened, are run: their results must pass :mod:`aqmlab.invariants`.

Replay cases drive one algorithm with random event streams; every record must keep the queue
length consistent with the actions before it (enqueued/marked +1, dequeued -1, each drop inside
a dequeue or push-out -1) and every probe must be finite.
"""

from __future__ import annotations

import math
import os
import random
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aqmlab
from aqmlab import scenario as sc
from aqmlab.invariants import InvariantError

ROOT = Path(__file__).resolve().parents[2]

HOSTILE: list[Any] = [
    0,
    -1,
    1,
    2**31,
    2**32,
    2**63,
    2**64,
    10**30,
    -(10**30),
    0.0,
    -0.5,
    0.5,
    1.5,
    1e308,
    -1e308,
    5e-324,
    math.nan,
    math.inf,
    -math.inf,
    True,
    False,
    "",
    "abc",
    "1ns",
    "0s",
    "-1s",
    "1e-30s",
    "99999999999999s",
    "1e400s",
    "nan s",
    "10Mbps",
    "0bps",
    "1e30Gbps",
    "150KB",
    "0B",
    "-5B",
    "\u00e9\u00e8",
    "\x00",
    "a" * 300,
    [],
    [1, 2, 3],
    ["5ms", "150ms"],
    ["1s"],
    {},
    {"x": 1},
    {"kind": "red"},
    {"kind": "nope"},
    {"linear": ["1ms", "2ms"]},
    {"uniform": ["2s", "1s"]},
    {"list": []},
]


def scenario_files() -> list[Path]:
    files = [
        Path(d, f)
        for d, _, names in os.walk(ROOT / "scenarios", followlinks=True)
        for f in names
        if f.endswith(".toml")
    ]
    return sorted(files)


def _paths(node: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for k, v in node.items():
            p = f"{prefix}.{k}" if prefix else str(k)
            yield p, v
            yield from _paths(v, p)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            p = f"{prefix}.{i}"
            yield p, v
            yield from _paths(v, p)


def _parent(doc: Any, path: str) -> tuple[Any, str]:
    parts = path.split(".")
    node = doc
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node, parts[-1]


def _set(doc: Any, path: str, value: Any) -> None:
    value = sc._deep_copy(value)  # never share (or later mutate) HOSTILE's objects
    node, last = _parent(doc, path)
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def _delete(doc: Any, path: str) -> None:
    node, last = _parent(doc, path)
    if isinstance(node, list):
        del node[int(last)]
    else:
        del node[last]


_UNIT = re.compile(r"^(-?[0-9.]+(?:e-?[0-9]+)?)\s*([A-Za-z]+)$")


def plausible(value: Any, rng: random.Random) -> Any:
    """A nearby value of the same kind: numbers scaled, unit strings rescaled, booleans flipped
    (what a user tuning a scenario writes, often valid, sometimes just out of range)."""
    factor = rng.choice([0.0, 0.1, 0.5, 0.9, 1.1, 2.0, 10.0, 1000.0])
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.choice([value + 1, max(value - 1, 0), int(value * factor), -value])
    if isinstance(value, float):
        return value * factor if rng.random() < 0.9 else -value
    if isinstance(value, str):
        m = _UNIT.match(value)
        if m:
            return f"{float(m.group(1)) * factor:g}{m.group(2)}"
    return value


def mutate(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One to four random mutations of a scenario document (a deep copy): half plausible
    (:func:`plausible`), half hostile."""
    out: dict[str, Any] = sc._deep_copy(doc)
    for _ in range(rng.randint(1, 4)):
        paths = list(_paths(out))
        if not paths:
            break
        path, value = rng.choice(paths)
        if rng.random() < 0.5:
            _set(out, path, plausible(value, rng))
            continue
        r = rng.random()
        if r < 0.5:
            _set(out, path, rng.choice(HOSTILE))
        elif r < 0.6:
            _delete(out, path)
        elif r < 0.7:
            node, _ = _parent(out, path)
            if isinstance(node, dict):
                key = rng.choice(["bogus", "Rate", "kind", "count", "qdisc"])
                node[key] = sc._deep_copy(rng.choice(HOSTILE))
        elif r < 0.8 and isinstance(value, dict):
            _set(out, path, list(value.values()))  # a table given positionally
        elif r < 0.9 and isinstance(value, list):
            _set(out, path, value * rng.choice([0, 2, 5]))
        else:
            _set(out, path, rng.choice(HOSTILE))
    return out


@dataclass
class Tally:
    cases: int = 0
    accepted: int = 0
    rejected: int = 0
    runs: int = 0
    events: int = 0
    failures: list[str] = field(default_factory=list)

    def fail(self, what: str) -> None:
        self.failures.append(what)
        print(f"FAILURE: {what}", file=sys.stderr)


def check_validate(doc: Any, tally: Tally, label: str) -> str | None:
    """Validates a (possibly hostile) document; returns the resolved TOML if accepted."""
    tally.cases += 1
    try:
        resolved = aqmlab.validate(doc)
    except aqmlab.ScenarioError as e:
        tally.rejected += 1
        msg = str(e)
        if not msg.strip() or len(" ".join(msg.split())) > 2000:
            tally.fail(f"{label}: unusable error message {msg!r:.200}")
        return None
    except BaseException as e:  # a panic is a BaseException (pyo3 PanicException)
        if isinstance(e, KeyboardInterrupt):
            raise
        tally.fail(f"{label}: {type(e).__name__}: {e!s:.300}")
        return None
    tally.accepted += 1
    try:
        again = aqmlab.validate(resolved)
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        tally.fail(f"{label}: the resolved scenario is rejected: {type(e).__name__}: {e!s:.300}")
        return None
    if again != resolved:
        tally.fail(f"{label}: resolving is not idempotent")
    return resolved


#: What an accepted case is shortened to before it runs (the campaign's time budget).
SHORT = {"duration": "2s", "warmup": "0.5s"}
MAX_RUN_FLOWS = 300


def runnable(resolved: str) -> dict[str, Any] | None:
    """The resolved document shortened for a run, or None when it is too big for the budget."""
    doc = sc.loads(resolved)
    flows = doc.get("flows", [])
    if sum(int(f.get("count", 1)) for f in flows if isinstance(f, dict)) > MAX_RUN_FLOWS:
        return None
    doc.update(SHORT)
    doc.pop("sample_interval", None)
    doc.pop("series_bin", None)
    return doc


def check_run(doc: dict[str, Any], tally: Tally, label: str) -> None:
    tally.runs += 1
    try:
        aqmlab.run(doc)  # Results.from_core checks the invariants
    except aqmlab.ScenarioError:
        pass  # shortening can make a case invalid (e.g. a flow starting after 2 s is fine,
        # but a schedule beyond the duration may be rejected): not a failure
    except InvariantError as e:
        tally.fail(f"{label}: accepted but invalid results: {e}")
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        tally.fail(f"{label}: run raised {type(e).__name__}: {e!s:.300}")


# ---- replay ---------------------------------------------------------------------------------


def kinds() -> list[str]:
    return [a["kind"] for a in aqmlab.algorithms()]


def random_events(
    rng: random.Random, n: int, t0: float = 0.0, n_flows: int | None = None
) -> tuple[list[tuple], float]:
    """``n`` valid events with non-decreasing times from ``t0``; returns them and the last time.
    ``n_flows``: flow ids drawn from that many (default: one of 1 to 500)."""
    events: list[tuple] = []
    t = t0
    sizes = [40, 64, 200, 576, 1000, 1500, 9000, 1, 65535]
    busy = rng.random()  # share of enqueues: from draining to overloaded
    n_flows = n_flows or rng.choice([1, 2, 8, 64, 500])
    for _ in range(n):
        t += rng.expovariate(2000.0) if rng.random() < 0.97 else rng.uniform(0, 2.0)
        if rng.random() < 0.5 + 0.45 * busy:
            events.append(
                (
                    "enqueue",
                    t,
                    rng.choice(sizes) if rng.random() < 0.8 else rng.randint(1, 20000),
                    rng.randrange(n_flows),
                    rng.random() < 0.5,
                )
            )
        else:
            events.append(("dequeue", t))
    return events, t


def check_records(records: list[dict[str, Any]], n_events: int, label: str, tally: Tally) -> None:
    if len(records) != n_events:
        tally.fail(f"{label}: {len(records)} records for {n_events} events")
        return
    qlen: int | None = None
    for r in records:
        before = r["qlen_pkts_before"]
        if before < 0 or (qlen is not None and before != qlen):
            tally.fail(f"{label}: event {r['event']}: qlen before {before}, expected {qlen}")
            return
        after = before
        if r["action"] in ("enqueued", "marked"):
            after += 1
        elif r["action"] == "dequeued":
            after -= 1
        elif r["action"] not in ("dropped", "empty"):
            tally.fail(f"{label}: event {r['event']}: unknown action {r['action']!r}")
            return
        after -= len(r["dropped"])
        qlen = after
        for name, v in r["probes"].items():
            if not isinstance(v, (int, float)) or math.isnan(v):
                tally.fail(f"{label}: event {r['event']}: probe {name} = {v!r}")
                return


def check_replay(
    kind: str,
    events: list[tuple],
    tally: Tally,
    label: str,
    *,
    uniforms: list[float] | None,
    buffer: int = 50,
) -> None:
    tally.events += len(events)
    try:
        recs = aqmlab.replay(kind, events, uniforms=uniforms, buffer=buffer)
    except aqmlab.ScenarioError as e:
        if uniforms is not None and "uniforms" in str(e):
            return  # the algorithm needed more numbers than were given: a clean error
        tally.fail(f"{label}: valid events rejected: {e}")
        return
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        tally.fail(f"{label}: replay raised {type(e).__name__}: {e!s:.300}")
        return
    check_records(recs, len(events), label, tally)


HOSTILE_EVENTS: list[Any] = [
    ("enqueue", math.inf),
    ("enqueue", math.nan),
    ("enqueue", -1.0),
    ("enqueue", 1e30),
    ("enqueue", "1s"),
    ("enqueue", None),
    ("enqueue", 0.0, 2**32),
    ("enqueue", 0.0, 0),
    ("enqueue", 0.0, -5),
    ("enqueue", 0.0, 1.5),
    ("enqueue", 0.0, 100, 2**32),
    ("enqueue", 0.0, 100, -1),
    ("enqueue", 0.0, 100, "a"),
    ("enqueue", 0.0, 100, 1.5),
    ("enqueue", 0.0, 100, 1, "yes"),
    ("enqueue", 0.0, 100, 1, True, "extra"),
    ("push", 0.0),
    ("dequeue",),
    (),
    "enqueue",
    42,
    None,
    {"op": "enqueue", "t": math.inf},
    {"op": "enqueue", "t_ns": -1},
    {"op": "enqueue", "t_ns": 2**64},
    {"op": "enqueue", "t": 0.0, "size": 2**40},
    {"op": "enqueue", "t": 0.0, "bogus": 1},
    {"op": 3, "t": 0.0},
]

HOSTILE_UNIFORMS: list[Any] = [
    [math.nan],
    [2.0],
    [1.0],
    [-0.1],
    [math.inf],
    ["0.5"],
    [None],
    0.5,
    "abc",
]


def check_hostile_replay(kind: str, rng: random.Random, tally: Tally) -> None:
    """A valid stream with one hostile event (or hostile uniforms/arguments) inserted: the
    answer must be a ScenarioError naming a path."""
    events, _ = random_events(rng, rng.randint(0, 5))
    kwargs: dict[str, Any] = {}
    r = rng.random()
    if r < 0.6:
        events.insert(rng.randint(0, len(events)), rng.choice(HOSTILE_EVENTS))
    elif r < 0.8:
        kwargs["uniforms"] = rng.choice(HOSTILE_UNIFORMS)
    else:
        key, value = rng.choice(
            [
                ("seed", -1),
                ("seed", 2**64),
                ("seed", 1.5),
                ("buffer", 0),
                ("buffer", -3),
                ("buffer", 2**40),
                ("buffer", "lots"),
                ("link_rate", 0),
                ("link_rate", -1),
                ("link_rate", "fast"),
                ("mean_pkt_size", 0),
                ("mean_pkt_size", 2**32),
            ]
        )
        kwargs[key] = value
    label = f"replay {kind} hostile {events!r:.120} {kwargs!r:.80}"
    tally.cases += 1
    try:
        aqmlab.replay(kind, events, **kwargs)
    except aqmlab.ScenarioError as e:
        if not getattr(e, "path", None) and "events" not in str(e):
            tally.fail(f"{label}: error without a path: {e}")
        return
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        tally.fail(f"{label}: raised {type(e).__name__}: {e!s:.200}")
        return
    # Accepted: only fine if nothing hostile was actually consumed (e.g. uniforms unused is
    # not fine: they are checked up front), so an acceptance here is a failure.
    tally.fail(f"{label}: accepted")
