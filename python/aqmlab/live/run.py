"""``aqmlab.live(scenario)``: one scenario run with real kernel TCP through the user-space
bottleneck, returned as :class:`aqmlab.Results` shaped like a simulated run's.

Order: resolve and validate the scenario (the core), refuse what live cannot express
(:mod:`aqmlab.live.plan`), check the machine (:mod:`aqmlab.live.preflight`), build the network
(:class:`aqmlab.live.session.Network`, which first removes a killed run's leftovers), start the
receivers, then the bottleneck's packet loop and the senders on one time zero, wait
``duration``, collect, tear everything down, and shape the results
(:mod:`aqmlab.live.outcome`).
"""

from __future__ import annotations

import json
import platform
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from aqmlab import _core
from aqmlab import scenario as _scenario
from aqmlab.live import agents, netns, outcome, plan, preflight
from aqmlab.live.session import Bottleneck, Network
from aqmlab.results import Results, _to_arrow
from aqmlab.scenario import Overrides, ScenarioLike

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: Seconds the agents may take beyond the run's duration to report.
GRACE_S = 5.0
#: SCHED_FIFO priority of the bottleneck's packet loop when the machine allows it: on a loaded
#: machine it cuts the loop's lateness about tenfold (see "The bottleneck" in docs/live.md).
REALTIME_PRIORITY = 10


def prepare(
    scenario: ScenarioLike,
    *,
    set: Overrides = None,
    seed: int | None = None,
    cc: str | Mapping[str, str] | None = None,
) -> plan.Plan:
    """The live plan of a scenario, or a ScenarioError naming what live cannot express. Runs
    no packets and needs no privileges (one zero-length simulation gives the per-flow values)."""
    doc, name = _scenario.resolve(scenario, overrides=set, seed=seed)
    live_table = plan.split_live_table(doc)
    if cc is not None:
        live_table["cc"] = cc
    text = _scenario.dumps(doc)
    resolved_toml = _core.validate(text)
    resolved = tomllib.loads(resolved_toml)
    plan.refuse(resolved)
    probe = dict(doc, duration="1ms", warmup="0ms")
    probe.pop("trace", None)
    raw = _core.run(_scenario.dumps(probe))
    per_flow = raw["tables"]["flows"]
    label = str(resolved.get("name") or name)
    return plan.build(doc, resolved, resolved_toml, per_flow, name=label, live_table=live_table)


def bottleneck_config(
    p: plan.Plan, dev_a: str, dev_b: str, trace_path: str | None, realtime: int | None = None
) -> dict[str, Any]:
    """The dataplane's configuration (see LIVE_CONTRACT: the config_json)."""
    one_way = min(f.rtt_ms for f in p.flows) / 2 * 1e6
    return {
        "dev_a": dev_a,
        "dev_b": dev_b,
        "rate_bps": int(p.rate_bps),
        "buffer": p.buffer,
        "qdisc": p.qdisc,
        "ecn": bool(p.qdisc.get("ecn", False)),
        "seed": p.seed,
        "mean_pkt_bytes": p.flows[0].wire_mss,
        "sample_interval_ns": int(p.sample_interval_s * 1e9),
        "warmup_ns": int(p.warmup_s * 1e9),
        "default_delay_ab_ns": int(one_way),
        "default_delay_ba_ns": int(one_way),
        "flows": [
            {
                "id": f.id,
                "proto": "tcp",
                "a_port": f.src_port,
                "b_port": plan.SINK_PORT,
                "delay_ab_ns": int(f.rtt_ms / 2 * 1e6),
                "delay_ba_ns": int(f.rtt_ms / 2 * 1e6),
            }
            for f in p.flows
        ],
        "trace_path": trace_path,
        "realtime_priority": realtime,
    }


def _core_bottleneck(config: dict[str, Any]) -> Bottleneck:
    factory = getattr(_core, "LiveBottleneck", None)
    if factory is None:
        raise preflight.PreflightError(
            "this build of aqmlab has no live bottleneck (aqmlab._core.LiveBottleneck; Linux only)"
        )
    b: Bottleneck = factory(json.dumps(config))
    return b


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM (and SIGHUP) raise KeyboardInterrupt in the main thread while a live run is up,
    so its ``finally`` blocks tear the network down; the previous handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    old = {s: signal.signal(s, interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def live(
    scenario: ScenarioLike,
    *,
    set: Overrides = None,
    seed: int | None = None,
    cc: str | Mapping[str, str] | None = None,
    trace_path: str | None = None,
    make_bottleneck: Callable[[dict[str, Any]], Bottleneck] | None = None,
) -> Results:
    """Runs ``scenario`` live: real kernel TCP in two network namespaces, joined through
    aqmlab's user-space bottleneck running the scenario's qdisc on the wall clock.

    Needs root, ``/dev/net/tun`` and ``ip netns`` (else :class:`PreflightError`, one line).
    ``cc`` picks kernel congestion controls (``"bbr"``, or ``{"group": "cubic"}``) beyond the
    scenario's ``tcp.cc``. What live cannot express is a :class:`aqmlab.ScenarioError` naming
    the key. Takes ``duration`` of wall-clock time plus a few seconds of set-up.
    """
    p = prepare(scenario, set=set, seed=seed, cc=cc)
    preflight.check_access()
    make = make_bottleneck or _core_bottleneck
    with _sigterm_interrupts():
        return _run(p, make, trace_path)


def _run(
    p: plan.Plan, make: Callable[[dict[str, Any]], Bottleneck], trace_path: str | None
) -> Results:
    started = datetime.now(timezone.utc)
    wall0 = time.monotonic()
    procs = []
    ecn_route = any(f.ecn for f in p.flows)
    rt = REALTIME_PRIORITY if preflight.realtime_allowed(REALTIME_PRIORITY) else None
    config: dict[str, Any] = {}

    def build(a: str, b: str) -> Bottleneck:
        config.update(bottleneck_config(p, a, b, trace_path, rt))
        return make(config)

    with Network(build, ecn_route=ecn_route) as net:
        preflight.check_congestion_controls(p.ccs, net.congestion_controls)
        assert net.bottleneck is not None
        bn = net.bottleneck
        try:
            sink = agents.start(net.ns_b, "sink", _sink_config(p))
            procs.append(sink)
            agents.wait_ready(sink, timeout=20.0)
            sender = agents.start(net.ns_a, "sender", _sender_config(p))
            procs.append(sender)
            box: dict[str, BaseException] = {}

            def loop() -> None:
                try:
                    # Exactly the run's duration on the bottleneck's clock: its counters and
                    # utilisation then cover [warmup, duration), as a simulated run's do, not
                    # the agents' wrap-up after it.
                    bn.run(p.duration_s)
                except BaseException as e:  # handed to the main thread
                    box["err"] = e

            worker = threading.Thread(target=loop, name="aqmlab-live-loop", daemon=True)
            worker.start()
            t0 = time.monotonic()
            agents.go(sink, t0)
            agents.go(sender, t0)
            timeout = p.duration_s + GRACE_S + 20.0
            sink_report = agents.collect(sink, timeout)
            sender_report = agents.collect(sender, GRACE_S + 5.0)
            bn.stop()
            # Poll rather than join with a timeout: a Ctrl-C landing inside Thread.join's lock
            # handling can leave that lock in a state the exit path then trips over.
            while worker.is_alive():
                time.sleep(0.05)
            if "err" in box:
                raise box["err"]
            raw = bn.result()
        finally:
            for proc in procs:
                agents.stop(proc)
        wall = time.monotonic() - wall0
        live_info = _live_info(p, raw, sink_report, sender_report, started, wall, net.swept)
        live_info["realtime_priority"] = rt
        # What `_core.live_trace_parity(json.dumps(config), trace_path)` replays the trace with.
        live_info["bottleneck_config"] = config
    summary, rows = outcome.summary(p, raw, sink_report, sender_report, live_info)
    cols = outcome.tables(p, raw, rows)
    res = Results(
        name=p.name,
        summary_json=json.dumps(summary, indent=1, sort_keys=True) + "\n",
        scenario_toml=p.scenario_toml,
        **{name: _to_arrow(c) for name, c in cols.items()},
    )
    from aqmlab import invariants

    invariants.check_summary(res.summary, p.name)
    invariants.check_links(cols["links"], p.name)
    return res


def _sink_config(p: plan.Plan) -> dict[str, Any]:
    return {
        "port": plan.SINK_PORT,
        "duration_s": p.duration_s,
        "bin_s": p.series_bin_s,
        "port_to_flow": {str(f.src_port): f.id for f in p.flows},
    }


def _sender_config(p: plan.Plan) -> dict[str, Any]:
    return {
        "src_addr": netns.ADDR_A,
        "duration_s": p.duration_s,
        "flows": [
            {
                "id": f.id,
                "cc": f.cc,
                "maxseg": f.maxseg,
                "src_port": f.src_port,
                "dst_addr": netns.ADDR_B_ECN if f.ecn else netns.ADDR_B,
                "dst_port": plan.SINK_PORT,
                "start_s": f.start_s,
                "stop_s": p.duration_s,
                "bytes": f.bytes,
            }
            for f in p.flows
        ],
    }


def _live_info(
    p: plan.Plan,
    raw: Mapping[str, Any],
    sink: Mapping[str, Any],
    sender: Mapping[str, Any],
    started: datetime,
    wall_s: float,
    swept: list[str],
) -> dict[str, Any]:
    loop = raw.get("loop", {})
    link = raw.get("link", {})
    errors = [
        f"flow {r.get('id')}: {r['error']}" for r in sender.get("flows", []) if r.get("error")
    ]
    return {
        "mode": "live",
        "kernel": preflight.kernel_release(),
        "machine": platform.machine(),
        "started_utc": started.isoformat(timespec="seconds"),
        "wall_s": round(wall_s, 3),
        "elapsed_s": raw.get("elapsed_ns", 0) / 1e9,
        "cc_by_group": p.cc_by_group(),
        "ecn_by_group": {f.group: f.ecn for f in p.flows},
        "loop": dict(loop),
        "max_late_ms": loop.get("max_late_ns", 0) / 1e6,
        "mean_late_ms": loop.get("mean_late_ns", 0) / 1e6,
        "sojourn_check": dict(raw.get("sojourn_check") or {}),
        "ce_received": int(sink.get("netstat", {}).get("IpExt.InCEPkts", 0)),
        "ece_delivered": sum(
            int((r.get("tcp_info") or {}).get("delivered_ce", 0)) for r in sender.get("flows", [])
        ),
        "other_packets": dict(raw.get("other") or {}),
        # No GSO super-packet reached the bottleneck: its mean arrival fits the MTU.
        "mean_arrival_bytes": link.get("arrival_bytes", 0) / max(int(link.get("arrivals", 0)), 1),
        "not_applied": list(p.not_applied),
        "sender_errors": errors,
        "leftovers_removed": list(swept),
        "trace_path": raw.get("trace_path"),
    }


__all__ = ["bottleneck_config", "live", "prepare"]
