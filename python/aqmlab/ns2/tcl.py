"""Translation of a resolved aqmlab scenario into an ns-2.35 Tcl script.

ns-2 is set to aqmlab's semantics wherever the two differ by default (see docs/validation.md,
"Beside ns-2"): data packets of `mss` bytes on the wire (`useHeaders_ false`), no receiver-window
cap (`window_` large), per-packet RTT samples from echoed timestamps (`timestamps_ true`), the
backoff cleared on every new ACK (`ts_resetRTO_ true`), no limited transmit (`singledup_ 0`),
no SYN, and queue limits that hold the same number of packets (`queue-limit` = buffer + 1 for
DropTail and REM, which drop when len + 1 ≥ limit). RED, ARED, REM, DRR, PI and Vq (AVQ) get
every parameter written explicitly, so none of ns-2's own defaults (byte mode, `mean_pktsize_
500`, automatic thresholds, `gentle_ true`, 10 DRR buckets) leaks in.

The network is the one aqmlab simulated: start times and access delays are the exact values the
aqmlab run resolved (from its flows table), so both simulators see the same flows; randomness
inside the run (RED's draws, Pareto bursts) comes from ns-2's own generator, seeded per run.

Anything ns-2.35 cannot express raises :class:`Unsupported`, naming the key path.
"""

from __future__ import annotations

import heapq
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from aqmlab.units import duration_ns, duration_s, rate_bps, size_bytes
from aqmlab.xcheck import Unsupported

#: Queue disciplines the translation knows (aqmlab kind → ns-2 class).
QDISCS = {
    "droptail": "DropTail",
    "red": "RED",
    "ared": "RED",
    "rem": "REM",
    "drr": "DRR",
    "pi": "PI",
    "avq": "Vq",
}
#: Flow kinds ns-2 runs here.
FLOW_KINDS = ("tcp", "udp_cbr", "pareto_onoff")
TCP_AGENTS = {
    "tahoe": "Agent/TCP",
    "reno": "Agent/TCP/Reno",
    "newreno": "Agent/TCP/Newreno",
    "sack": "Agent/TCP/Sack1",
}
#: Buffer of aqmlab's uncongested links (reverse bottleneck, sink links), in packets.
UNCONGESTED_BUFFER = 10_000


@dataclass
class FlowRun:
    """What the aqmlab run resolved for one flow (from its flows table)."""

    id: int
    group: int
    rtt_ns: int
    start_s: float


@dataclass
class Script:
    """A generated script and what its output lines refer to."""

    text: str
    flows: list[int]
    kinds: list[str]
    access_hosts: int
    traced: list[int] = field(default_factory=list)


_TCL_PLAIN = re.compile(r"[A-Za-z0-9_.:/+-]")


def tcl_word(value: Any) -> str:
    """``value`` (a scenario string: name, node, path) as one Tcl word that reads back as exactly
    that text and never runs anything: every ASCII character outside letters, digits and
    ``_.:/+-`` is backslash-escaped, control characters as ``\\u00XX`` (so a newline cannot end
    a comment or a command, and ``[``, ``$``, ``{``, ``"``, ``;`` and ``\\`` lose their
    meaning). Other characters pass as they are (Tcl gives no meaning to any non-ASCII one),
    except invisible ones (line separators, format characters), written as ``\\uXXXX``. Safe in
    a bare word, an array index and a braced list alike. Every string the script takes from a
    scenario goes through here."""
    out: list[str] = []
    for ch in str(value):
        if _TCL_PLAIN.fullmatch(ch):
            out.append(ch)
        elif " " <= ch <= "~":
            out.append("\\" + ch)
        elif ord(ch) < 0x80 or (
            ord(ch) <= 0xFFFF and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")
        ):
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return "".join(out) or "{}"


def _sec(ns: int | float) -> str:
    """Nanoseconds as ns-2 seconds, exactly (9 decimals)."""
    return f"{ns / 1e9:.9f}"


def _buffer(value: Any, path: str, *, extra: int, mss: int) -> tuple[int, bool]:
    """(limit, in_bytes) of a buffer: packets (+extra for ns-2's len+1 ≥ limit rule) or bytes."""
    if isinstance(value, int):
        return value + extra, False
    try:
        return size_bytes(value) + extra * mss, True
    except ValueError:
        raise Unsupported(path, value, "packets or a size") from None


class _Net:
    """Accumulates nodes and links of the ns-2 script."""

    def __init__(self, drr_src_ids: bool) -> None:
        self.lines: list[str] = []
        self.next_id = 0
        self.drr_src_ids = drr_src_ids
        self.drr_used: set[int] = set()

    def node(self, var: str) -> None:
        self.lines.append(f"set {var} [$ns node]")
        self.next_id += 1

    def src_node(self, var: str) -> None:
        """A source host node; under DRR its id must hash to a bucket no other source uses
        (ns-2 hashes the source address and only warns on collisions), so fillers are skipped."""
        if self.drr_src_ids:
            while _drr_bucket(self.next_id) in self.drr_used:
                self.node(f"filler({self.next_id})")
            self.drr_used.add(_drr_bucket(self.next_id))
        self.node(var)

    def link(
        self, a: str, b: str, bps: float, delay_ns: int, queue: str, limit: int, in_bytes: bool
    ) -> None:
        self.lines.append(f"$ns simplex-link ${a} ${b} {bps:.0f} {_sec(delay_ns)} {queue}")
        self.lines.append(f"$ns queue-limit ${a} ${b} {limit}")
        if in_bytes:
            self.lines.append(f"[[$ns link ${a} ${b}] queue] set queue_in_bytes_ true")
            self.lines.append(f"[[$ns link ${a} ${b}] queue] set mean_pktsize_ 1")


DRR_BUCKETS = 1 << 16


def _drr_bucket(addr: int) -> int:
    """ns-2.35 `DRR::hash` (queue/drr.cc, mask_ 0) modulo `buckets_`, with C's `%` on ints."""
    i = addr
    v = i + (i >> 8) + ~(i >> 4)
    m = (2 << 23) - 1
    r = abs(v) % m * (1 if v >= 0 else -1)  # C remainder keeps the dividend's sign
    h = r + 1
    return abs(h) % DRR_BUCKETS * (1 if h >= 0 else -1)


def _qdisc(
    q: dict[str, Any], path: str, *, rate: float, buffer: Any, mss: int, ect: bool | None
) -> tuple[str, list[str], int, bool]:
    """ns-2 queue class, the `Queue/X set` lines (applied to the link's queue object `$q`),
    the queue limit and whether it is in bytes."""
    kind = q.get("kind", "droptail")
    if kind not in QDISCS:
        raise Unsupported(f"{path}.kind", kind, f"ns-2.35 has: {', '.join(QDISCS)}")
    cls = QDISCS[kind]
    bpath = path.rsplit(".", 1)[0] + ".buffer" if "." in path else "buffer"
    sets: list[str] = []
    if kind == "droptail":
        limit, in_bytes = _buffer(buffer, bpath, extra=1, mss=mss)
        return cls, sets, limit, in_bytes
    if kind in ("red", "ared"):
        limit, in_bytes = _buffer(buffer, bpath, extra=0, mss=mss)
        if in_bytes:
            raise Unsupported(bpath, buffer, "RED cross-check needs a buffer in packets")
        byte_mode = bool(q.get("bytes", False))
        if byte_mode:
            raise Unsupported(f"{path}.bytes", True, "the ns-2 cross-check runs RED in packet mode")
        mean = q.get("mean_pkt_size") or mss
        if q.get("idle_pkt_size") not in (None, mean):
            raise Unsupported(f"{path}.idle_pkt_size", q["idle_pkt_size"], "unset in ns-2.35")
        w_q = q.get("w_q", "auto")
        if isinstance(w_q, dict):
            # ns-2's q_weight_ -1 takes the delay from its link, not from the scenario's key.
            raise Unsupported(f"{path}.w_q", w_q, "a number, 'auto' or 'auto_fast' in ns-2")
        # ns-2 red.cc: q_weight_ 0 = 1 - exp(-1/C), -2 = 1 - exp(-10/C).
        q_weight = {"auto": 0, "auto_fast": -2}.get(w_q) if isinstance(w_q, str) else None
        sets += [
            "bytes_ false",
            "queue_in_bytes_ false",
            f"mean_pktsize_ {int(mean)}",
            f"gentle_ {'true' if q.get('gentle') else 'false'}",
            f"wait_ {'true' if q.get('wait', True) else 'false'}",
            f"linterm_ {1.0 / float(q.get('max_p', 0.1))!r}",
            f"q_weight_ {q_weight if q_weight is not None else float(w_q)!r}",
            f"setbit_ {'true' if q.get('ecn') else 'false'}",
            "use_mark_p_ false",
            "cautious_ 0",
            "drop_tail_ true",
            # ns-2 restarts the early-drop count on a forced or overflow drop unless ns1_compat_.
            f"ns1_compat_ {'false' if q.get('forced_resets_count', False) else 'true'}",
        ]
        if not q.get("hard_drop", True):
            raise Unsupported(f"{path}.hard_drop", False, "ns-2 RED always drops forced packets")
        if kind == "red":
            sets += [
                f"thresh_ {float(q['min_th'])!r}",
                f"maxthresh_ {float(q['max_th'])!r}",
                "adaptive_ 0",
            ]
        else:
            bottom = q.get("bottom", "auto")
            if bottom in (None, "auto"):
                rtt = duration_s(q.get("rtt", "100ms"))
                bottom = min(0.01, 8.0 * mean * rtt / rate)
            # 0 = ns-2's automatic thresholds (the same formula as aqmlab's `auto`).
            min_th = q.get("min_th")
            max_th = q.get("max_th")
            sets += [
                f"thresh_ {float(min_th) if min_th not in (None, 'auto') else 0.0!r}",
                f"maxthresh_ {float(max_th) if max_th not in (None, 'auto') else 0.0!r}",
                "adaptive_ 1",
                f"alpha_ {float(q.get('alpha', 0.01))!r}",
                f"beta_ {float(q.get('beta', 0.9))!r}",
                f"interval_ {duration_s(q.get('interval', '500ms'))!r}",
                f"targetdelay_ {duration_s(q.get('target_delay', '5ms'))!r}",
                f"top_ {float(q.get('top', 0.5))!r}",
                f"bottom_ {float(bottom)!r}",
            ]
        return cls, sets, limit, in_bytes
    if kind == "rem":
        # ns-2's REM with `markpkts_` marks a picked ECT packet and sends a picked Not-ECT one on
        # unmarked (rem.cc `deque`), which is aqmlab's `non_ect = "pass"`; without it, it drops
        # whatever it picks. aqmlab's default `non_ect = "drop"` marks ECN-capable packets and
        # drops the others: the same when no flow is ECN-capable (markpkts_ false), and with
        # every flow ECN-capable except for their Not-ECT packets (tcp.model "ns2": segment 0;
        # "rfc": retransmissions), which ns-2 passes where aqmlab drops them.
        passes = q.get("non_ect", "drop") == "pass"
        mark = bool(q.get("ecn")) and (passes or bool(ect))
        if q.get("ecn") and ect is None and not passes:
            raise Unsupported(f"{path}.ecn", True, "false, or every flow ECN-capable (ns-2 REM)")
        limit, in_bytes = _buffer(buffer, bpath, extra=1, mss=mss)
        if in_bytes:
            raise Unsupported(bpath, buffer, "REM cross-check needs a buffer in packets")
        sets += [
            f"gamma_ {float(q.get('gamma', 0.001))!r}",
            f"phi_ {float(q.get('phi', 1.001))!r}",
            f"pbo_ {float(q.get('target', 20))!r}",
            f"pupdtime_ {duration_s(q.get('update_time', '2ms'))!r}",
            f"inw_ {float(q.get('in_weight', 1.0))!r}",
            f"mean_pktsize_ {int(q.get('mean_pkt_size') or mss)}",
            f"markpkts_ {'true' if mark else 'false'}",
            "qib_ false",
        ]
        if float(q.get("alpha", 0.1)) != 0.1:
            raise Unsupported(f"{path}.alpha", q["alpha"], "ns-2.35 REM hard-codes 0.1")
        return cls, sets, limit, in_bytes
    if kind == "pi":
        return (cls, *_pi(q, path, bpath, buffer=buffer, mss=mss))
    if kind == "avq":
        return (cls, *_avq(q, path, bpath, buffer=buffer, mss=mss))
    # drr
    if int(q.get("buckets", 0)) != 0:
        raise Unsupported(
            f"{path}.buckets", q["buckets"], "0: one queue per flow (ns-2 hashes source nodes)"
        )
    limit, in_bytes = _buffer(buffer, bpath, extra=0, mss=mss)
    blimit = limit if in_bytes else limit * mss
    sets += [
        f"buckets_ {DRR_BUCKETS}",
        f"blimit_ {blimit}",
        f"quantum_ {int(q.get('quantum', 250))}",
        "mask_ 0",
    ]
    return cls, sets, limit, False


def _mean_pktsize(q: dict[str, Any], path: str, mss: int) -> int:
    """PI's and AVQ's `mean_pktsize`; ns-2 also counts its byte-mode buffer in these units, so it
    must be the data packets' size for the two buffers to hold the same packets."""
    mean = int(q.get("mean_pktsize", mss))
    if mean != mss and q.get("queue_in_bytes"):
        raise Unsupported(
            f"{path}.mean_pktsize",
            mean,
            f"{mss} (the packet size) with queue_in_bytes: ns-2 scales the buffer by it",
        )
    return mean


def _pi(
    q: dict[str, Any], path: str, bpath: str, *, buffer: Any, mss: int
) -> tuple[list[str], int, bool]:
    """ns-2 `Queue/PI`: qlen ≥ limit drops (limit = buffer, no +1), in bytes `limit·mean`.
    `setbit_` marks ECT packets and drops the others, as aqmlab's `ecn`."""
    limit, in_bytes = _buffer(buffer, bpath, extra=0, mss=mss)
    if in_bytes:
        raise Unsupported(bpath, buffer, "PI cross-check needs a buffer in packets")
    sets = [
        f"a_ {float(q.get('a', 0.00001822))!r}",
        f"b_ {float(q.get('b', 0.00001816))!r}",
        f"w_ {float(q.get('w', 170.0))!r}",
        f"qref_ {float(q.get('q_ref', 50.0))!r}",
        f"mean_pktsize_ {_mean_pktsize(q, path, mss)}",
        f"queue_in_bytes_ {'true' if q.get('queue_in_bytes') else 'false'}",
        f"bytes_ {'true' if q.get('bytes') else 'false'}",
        f"setbit_ {'true' if q.get('ecn') else 'false'}",
    ]
    return sets, limit, False


def _avq(
    q: dict[str, Any], path: str, bpath: str, *, buffer: Any, mss: int
) -> tuple[list[str], int, bool]:
    """ns-2 `Queue/Vq`: drops when the queue with the arrival exceeds the limit (no +1);
    `markpkts_` marks ECT packets and lets the others pass, as aqmlab's `ecn`."""
    limit, in_bytes = _buffer(buffer, bpath, extra=0, mss=mss)
    if in_bytes:
        raise Unsupported(bpath, buffer, "AVQ cross-check needs a buffer in packets")
    if float(q.get("alpha", 0.15)) != 0.15:
        raise Unsupported(f"{path}.alpha", q["alpha"], "0.15: ns-2.35 Vq hard-codes alpha2")
    sets = [
        f"gamma_ {float(q.get('gamma', 0.98))!r}",
        f"ecnlim_ {float(q.get('ecnlim', 0.8))!r}",
        f"buflim_ {float(q.get('buflim', 1.0))!r}",
        f"queue_in_bytes_ {'true' if q.get('queue_in_bytes', True) else 'false'}",
        f"mean_pktsize_ {_mean_pktsize(q, path, mss)}",
        f"markpkts_ {'true' if q.get('ecn') else 'false'}",
        "markfront_ false",
        "drop_front_ false",
    ]
    return sets, limit, False


def _tcp_lines(var: str, tcp: dict[str, Any], path: str, overhead_s: float) -> list[str]:
    variant = tcp.get("variant", "reno")
    if variant not in TCP_AGENTS:
        raise Unsupported(f"{path}.variant", variant, "ns-2.35 has: " + ", ".join(TCP_AGENTS))
    if tcp.get("rtt_label", "none") != "none":
        raise Unsupported(f"{path}.rtt_label", tcp["rtt_label"], "none (ns-2 has no RTT labels)")
    # What ns-2.35's one-way agents cannot run as aqmlab does is refused, never replaced by
    # something else: their window arithmetic is Reno's (CUBIC and DCTCP are other agents,
    # `Agent/TCP/Linux` with a different loss recovery and no ECN), ECN is ECT(0) only, and
    # the ECN timer backoff (`ecn_backoff_`) is an agent state, not a setting.
    cc = tcp.get("cc", "reno")
    if cc != "reno":
        raise Unsupported(
            f"{path}.cc", cc, "reno (ns-2.35's Reno/Newreno/Sack1 agents; use --against ns3)"
        )
    if tcp.get("ecn") and tcp.get("ecn_codepoint", "ect0") != "ect0":
        raise Unsupported(
            f"{path}.ecn_codepoint", tcp["ecn_codepoint"], "ect0 (ns-2 has no ECT(1))"
        )
    if tcp.get("ecn") and tcp.get("ecn_backoff", True) is not True:
        raise Unsupported(
            f"{path}.ecn_backoff", tcp["ecn_backoff"], "true (ns-2 always backs off, ecn_backoff_)"
        )
    window = int(tcp.get("max_window", 0)) or 1_000_000
    ssthresh = int(tcp.get("initial_ssthresh", 0))
    sets = {
        "packetSize_": int(tcp.get("mss", 1000)),
        "window_": window,
        "maxcwnd_": 0,
        "windowInit_": int(tcp.get("initial_window", 2)),
        "ssthresh_": ssthresh if ssthresh else window,
        "minrto_": duration_s(tcp.get("min_rto", "200ms")),
        "maxrto_": duration_s(tcp.get("max_rto", "60s")),
        "rtxcur_init_": duration_s(tcp.get("initial_rto", "3s")),
        "tcpTick_": duration_s(tcp.get("clock_granularity", "10ms")),
        "numdupacks_": int(tcp.get("dupack_threshold", 3)),
        "ecn_": 1 if tcp.get("ecn") else 0,
        "overhead_": overhead_s,
    }
    out = [f"set {var} [new {TCP_AGENTS[variant]}]"]
    out += [f"${var} set {k} {v!r}" for k, v in sets.items()]
    return out


def _sink_class(tcp: dict[str, Any]) -> str:
    base = "Agent/TCPSink/Sack1" if tcp.get("variant") == "sack" else "Agent/TCPSink"
    return base + ("/DelAck" if tcp.get("delayed_ack") else "")


def _routes(topo: dict[str, Any]) -> dict[tuple[str, str], int]:
    """Delay of every directed declared link (ns), keyed by (from, to)."""
    out: dict[tuple[str, str], int] = {}
    for e in topo["links"]:
        rev = e.get("reverse", {})
        out[(e["from"], e["to"])] = duration_ns(e["delay"])
        out[(e["to"], e["from"])] = duration_ns(rev.get("delay", e["delay"]))
    return out


#: ns-2's route logic treats a path cost ≥ 0x3fff as unreachable (`INFINITY`), so link costs
#: are delays in 100 µs units (a path up to 1.6 s), at least 1.
COST_UNIT_NS = 100_000
NS2_INFINITY = 0x3FFF


def _cost(delay: Any) -> int:
    return max(1, round(duration_ns(delay) / COST_UNIT_NS))


def _least_delay(links: dict[tuple[str, str], int], src: str, dst: str) -> list[str]:
    """Least-delay path (ties: fewer hops), as aqmlab routes a group without `path`."""
    best: dict[str, tuple[int, int]] = {src: (0, 0)}
    prev: dict[str, str] = {}
    heap = [(0, 0, src)]
    while heap:
        d, h, n = heapq.heappop(heap)
        if (d, h) != best.get(n):
            continue
        for (a, b), w in links.items():
            if a == n and (d + w, h + 1) < best.get(b, (1 << 62, 0)):
                best[b] = (d + w, h + 1)
                prev[b] = a
                heapq.heappush(heap, (d + w, h + 1, b))
    path = [dst]
    while path[-1] != src:
        path.append(prev[path[-1]])
    return path[::-1]


def _measured_index(decl: list[dict[str, Any]], measured_link: str | None) -> int:
    """The declared link the aqmlab run measured (its summary's ``measured_link``)."""
    for k, e in enumerate(decl):
        if f"{e['from']}->{e['to']}" == measured_link:
            return k
    names = ", ".join(f"{e['from']}->{e['to']}" for e in decl)
    raise ValueError(
        f"measured_link {measured_link!r} is none of the topology's links ({names}): "
        "pass the aqmlab run's summary['measured_link']"
    )


def translate(
    doc: dict[str, Any],
    flows: list[FlowRun],
    *,
    seed: int,
    overhead_s: float = 0.0,
    trace_flows: list[int] | None = None,
    trace_dir: str = ".",
    measured_link: str | None = None,
) -> Script:
    """The ns-2 script of a resolved scenario ``doc`` whose aqmlab run resolved ``flows``.
    ``measured_link``: for a ``[topology]`` scenario, the link the aqmlab run measured, as its
    summary names it (``measured_link``, ``"A->B"``); ns-2's monitor goes on the same link."""
    duration = duration_ns(doc["duration"])
    warmup = duration_ns(doc.get("warmup", "0s"))
    sink = doc.get("sink", {})
    sink_bps, sink_ns = rate_bps(sink.get("rate", "1Gbps")), duration_ns(sink.get("delay", "0ms"))
    groups: list[dict[str, Any]] = doc["flows"]
    mss0 = int(groups[0].get("tcp", {}).get("mss", 1000))
    for gi, g in enumerate(groups):
        kind = g.get("kind", "tcp")
        if kind not in FLOW_KINDS:
            raise Unsupported(
                f"flows.{gi}.kind", kind, f"ns-2 cross-check runs: {', '.join(FLOW_KINDS)}"
            )
        dur = g.get("duration")
        if dur is not None and not (isinstance(dur, dict) and "list" in dur):
            # A drawn duration is not in the flows table; a listed one is (one per flow).
            raise Unsupported(
                f"flows.{gi}.duration", dur, "`active` intervals, or `{ list = [...] }`"
            )

    lines: list[str] = []
    # Whether the flows are ECN-capable: True (all), False (none), None (mixed).
    capable = {g.get("kind", "tcp") == "tcp" and bool(g.get("tcp", {}).get("ecn")) for g in groups}
    ect = capable.pop() if len(capable) == 1 else None
    any_drr = False
    topo = doc.get("topology")
    if topo is None:
        b = doc["bottleneck"]
        decl = [
            {
                "from": "R1",
                "to": "R2",
                "rate": b["rate"],
                "delay": b["delay"],
                "buffer": b.get("buffer", 100),
                "loss": b.get("loss", 0.0),
                "qdisc": b.get("qdisc", {"kind": "droptail"}),
                "reverse": {"buffer": UNCONGESTED_BUFFER},
                "_path": "bottleneck.qdisc",
            }
        ]
        nodes = ["R1", "R2"]
        measured = 0
        group_ends = [("R1", "R2")] * len(groups)
    else:
        decl = [dict(e, _path=f"topology.links.{k}.qdisc") for k, e in enumerate(topo["links"])]
        nodes = list(topo.get("nodes") or [])
        for e in decl:
            for n in (e["from"], e["to"]):
                if n not in nodes:
                    nodes.append(n)
        measured = _measured_index(decl, measured_link)
        group_ends = [(g["src"], g["dst"]) for g in groups]
    for e in decl:
        any_drr |= e.get("qdisc", {}).get("kind") == "drr"
        rev = e.get("reverse", {})
        any_drr |= rev.get("qdisc", {}).get("kind") == "drr"
    if any_drr:
        for gi, g in enumerate(groups):
            if int(g.get("hosts", 0)) not in (0, int(g.get("count", 1))):
                raise Unsupported(
                    f"flows.{gi}.hosts", g["hosts"], "0 under DRR (ns-2 hashes source nodes)"
                )

    net = _Net(any_drr)
    router = {n: f"r({tcl_word(n)})" for n in nodes}
    for n in nodes:
        net.node(router[n])

    # Declared links (the dumbbell's bottleneck is one of them).
    core_delay = _routes({"links": decl})
    qobjs: list[str] = []
    for e in decl:
        rev = e.get("reverse", {})
        for direction, (a, b, spec) in enumerate(
            [
                (e["from"], e["to"], e),
                (
                    e["to"],
                    e["from"],
                    {
                        "rate": rev.get("rate", e["rate"]),
                        "delay": rev.get("delay", e["delay"]),
                        "buffer": rev.get("buffer", UNCONGESTED_BUFFER),
                        "loss": rev.get("loss", 0.0),
                        "qdisc": rev.get("qdisc", {"kind": "droptail"}),
                    },
                ),
            ]
        ):
            qpath = e["_path"] if direction == 0 else e["_path"].replace(".qdisc", ".reverse.qdisc")
            bps = rate_bps(spec["rate"])
            cls, sets, limit, in_bytes = _qdisc(
                spec.get("qdisc", {"kind": "droptail"}),
                qpath,
                rate=bps,
                buffer=spec.get("buffer", 100),
                mss=mss0,
                ect=ect,
            )
            # Class defaults first (RED reads some of them at construction).
            for s in sets:
                lines.append(f"Queue/{cls} set {s}")
            net.link(router[a], router[b], bps, duration_ns(spec["delay"]), cls, limit, in_bytes)
            for s in sets:
                net.lines.append(f"[[$ns link ${router[a]} ${router[b]}] queue] set {s}")
            if topo is not None:
                net.lines.append(f"$ns cost ${router[a]} ${router[b]} {_cost(spec['delay'])}")
            loss = float(spec.get("loss", 0.0))
            if loss > 0:
                net.lines += [
                    "set em [new ErrorModel]",
                    "$em unit pkt",
                    f"$em set rate_ {loss!r}",
                    "$em ranvar [new RandomVariable/Uniform]",
                    "$em drop-target [new Agent/Null]",
                    f"$ns lossmodel $em ${router[a]} ${router[b]}",
                ]
            qobjs.append(f"{a}->{b}")
    if topo is not None:
        costs = {k: max(1, round(v / COST_UNIT_NS)) for k, v in core_delay.items()}
        for gi, g in enumerate(groups):
            for a, b in ((g["src"], g["dst"]), (g["dst"], g["src"])):
                route = _least_delay(core_delay, a, b)
                total = sum(costs[(route[i], route[i + 1])] for i in range(len(route) - 1))
                if route != _least_delay(costs, a, b) or total >= NS2_INFINITY:
                    raise Unsupported(
                        "topology.links",
                        f"{a} -> {b}",
                        "link delays whose least-delay route ns-2's costs (100 µs units, "
                        "path < 1.6 s) also choose",
                    )
            if g.get("path"):
                want = list(g["path"])
                if want != _least_delay(core_delay, g["src"], g["dst"]):
                    raise Unsupported(
                        f"flows.{gi}.path", want, "the least-delay route (ns-2 routes by cost)"
                    )

    # Hosts: access link per source host, sink link per receiver, exactly as aqmlab expands.
    by_group: dict[int, list[FlowRun]] = {}
    for f in flows:
        by_group.setdefault(f.group, []).append(f)
    agents: list[str] = []
    kinds: list[str] = []
    flow_ids: list[int] = []
    host = 0
    access_links: list[tuple[str, str]] = []
    tracing = set(trace_flows or [])
    traced: list[int] = []
    for gi, g in enumerate(groups):
        members = sorted(by_group.get(gi, []), key=lambda f: f.id)
        n = len(members)
        hosts = int(g.get("hosts", 0)) or n
        src_r, dst_r = group_ends[gi]
        if topo is None:
            core = 2 * duration_ns(decl[0]["delay"])
        else:
            fwd = _least_delay(core_delay, src_r, dst_r)
            back = _least_delay(core_delay, dst_r, src_r)
            core = sum(core_delay[(fwd[i], fwd[i + 1])] for i in range(len(fwd) - 1))
            core += sum(core_delay[(back[i], back[i + 1])] for i in range(len(back) - 1))
        access_bps = rate_bps(g.get("access_rate", "100Mbps"))
        alim, abytes = _buffer(
            g.get("access_buffer", 1000), f"flows.{gi}.access_buffer", extra=1, mss=mss0
        )
        host_vars: list[tuple[str, str]] = []
        for h in range(hosts):
            rep = members[h]  # host h carries flows h, h + hosts, ...
            twice_access = rep.rtt_ns - core - 2 * sink_ns
            access_ns = twice_access // 2
            s, d = f"src({host})", f"dst({host})"
            net.src_node(s)
            net.node(d)
            net.link(s, router[src_r], access_bps, access_ns, "DropTail", alim, abytes)
            net.link(router[src_r], s, access_bps, access_ns, "DropTail", alim, abytes)
            net.link(router[dst_r], d, sink_bps, sink_ns, "DropTail", UNCONGESTED_BUFFER + 1, False)
            net.link(d, router[dst_r], sink_bps, sink_ns, "DropTail", UNCONGESTED_BUFFER + 1, False)
            access_links.append((s, router[src_r]))
            host_vars.append((s, d))
            host += 1
        kind = g.get("kind", "tcp")
        for j, f in enumerate(members):
            s, d = host_vars[j % hosts]
            a, k = f"agent({f.id})", f"sinkagent({f.id})"
            if kind == "tcp":
                tcp = g.get("tcp", {})
                net.lines += _tcp_lines(a, tcp, f"flows.{gi}.tcp", overhead_s)
                net.lines.append(f"set {k} [new {_sink_class(tcp)}]")
                net.lines.append(f"${k} set packetSize_ {int(tcp.get('ack_size', 40))}")
                if tcp.get("delayed_ack"):
                    net.lines.append(f"${k} set interval_ {duration_s(tcp['delack_interval'])!r}")
                net.lines.append(f"set app({f.id}) [new Application/FTP]")
            else:
                spec = g.get("cbr" if kind == "udp_cbr" else "pareto", {})
                size = int(spec.get("packet_bytes", 1000))
                net.lines.append(f"set {a} [new Agent/UDP]")
                net.lines.append(f"${a} set packetSize_ {size}")
                net.lines.append(f"set {k} [new Agent/LossMonitor]")
                if kind == "udp_cbr":
                    net.lines += [
                        f"set app({f.id}) [new Application/Traffic/CBR]",
                        f"$app({f.id}) set rate_ {rate_bps(spec.get('rate', '1Mbps')):.0f}",
                        f"$app({f.id}) set packetSize_ {size}",
                        f"$app({f.id}) set random_ 0",
                    ]
                else:
                    burst = duration_s(spec.get("burst_time", "500ms"))
                    idle = duration_s(spec.get("idle_time", "500ms"))
                    net.lines += [
                        f"set app({f.id}) [new Application/Traffic/Pareto]",
                        f"$app({f.id}) set rate_ {rate_bps(spec.get('rate', '1Mbps')):.0f}",
                        f"$app({f.id}) set packetSize_ {size}",
                        f"$app({f.id}) set burst_time_ {burst!r}",
                        f"$app({f.id}) set idle_time_ {idle!r}",
                        f"$app({f.id}) set shape_ {float(spec.get('shape', 1.5))!r}",
                    ]
            net.lines += [
                f"${a} set fid_ {f.id}",
                f"$ns attach-agent ${s} ${a}",
                f"$ns attach-agent ${d} ${k}",
                f"$ns connect ${a} ${k}",
                f"$app({f.id}) attach-agent ${a}",
            ]
            if kind == "tcp" and f.id in tracing:
                path = f"{trace_dir}/ns2_trace_{f.id}.tr"
                net.lines += [
                    f"set trf({f.id}) [open {tcl_word(path)} w]",
                    f"${a} attach $trf({f.id})",
                    f"${a} set trace_all_oneline_ false",
                ]
                net.lines += [
                    f"${a} trace {v}"
                    for v in (
                        "cwnd_",
                        "ssthresh_",
                        "rtt_",
                        "srtt_",
                        "rttvar_",
                        "backoff_",
                        "nrexmit_",
                        "nrexmitpack_",
                        "t_seqno_",
                        "ack_",
                        "maxseq_",
                        "dupacks_",
                    )
                ]
                traced.append(f.id)
            # Start, finite size, on/off schedule.
            packets = int(g.get("packets", 0))
            start = f.start_s
            if kind == "tcp":
                go = f"$app({f.id}) produce {packets}" if packets else f"$app({f.id}) start"
            else:
                go = f"$app({f.id}) start"
            active = g.get("active") or []
            listed = (g.get("duration") or {}).get("list")
            if listed is not None:
                # Session: stop new data `duration` after the start (aqmlab's `duration`).
                stop_at = start + duration_s(listed[j])
                net.lines.append(f"$ns at {start:.9f} {{{go}}}")
                if stop_at < duration / 1e9:
                    stop = _stop_tcp(a) if kind == "tcp" else f"$app({f.id}) stop"
                    net.lines.append(f"$ns at {stop_at:.9f} {{{stop}}}")
            elif not active:
                net.lines.append(f"$ns at {start:.9f} {{{go}}}")
            else:
                for on, off in active:
                    t_on = max(duration_s(on), start)
                    t_off = duration_s(off)
                    if t_off <= t_on:
                        continue
                    net.lines.append(f"$ns at {t_on:.9f} {{{go}}}")
                    stop = _stop_tcp(a) if kind == "tcp" else f"$app({f.id}) stop"
                    net.lines.append(f"$ns at {t_off:.9f} {{{stop}}}")
            agents.append(a)
            kinds.append(kind)
            flow_ids.append(f.id)

    m_from, m_to = decl[measured]["from"], decl[measured]["to"]
    m_rate = rate_bps(decl[measured]["rate"])
    text = _SCRIPT.format(
        seed=seed,
        name=tcl_word(doc.get("name", "")),
        network="\n".join(net.lines),
        pre="\n".join(lines),
        mfrom=router[m_from],
        mto=router[m_to],
        warmup=_sec(warmup),
        end=_sec(duration),
        rate=f"{m_rate:.0f}",
        flows=" ".join(str(i) for i in flow_ids),
        tcpflows=" ".join(str(i) for i, k in zip(flow_ids, kinds, strict=False) if k == "tcp"),
        access=" ".join(f"{s} {r}" for s, r in access_links),
    )
    return Script(text=text, flows=flow_ids, kinds=kinds, access_hosts=host, traced=traced)


def _stop_tcp(agent: str) -> str:
    """The Tcl that stops TCP agent ``agent`` sending new data, as aqmlab stops a session: what
    was sent stays outstanding and may be resent. ns-2.35's ``advance n`` sets ``curseq_`` to
    ``n`` (to ``maxseq_`` when ``n <= maxseq_``, tcp.cc ``command``) and ``send_much`` sends only
    while ``t_seqno_ < curseq_``, so ``advance 0`` would leave the last packet sent unresendable
    (its loss then times out again and again until the run ends); ``maxseq_ + 1``, read when the
    stop fires, allows every resend and no new packet."""
    return f"${agent} advance [expr {{[${agent} set maxseq_] + 1}}]"


_SCRIPT = """\
# ns-2.35 script generated by `aqmlab crosscheck` from: {name}
# ns-2 is set to aqmlab's semantics (docs/validation.md, "Beside ns-2").
set ns [new Simulator]
global defaultRNG
$defaultRNG seed {seed}

Agent/TCP set useHeaders_ false
Agent/TCP set timestamps_ true
Agent/TCP set ts_resetRTO_ true
Agent/TCP set singledup_ 0
Agent/TCP set syn_ false
Agent/TCP set delay_growth_ false
Agent/TCP set maxburst_ 0
Agent/TCP set windowOption_ 1
Agent/TCP/Newreno set partial_window_deflation_ 1
Agent/TCP/Newreno set newreno_changes1_ 1
Agent/TCP set maxSackBlocks_ 3
Agent/TCPSink set maxSackBlocks_ 3
{pre}
{network}

# Bottleneck (measured link) monitor: arrivals, departures, drops, integrated queue, delay.
set qmon [$ns monitor-queue ${mfrom} ${mto} 0]
set qint [$qmon get-pkts-integrator]
set qdelay [new Samples]
$qmon set-delay-samples $qdelay
set amon {{}}
foreach {{hs hr}} {{{access}}} {{
    lappend amon [$ns monitor-queue [set $hs] [set $hr] 0]
}}

proc integral {{int now}} {{
    return [expr [$int set sum_] + ($now - [$int set lastx_]) * [$int set lasty_]]
}}

proc snapshot {{}} {{
    global ns qmon qint qdelay agent sinkagent snap
    set now [$ns now]
    foreach v {{parrivals_ pdepartures_ pdrops_ bdepartures_}} {{ set snap($v) [$qmon set $v] }}
    set snap(qint) [integral $qint $now]
    $qdelay reset
    foreach i {{{flows}}} {{ set snap(bytes,$i) [$sinkagent($i) set bytes_] }}
    foreach i {{{tcpflows}}} {{
        set snap(rx,$i) [$agent($i) set nrexmitpack_]
        set snap(to,$i) [$agent($i) set nrexmit_]
    }}
}}

proc finish {{}} {{
    global ns qmon qint qdelay agent sinkagent snap amon
    set now [$ns now]
    set win [expr $now - {warmup}]
    foreach v {{parrivals_ pdepartures_ pdrops_ bdepartures_}} {{
        puts "M $v [expr [$qmon set $v] - $snap($v)]"
    }}
    puts "M window_s $win"
    puts "M rate_bps {rate}"
    puts "M qint_pkts_s [expr [integral $qint $now] - $snap(qint)]"
    puts "M delay_mean_s [$qdelay mean]"
    puts "M delay_cnt [$qdelay cnt]"
    set adrops 0
    foreach m $amon {{ incr adrops [$m set pdrops_] }}
    puts "M access_drops_run $adrops"
    foreach i {{{flows}}} {{
        set b [expr [$sinkagent($i) set bytes_] - $snap(bytes,$i)]
        if {{[info exists snap(rx,$i)]}} {{
            set rx [expr [$agent($i) set nrexmitpack_] - $snap(rx,$i)]
            set to [expr [$agent($i) set nrexmit_] - $snap(to,$i)]
        }} else {{ set rx 0; set to 0 }}
        puts "F $i $b $rx $to"
    }}
    flush stdout
    exit 0
}}

$ns at {warmup} "snapshot"
$ns at {end} "finish"
$ns run
"""
