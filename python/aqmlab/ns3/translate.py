"""Translation of a resolved aqmlab dumbbell into the run file of the ns-3 program.

The program (``dumbbell.cc`` beside this file) builds the same dumbbell in ns-3.44: one source
and one receiver host per flow, access links with the rates, delays and buffers aqmlab
resolved, a bottleneck whose queue disc is one of ns-3's (attributes set from the scenario's
parameters, every one written), sink links, bulk TCP flows starting at the exact times aqmlab
resolved. Randomness inside the run (RED's and PIE's draws, FQ-CoDel's hash perturbation) comes
from ns-3's own generator, seeded with the run's seed.

Sizes: aqmlab's ``mss`` is the packet on the wire; ns-3's segment size is the TCP payload, so
``SegmentSize = mss - 42`` (20 bytes IPv4, 20 TCP without options, 2 PPP): both put ``mss``
bytes per data packet on the bottleneck. Above 1502 bytes the links' MTU is raised to
``mss - 2``, so that ns-3 sends each segment as one packet, as aqmlab does, not in fragments.

TCP (ns-3 settings are global, so every group must agree on them): ``cc`` reno, cubic and dctcp
are ns-3's ``TcpLinuxReno``, ``TcpCubic`` (HyStart off: aqmlab's CUBIC has none) and
``TcpDctcp``; ``variant`` newreno and sack are classic fast recovery (``TcpClassicRecovery``, not
ns-3's default PRR) without and with SACK. Timestamps off, an ACK per segment (``delayed_ack``:
ns-3's ``DelAckCount`` 2 and ``DelAckTimeout``), buffers large enough that only the congestion
window limits a flow. ns-3 opens each connection with a SYN, whose timeout is ``initial_rto``
(``ConnTimeout``); aqmlab starts sending data at once.

Keys that choose between aqmlab's own readings of the RFCs (``tcp.model``,
``tcp.cubic_friendly``) are aqmlab's side only: ns-3 runs its one implementation (Linux-like:
``TcpCubic`` is ``cubic_friendly = "linux"``). Every other key either maps onto an ns-3
attribute, or must hold aqmlab's default; anything else raises :class:`Unsupported` naming the
key path, the value and what is allowed. Nothing is ever replaced by something else.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aqmlab.units import duration_ns, rate_bps
from aqmlab.xcheck import Unsupported

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: Bytes a data packet carries on the bottleneck besides ns-3's TCP payload.
HEADERS = 42
#: The point-to-point header, outside the IP packet that the device's MTU bounds.
PPP = 2
#: ns-3's point-to-point MTU: the largest IP packet a device sends whole.
DEFAULT_MTU = 1500
#: Queue disciplines the translation knows (aqmlab kind → ns-3 queue disc).
QDISCS = {
    "droptail": "ns3::FifoQueueDisc",
    "red": "ns3::RedQueueDisc",
    "codel": "ns3::CoDelQueueDisc",
    "pie": "ns3::PieQueueDisc",
    "fq_codel": "ns3::FqCoDelQueueDisc",
}
CCS = {"reno": "ns3::TcpLinuxReno", "cubic": "ns3::TcpCubic", "dctcp": "ns3::TcpDctcp"}
VARIANTS = {"newreno": False, "sack": True}  # variant → SACK
#: TCP keys that pick one of aqmlab's own readings; ns-3 runs its own implementation.
AQMLAB_ONLY_TCP = {"model", "cubic_friendly"}
UNCONGESTED_BUFFER = 10_000
#: The program numbers each access link's /30 inside one /16 (see dumbbell.cc).
MAX_FLOWS = 16_000


@dataclass
class Flow:
    """What the aqmlab run resolved for one flow: its group's index, its access link's one-way
    delay and its start time (both ns)."""

    id: int
    group: int
    access_delay_ns: int
    start_ns: int


def _ns(value: Any) -> str:
    """A duration as an ns-3 time string in integer nanoseconds."""
    return f"{duration_ns(value)}ns"


def _bool(v: Any) -> str:
    return "true" if v else "false"


def _num(v: Any) -> str:
    return repr(float(v))


# One converter per aqmlab parameter: (ns-3 attribute, value → attribute text).
Conv = tuple[str, Callable[[Any], str]]


def _w_q(v: Any) -> str:
    # ns-3's QW: a weight, or 0 (automatic, RFC-style from the link rate), -2 (fast automatic).
    if isinstance(v, int | float) and not isinstance(v, bool):
        return _num(v)
    auto = {"auto": "0", "auto_fast": "-2"}
    if isinstance(v, str) and v in auto:
        return auto[v]
    raise Unsupported("bottleneck.qdisc.w_q", v, "a number, 'auto' or 'auto_fast' here")


def _estimator(v: Any) -> str:
    if v not in ("dq_rate", "timestamp"):
        raise Unsupported("bottleneck.qdisc.estimator", v, "dq_rate or timestamp")
    return _bool(v == "dq_rate")


def _max_p(v: Any) -> str:
    if not float(v) > 0:
        raise Unsupported("bottleneck.qdisc.max_p", v, "> 0 (ns-3's LInterm is 1 / max_p)")
    return _num(1.0 / float(v))


ATTRS: dict[str, dict[str, Conv]] = {
    "droptail": {},
    "red": {
        "min_th": ("MinTh", _num),
        "max_th": ("MaxTh", _num),
        "max_p": ("LInterm", _max_p),
        "w_q": ("QW", _w_q),
        "gentle": ("Gentle", _bool),
        "wait": ("Wait", _bool),
        "ecn": ("UseEcn", _bool),
        "hard_drop": ("UseHardDrop", _bool),
        "mean_pkt_size": ("MeanPktSize", lambda v: str(int(v))),
        "idle_pkt_size": ("IdlePktSize", lambda v: str(int(v))),
    },
    "codel": {
        "target": ("Target", _ns),
        "interval": ("Interval", _ns),
        "min_bytes": ("MinBytes", lambda v: str(int(v))),
        "ecn": ("UseEcn", _bool),
        "ce_threshold": ("CeThreshold", _ns),
        "l4s": ("UseL4s", _bool),
    },
    "pie": {
        "target": ("QueueDelayReference", _ns),
        "tupdate": ("Tupdate", _ns),
        "alpha": ("A", _num),
        "beta": ("B", _num),
        "max_burst": ("MaxBurstAllowance", _ns),
        "estimator": ("UseDequeueRateEstimator", _estimator),
        "dq_threshold": ("DequeueThreshold", lambda v: str(int(v))),
        "derandomize": ("UseDerandomization", _bool),
        "ecn": ("UseEcn", _bool),
        "mark_ecn_th": ("MarkEcnThreshold", _num),
        "cap_drop_adjustment": ("UseCapDropAdjustment", _bool),
        "active_threshold": ("ActiveThreshold", _ns),
    },
    "fq_codel": {
        "flows": ("Flows", lambda v: str(int(v))),
        "target": ("Target", _ns),
        "interval": ("Interval", _ns),
        "ecn": ("UseEcn", _bool),
        "drop_batch": ("DropBatchSize", lambda v: str(int(v))),
        "set_associative": ("EnableSetAssociativeHash", _bool),
        "set_ways": ("SetWays", lambda v: str(int(v))),
        "ce_threshold": ("CeThreshold", _ns),
        "l4s": ("UseL4s", _bool),
    },
}
#: Parameters that ns-3 has no attribute for but whose only value matches what ns-3 does.
FIXED: dict[str, dict[str, tuple[Any, str]]] = {
    "red": {
        "bytes": (False, "false: the ns-3 cross-check runs RED in packet mode"),
        "forced_resets_count": (
            False,
            "false: ns-3's RedQueueDisc does not restart its count on an overflow",
        ),
    },
    "fq_codel": {
        "hash": ("salted", "salted: ns-3 hashes the 5-tuple with a random perturbation"),
    },
}


@functools.cache
def _defaults(kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """aqmlab's resolved defaults for a qdisc ``kind`` and for ``tcp``, from the core."""
    from aqmlab import api

    text = (
        'duration = "1s"\n[bottleneck]\nrate = "10Mbps"\ndelay = "1ms"\n'
        f'qdisc = {{ kind = "{kind}" }}\n[[flows]]\nkind = "tcp"\n'
    )
    doc = tomllib.loads(api.validate(text))
    return dict(doc["bottleneck"]["qdisc"]), dict(doc["flows"][0].get("tcp", {}))


def _at_default(value: Any, default: Any) -> bool:
    return bool(value == default)


def qdisc_attrs(q: dict[str, Any], buffer: Any, mss: int) -> tuple[str, list[tuple[str, str]]]:
    """(ns-3 queue disc, attributes) of the bottleneck's resolved qdisc table ``q``."""
    path = "bottleneck.qdisc"
    kind = q.get("kind", "droptail")
    if kind not in QDISCS:
        raise Unsupported(f"{path}.kind", kind, f"ns-3.44 cross-check has: {', '.join(QDISCS)}")
    if not isinstance(buffer, int):
        raise Unsupported("bottleneck.buffer", buffer, "packets: the ns-3 queues count packets")
    attrs = [("MaxSize", f"{buffer}p")]
    defaults, _ = _defaults(kind)
    conv = ATTRS[kind]
    fixed = FIXED.get(kind, {})
    for key, value in sorted(q.items()):
        if key == "kind":
            continue
        if key in conv:
            name, f = conv[key]
            attrs.append((name, f(value)))
        elif key in fixed:
            want, why = fixed[key]
            if value != want:
                raise Unsupported(f"{path}.{key}", value, why)
        elif not _at_default(value, defaults.get(key, object())):
            raise Unsupported(
                f"{path}.{key}",
                value,
                f"{defaults.get(key)!r}, aqmlab's default: the ns-3 program has no such setting",
            )
    if kind == "fq_codel" and mss - PPP > DEFAULT_MTU:
        raise Unsupported(
            "flows.0.tcp.mss",
            mss,
            f"at most {DEFAULT_MTU + PPP} with fq_codel: ns-3 sets FQ-CoDel's quantum from the "
            "links' MTU, which larger packets raise",
        )
    if kind in ("red", "pie") and not any(n == "MeanPktSize" for n, _ in attrs):
        attrs.append(("MeanPktSize", str(mss)))
    return QDISCS[kind], attrs


def _link_attrs(kind: str, b: dict[str, Any]) -> list[tuple[str, str]]:
    """RED's idle-time decay and automatic weights need the link it sits on."""
    if kind != "red":
        return []
    return [
        ("LinkBandwidth", f"{int(rate_bps(b['rate']))}bps"),
        ("LinkDelay", _ns(b["delay"])),
    ]


def _delayed_ack(v: Any) -> list[tuple[str, str]]:
    # ns-3's congestion controls grow the window by the segments an ACK acknowledges (as
    # Linux does); aqmlab's grow it per ACK (RFC 5681 without byte counting, as ns-2). With an
    # ACK per segment the two are the same; with delayed ACKs aqmlab grows half as fast (8 Reno
    # flows over RED: ns-3 209 drops, aqmlab 96, ns-2 98; without delayed ACKs 208 and 208).
    if v:
        raise Unsupported(
            "flows.0.tcp.delayed_ack",
            v,
            "false: ns-3 grows the window per segment acknowledged, aqmlab per ACK (RFC 5681, "
            "as ns-2), which delayed ACKs make differ",
        )
    return [("ns3::TcpSocket::DelAckCount", "1")]


def tcp_defaults(groups: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The ``Config::SetDefault`` lines of the groups' TCP settings (global in ns-3)."""
    _, defaults = _defaults("droptail")
    tcps = [dict(g.get("tcp", {})) for g in groups]
    first = tcps[0]
    for gi, t in enumerate(tcps[1:], start=1):
        for key in sorted(set(t) | set(first)):
            if key not in AQMLAB_ONLY_TCP and t.get(key) != first.get(key):
                raise Unsupported(
                    f"flows.{gi}.tcp.{key}",
                    t.get(key),
                    f"{first.get(key)!r} as in flows.0: ns-3's TCP settings are global here",
                )
    t = first
    path = "flows.0.tcp"
    cc = t.get("cc", "reno")
    if cc not in CCS:
        raise Unsupported(f"{path}.cc", cc, f"ns-3 cross-check has: {', '.join(CCS)}")
    variant = t.get("variant", "newreno")
    if variant not in VARIANTS:
        raise Unsupported(
            f"{path}.variant",
            variant,
            "newreno or sack: ns-3's recovery always treats partial ACKs as NewReno does",
        )
    mss = int(t.get("mss", 1000))
    if mss <= HEADERS:
        raise Unsupported(f"{path}.mss", mss, f"> {HEADERS} (ns-3's headers on the wire)")
    out = [
        ("ns3::TcpL4Protocol::SocketType", CCS[cc]),
        ("ns3::TcpL4Protocol::RecoveryType", "ns3::TcpClassicRecovery"),
        ("ns3::TcpCubic::HyStart", "false"),
        ("ns3::TcpSocketBase::Sack", _bool(VARIANTS[variant])),
        ("ns3::TcpSocketBase::Timestamp", "false"),
        # aqmlab's senders have no limited transmit (RFC 3042); ns-3's default is on.
        ("ns3::TcpSocketBase::LimitedTransmit", "false"),
        # (the core requires `ecn = true` with cc = "dctcp", as TcpDctcp always negotiates it)
        ("ns3::TcpSocketBase::UseEcn", "On" if t.get("ecn") else "Off"),
        ("ns3::TcpSocket::SegmentSize", str(mss - HEADERS)),
        ("ns3::TcpSocket::SndBufSize", str(1 << 24)),
        ("ns3::TcpSocket::RcvBufSize", str(1 << 24)),
    ]
    if mss - PPP > DEFAULT_MTU:
        # Above ns-3's 1500-byte MTU, IPv4 would fragment each segment into several packets
        # on the bottleneck: the links carry the whole packet instead, as aqmlab's do.
        out.append(("ns3::PointToPointNetDevice::Mtu", str(mss - PPP)))
    mapped: dict[str, Callable[[Any], list[tuple[str, str]]]] = {
        "initial_window": lambda v: [("ns3::TcpSocket::InitialCwnd", str(int(v)))],
        "initial_ssthresh": lambda v: (
            [("ns3::TcpSocket::InitialSlowStartThreshold", str(int(v) * (mss - HEADERS)))]
            if int(v)
            else []
        ),
        "min_rto": lambda v: [("ns3::TcpSocketBase::MinRto", _ns(v))],
        "clock_granularity": lambda v: [("ns3::TcpSocketBase::ClockGranularity", _ns(v))],
        "initial_rto": lambda v: [("ns3::TcpSocket::ConnTimeout", _ns(v))],
        "dupack_threshold": lambda v: [("ns3::TcpSocketBase::ReTxThreshold", str(int(v)))],
        "delayed_ack": _delayed_ack,
        "delack_interval": lambda v: [("ns3::TcpSocket::DelAckTimeout", _ns(v))],
    }
    handled = {"cc", "variant", "mss", "ecn", *AQMLAB_ONLY_TCP}
    for key, value in sorted(t.items()):
        if key in handled:
            continue
        if key in mapped:
            out += mapped[key](value)
        elif not _at_default(value, defaults.get(key, object())):
            raise Unsupported(
                f"{path}.{key}",
                value,
                f"{defaults.get(key)!r}, aqmlab's default: the ns-3 program has no such setting",
            )
    return out


def check(doc: dict[str, Any]) -> None:
    """Raises :class:`Unsupported` if the ns-3 program cannot run the resolved scenario ``doc``
    (everything :func:`translate` checks that does not depend on the run's flows)."""
    if "topology" in doc:
        raise Unsupported(
            "topology",
            "[topology]",
            "a dumbbell ([bottleneck] and [[flows]]): the ns-3 program has one bottleneck",
        )
    b = doc["bottleneck"]
    if float(b.get("loss", 0.0)) != 0.0:
        raise Unsupported("bottleneck.loss", b["loss"], "0: the ns-3 program has no link loss")
    groups: list[dict[str, Any]] = doc["flows"]
    for gi, g in enumerate(groups):
        path = f"flows.{gi}"
        kind = g.get("kind", "tcp")
        if kind != "tcp":
            raise Unsupported(f"{path}.kind", kind, "tcp: the ns-3 program runs bulk TCP flows")
        hosts = int(g.get("hosts", 0))
        if hosts not in (0, int(g.get("count", 1))):
            raise Unsupported(
                f"{path}.hosts", hosts, "0 (one host per flow, as the ns-3 program builds)"
            )
        for key, allowed in (
            ("duration", "unset: ns-3's flows send to the end of the run"),
            ("active", "unset: ns-3's flows send to the end of the run"),
        ):
            if g.get(key):
                raise Unsupported(f"{path}.{key}", g[key], allowed)
        if int(g.get("packets", 0)):
            raise Unsupported(f"{path}.packets", g["packets"], "0: bulk transfers only")
        if not isinstance(g.get("access_buffer", 1000), int):
            raise Unsupported(
                f"{path}.access_buffer", g["access_buffer"], "packets: ns-3 queues count packets"
            )
    total = sum(int(g.get("count", 1)) for g in groups)
    if total > MAX_FLOWS:
        raise Unsupported(
            "flows", f"{total} flows", f"at most {MAX_FLOWS}: one /30 per access link in a /16"
        )
    mss = int(groups[0].get("tcp", {}).get("mss", 1000))
    tcp_defaults(groups)
    qdisc_attrs(dict(b.get("qdisc", {"kind": "droptail"})), b.get("buffer", 100), mss)


def translate(doc: dict[str, Any], flows: list[Flow], *, seed: int) -> str:
    """The run file of a resolved dumbbell ``doc`` whose aqmlab run resolved ``flows``."""
    check(doc)
    b = doc["bottleneck"]
    sink = doc.get("sink", {})
    groups: list[dict[str, Any]] = doc["flows"]
    mss = int(groups[0].get("tcp", {}).get("mss", 1000))
    q = dict(b.get("qdisc", {"kind": "droptail"}))
    qdisc, attrs = qdisc_attrs(q, b["buffer"], mss)
    attrs += _link_attrs(str(q.get("kind")), b)
    name = " ".join(str(doc.get("name", "")).split())
    lines = [
        f"# aqmlab -> ns-3.44 run file: {name}",
        f"seed {int(seed)}",
        f"time {duration_ns(doc['duration'])} {duration_ns(doc.get('warmup', '0s'))} "
        f"{duration_ns(doc.get('sample_interval', '20ms'))}",
        f"bottleneck {int(rate_bps(b['rate']))} {duration_ns(b['delay'])}",
        f"sink {int(rate_bps(sink.get('rate', '1Gbps')))} {duration_ns(sink.get('delay', '0ms'))}",
    ]
    lines += [f"default {k} {v}" for k, v in tcp_defaults(groups)]
    lines.append(f"qdisc {qdisc}")
    lines += [f"qattr {k} {v}" for k, v in attrs]
    for f in flows:
        g = groups[f.group]
        if f.access_delay_ns < 0:
            raise ValueError(f"flow {f.id}: negative access delay {f.access_delay_ns} ns")
        lines.append(
            f"flow {int(rate_bps(g.get('access_rate', '100Mbps')))} {f.access_delay_ns} "
            f"{int(g.get('access_buffer', 1000))} {f.start_ns}"
        )
    return "\n".join(lines) + "\n"
