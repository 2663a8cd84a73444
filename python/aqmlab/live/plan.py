"""A scenario read as a live run: what each flow does, or the key live cannot express.

The scenario is resolved and validated by the core as for a simulated run; the per-flow values
of spreads (``start``, ``access_delay``: uniform draws come from the scenario's seed) are taken
from a zero-length simulated run of the same scenario, so a live run and its simulated twin
start the same flows at the same times with the same base RTTs.

Refused (one :class:`aqmlab.ScenarioError` naming the key): ``topology`` (the live bottleneck
is a dumbbell), flow kinds other than ``tcp``, ``active`` and per-flow ``duration`` sessions,
``tcp.model = "ns2"`` (the kernel's TCP is the model), ``tcp.rtt_label`` (no edge writes
labels), ``tcp.overhead``, ``tcp.ecn_codepoint = "ect1"``, ``bottleneck.loss``, ``trace``,
segment sizes outside what a 1500-byte MTU carries, and congestion controls the kernel lacks.

Applied: the bottleneck (rate, buffer, qdisc, ECN marking), each flow's one-way propagation
delay (access + bottleneck + sink, both directions), start time, ``tcp.mss`` (as
``TCP_MAXSEG``, so data packets are ``mss`` bytes on the wire with Linux's 12-byte timestamp
option), ``tcp.ecn``, ``tcp.cc``, ``packets`` (finite transfers). The kernel's own values
stand for the rest of ``tcp`` (recovery variant, timers, windows, delayed ACKs), for access and
sink rates and for ``hosts``; the keys a scenario set explicitly are listed in the summary's
``live.not_applied``.

Kernel congestion controls other than the scenario's ``reno``/``cubic``/``dctcp`` (``bbr``, ...)
are chosen in a top-level ``[live]`` table the core never sees: ``live = { cc = "bbr" }`` for
every group, or ``live = { cc = { ftp = "bbr" } }`` per group name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aqmlab.scenario import scenario_error

#: IPv4 + TCP headers plus Linux's timestamp option, bytes: what a wire packet adds to payload.
HEADERS = 52
#: The devices' MTU (an Ethernet-sized path, as the simulator's default segment sizes assume).
MTU = 1500
#: Receivers listen here; flow i sends from SRC_PORT_BASE + i (the bottleneck classifies by the
#: port pair).
SINK_PORT = 5001
SRC_PORT_BASE = 40000

#: tcp keys the kernel decides for itself: listed in ``live.not_applied`` when a scenario sets them.
KERNEL_DECIDES = (
    "variant",
    "ack_size",
    "max_window",
    "initial_window",
    "initial_ssthresh",
    "min_rto",
    "max_rto",
    "initial_rto",
    "clock_granularity",
    "dupack_threshold",
    "delayed_ack",
    "delack_interval",
    "ecn_backoff",
    "cubic_friendly",
)
#: flow-group keys not emulated live (the bottleneck is the only queue).
NOT_EMULATED = ("hosts", "access_rate", "access_buffer")

_UNITS_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
_UNITS_BPS = {"bps": 1.0, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}
_QTY = re.compile(r"^\s*([0-9.eE+-]+)\s*([A-Za-z]+)\s*$")


def seconds(text: str) -> float:
    m = _QTY.match(str(text))
    if not m or m.group(2) not in _UNITS_S:
        raise ValueError(f"not a duration: {text!r}")
    return float(m.group(1)) * _UNITS_S[m.group(2)]


def bits_per_second(text: str) -> float:
    m = _QTY.match(str(text))
    if not m or m.group(2) not in _UNITS_BPS:
        raise ValueError(f"not a rate: {text!r}")
    return float(m.group(1)) * _UNITS_BPS[m.group(2)]


@dataclass(frozen=True)
class LiveFlow:
    id: int
    group: str
    cc: str
    ecn: bool
    start_s: float
    rtt_ms: float
    wire_mss: int
    bytes: int | None  # finite transfer size (payload bytes), None for bulk

    @property
    def src_port(self) -> int:
        return SRC_PORT_BASE + self.id

    @property
    def maxseg(self) -> int:
        """``TCP_MAXSEG``: the MSS option's value (payload + timestamp option space)."""
        return self.wire_mss - 40

    @property
    def payload(self) -> int:
        return self.wire_mss - HEADERS


@dataclass
class Plan:
    name: str
    seed: int
    duration_s: float
    warmup_s: float
    sample_interval_s: float
    series_bin_s: float
    rate_bps: float
    buffer: int | str
    qdisc: dict[str, Any]
    flows: list[LiveFlow]
    scenario_toml: str
    not_applied: list[str] = field(default_factory=list)

    @property
    def ccs(self) -> list[str]:
        return sorted({f.cc for f in self.flows})

    def cc_by_group(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for f in self.flows:
            out.setdefault(f.group, f.cc)
        return out


def split_live_table(doc: dict[str, Any]) -> dict[str, Any]:
    """Removes and returns the document's ``[live]`` table (the core does not know it)."""
    table = doc.pop("live", {}) or {}
    if not isinstance(table, Mapping):
        raise scenario_error("live", repr(table)[:40], 'a table such as { cc = "bbr" }')
    for key in table:
        if key != "cc":
            raise scenario_error(f"live.{key}", "unknown key", "live has only: cc")
    return dict(table)


def refuse(resolved: Mapping[str, Any]) -> None:
    """Raises a ScenarioError naming the first key a live run cannot express."""

    def no(path: str, value: Any, why: str) -> None:
        raise scenario_error(path, repr(value) if not isinstance(value, str) else value, why)

    if "topology" in resolved:
        no("topology", "a topology", "live runs the dumbbell form only ([bottleneck])")
    if resolved.get("trace"):
        no("trace", "per-flow TCP traces", "not recorded live (tcp_info is: see live.md)")
    loss = float(resolved["bottleneck"].get("loss", 0.0))
    if loss > 0:
        no("bottleneck.loss", loss, "0 in a live run (no random loss is emulated)")
    for i, g in enumerate(resolved["flows"]):
        kind = g.get("kind", "tcp")
        if kind != "tcp":
            no(f"flows.{i}.kind", kind, "live builds bulk and finite TCP flows only (tcp)")
        for key in ("active", "duration"):
            if key in g:
                no(f"flows.{i}.{key}", "set", "sessions are not built live: flows run to the end")
        tcp = g.get("tcp", {})
        if tcp.get("model") == "ns2":
            no(f"flows.{i}.tcp.model", "ns2", "the kernel's TCP is the model live: rfc")
        if tcp.get("rtt_label", "none") != "none":
            no(f"flows.{i}.tcp.rtt_label", tcp["rtt_label"], "none (live senders write no labels)")
        if seconds(tcp.get("overhead", "0ms")) > 0:
            no(f"flows.{i}.tcp.overhead", tcp["overhead"], "0ms (the kernel sends at once)")
        if tcp.get("ecn_codepoint", "ect0") != "ect0":
            no(f"flows.{i}.tcp.ecn_codepoint", tcp["ecn_codepoint"], "ect0 (classic ECN)")
        mss = int(tcp.get("mss", 1000))
        if not HEADERS + 36 <= mss <= MTU:
            no(f"flows.{i}.tcp.mss", mss, f"in [{HEADERS + 36}, {MTU}] on a live path")


def not_applied(user_doc: Mapping[str, Any]) -> list[str]:
    """Key paths the scenario set that the kernel decides for itself live."""
    out = []
    for i, g in enumerate(user_doc.get("flows") or []):
        if not isinstance(g, Mapping):
            continue
        out += [f"flows.{i}.{k}" for k in NOT_EMULATED if k in g]
        tcp = g.get("tcp") or {}
        out += [f"flows.{i}.tcp.{k}" for k in KERNEL_DECIDES if k in tcp]
    sink = user_doc.get("sink") or {}
    if isinstance(sink, Mapping) and "rate" in sink:
        out.append("sink.rate")
    return out


def kernel_cc(group: str, index: int, scenario_cc: str, live_cc: Any) -> str:
    """The kernel cc of group ``index``: the ``[live]`` table's choice, else the scenario's."""
    if isinstance(live_cc, str):
        return live_cc
    if isinstance(live_cc, Mapping):
        chosen = live_cc.get(group)
        if chosen is not None and not isinstance(chosen, str):
            raise scenario_error(f"live.cc.{group}", repr(chosen), "a kernel cc name")
        return str(chosen or scenario_cc)
    if live_cc is not None:
        raise scenario_error("live.cc", repr(live_cc)[:40], "a cc name or { group = cc }")
    return scenario_cc


def build(
    user_doc: Mapping[str, Any],
    resolved: Mapping[str, Any],
    scenario_toml: str,
    per_flow: Mapping[str, Any],
    *,
    name: str,
    live_table: Mapping[str, Any],
) -> Plan:
    """The plan of a live run from the user's document, the core's resolved scenario and the
    per-flow columns (id, group, rtt_ms, start_s) of a zero-length simulated run."""
    refuse(resolved)
    live_cc = live_table.get("cc")
    if isinstance(live_cc, Mapping):
        groups = {str(g.get("group") or f"g{i}") for i, g in enumerate(resolved["flows"])}
        for g in live_cc:
            if g not in groups:
                raise scenario_error(f"live.cc.{g}", "no such group", ", ".join(sorted(groups)))
    flows: list[LiveFlow] = []
    fid = 0
    for i, g in enumerate(resolved["flows"]):
        group = str(g.get("group") or f"g{i}")
        tcp = g.get("tcp", {})
        cc = kernel_cc(group, i, str(tcp.get("cc", "reno")), live_cc)
        mss = int(tcp.get("mss", 1000))
        packets = int(g.get("packets", 0))
        for _ in range(int(g.get("count", 1))):
            flows.append(
                LiveFlow(
                    id=fid,
                    group=group,
                    cc=cc,
                    ecn=bool(tcp.get("ecn", False)),
                    start_s=float(per_flow["start_s"][fid]),
                    rtt_ms=float(per_flow["rtt_ms"][fid]),
                    wire_mss=mss,
                    bytes=packets * (mss - HEADERS) if packets else None,
                )
            )
            fid += 1
    b = resolved["bottleneck"]
    return Plan(
        name=name,
        seed=int(resolved.get("seed", 1)),
        duration_s=seconds(resolved["duration"]),
        warmup_s=seconds(resolved.get("warmup", "0ms")),
        sample_interval_s=seconds(resolved.get("sample_interval", "20ms")),
        series_bin_s=seconds(resolved.get("series_bin", "250ms")),
        rate_bps=bits_per_second(b["rate"]),
        buffer=b.get("buffer", 100),
        qdisc=dict(b.get("qdisc") or {"kind": "droptail"}),
        flows=flows,
        scenario_toml=scenario_toml,
        not_applied=not_applied(user_doc),
    )


__all__ = [
    "HEADERS",
    "MTU",
    "SINK_PORT",
    "SRC_PORT_BASE",
    "LiveFlow",
    "Plan",
    "bits_per_second",
    "build",
    "not_applied",
    "refuse",
    "seconds",
    "split_live_table",
]
