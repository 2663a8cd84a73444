"""Accuracy and capacity of the live bottleneck with real kernel TCP (root + TUN needed).

    .venv/bin/python bench/live_bottleneck.py [--quick] [--rt PRIORITY]
        [--only rtt,rate,parity,capacity]

Prints one JSON object per measurement (the figures of docs/live.md, "The bottleneck"):
- ``rate``: one bulk TCP flow (CUBIC) through DropTail at 10 and 100 Mbps: the bottleneck's
  IP-level throughput over the measured window against the configured rate, and the
  receiver's goodput;
- ``rtt``: ICMP echo round trips (kernel receive timestamps) through the idle path against
  the configured RTT;
- in each ``rate`` run: the mean sojourn of departed packets against the time-average queue in
  bytes over the rate, and the extra RTT of pings that queue behind the bulk flow;
- ``parity``: four kernel Reno flows with ECN through RED with ECN; the run's trace replayed
  with the same seed, decision by decision;
- ``capacity``: the highest rate the bottleneck forwards (configured at 10 Gbps, so it never
  limits): Mbps, packets/s and the packet loop's CPU.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import live_netns as ln
from aqmlab import _core


def flows(delay_ns: int) -> list[dict[str, Any]]:
    return [
        {
            "id": 0,
            "proto": "tcp",
            "a_port": 40000,
            "b_port": 5001,
            "delay_ab_ns": delay_ns,
            "delay_ba_ns": delay_ns,
        }
    ]


def base(rate_bps: int, buffer: int, delay_ns: int, rt: int | None) -> dict[str, Any]:
    """DropTail at ``rate_bps``; ``delay_ns`` each way for the TCP flow and for ICMP."""
    return {
        "rate_bps": rate_bps,
        "buffer": buffer,
        "qdisc": {"kind": "droptail"},
        "mean_pkt_bytes": 1500,
        "default_delay_ab_ns": delay_ns,
        "default_delay_ba_ns": delay_ns,
        "flows": flows(delay_ns),
        "realtime_priority": rt,
    }


def bulk(rate_bps: int, buffer: int, seconds: float, rt: int | None) -> dict[str, Any]:
    """One CUBIC flow; the bottleneck measures [warm-up, warm-up + seconds], all of it while
    the sender sends; ICMP pings queue behind the flow meanwhile."""
    warm = 2.0
    cfg = {**base(rate_bps, buffer, 10_000_000, rt), "warmup_ns": int(warm * 1e9)}
    with ln.bed(cfg) as bed:
        sink = bed.exec_b(ln.SINK, "5001", str(warm + seconds + 2))
        time.sleep(0.3)
        loop = bed.run(warm + seconds)
        sender = bed.exec_a(ln.SENDER, "5001", "40000", str(warm + seconds + 1), "cubic")
        time.sleep(warm)
        ping = bed.exec_a(ln.PING, str(int(seconds * 4)), "0.2")
        loop.join()
        r = bed.bottleneck.result()
        rtts = json.loads(ping.communicate(timeout=120)[0] or "[]")
        sender.wait(timeout=60)
        sink.kill()
    window_s = (r["elapsed_ns"] - r["warmup_ns"]) / 1e9
    link = r["link"]
    base_rtt = 20.0 + 84 * 8 / rate_bps * 1e3
    return {
        "rate_mbps": rate_bps / 1e6,
        "buffer_pkts": buffer,
        "window_s": round(window_s, 3),
        "ip_throughput_over_rate": round(link["departure_bytes"] * 8 / window_s / rate_bps, 4),
        "busy_fraction": round(link["utilisation"], 4),
        "flow_bytes_ab_mbps": round(r["flows"]["bytes_ab"][0] * 8 / window_s / 1e6, 3),
        "drops": link["drops"],
        "sojourn_ms": r["sojourn_ms"],
        "sojourn_check": r["sojourn_check"],
        "ping_queueing_ms": {
            "n": len(rtts),
            "mean": round(statistics.mean(rtts) - base_rtt, 3) if rtts else None,
        },
        "loop": r["loop"],
    }


def idle_rtt(n: int, rt: int | None) -> dict[str, Any]:
    with ln.bed(base(10_000_000, 100, 10_000_000, rt)) as bed:
        loop = bed.run(n * 0.02 + 30)
        time.sleep(0.2)
        p = bed.exec_a(ln.PING, str(n), "0.02")
        rtts = json.loads(p.communicate(timeout=120)[0])
        bed.bottleneck.stop()
        loop.join()
        r = bed.bottleneck.result()
    # 10 ms each way, plus the 84-byte request's serialisation at 10 Mbps (a→b only).
    want = 20.0 + 84 * 8 / 10e6 * 1e3
    err = [x - want for x in rtts]
    return {
        "configured_ms": round(want, 4),
        "n": len(rtts),
        "mean_error_ms": round(statistics.mean(err), 4),
        "median_error_ms": round(statistics.median(err), 4),
        "max_abs_error_ms": round(max(abs(e) for e in err), 4),
        "within_1ms": sum(abs(e) <= 1.0 for e in err),
        "loop": r["loop"],
    }


def capacity(seconds: float, n_flows: int, rt: int | None) -> dict[str, Any]:
    """iperf3 (or Python senders without it) through an unlimiting 10 Gbps bottleneck."""
    cfg = {**base(10_000_000_000, 2000, 1_000_000, rt), "warmup_ns": 1_000_000_000}
    cfg["flows"] = []
    iperf = shutil.which("iperf3")
    with ln.bed(cfg) as bed:
        loop = bed.run(seconds + 1.5)
        if iperf:
            server = ln._spawn_cmd(bed.ns_b, [iperf, "-s", "-1", "-B", ln.ADDR_B])
            time.sleep(0.5)
            client = ln._spawn_cmd(
                bed.ns_a,
                [iperf, "-c", ln.ADDR_B, "-t", str(seconds + 2), "-P", str(n_flows), "-C", "cubic"],
            )
            loop.join()
            r = bed.bottleneck.result()
            client.kill()
            server.kill()
        else:
            sinks = [bed.exec_b(ln.SINK, str(5001 + i), str(seconds)) for i in range(n_flows)]
            time.sleep(0.3)
            senders = [
                bed.exec_a(ln.SENDER, str(5001 + i), str(40000 + i), str(seconds + 2), "cubic")
                for i in range(n_flows)
            ]
            loop.join()
            r = bed.bottleneck.result()
            for p in sinks + senders:
                p.kill()
    window_s = (r["elapsed_ns"] - r["warmup_ns"]) / 1e9
    link = r["link"]
    pkts = link["departures"] + r["other"]["pkts_ba"]
    return {
        "sender": "iperf3" if iperf else "python",
        "flows": n_flows,
        "window_s": round(window_s, 3),
        "mbps": round(link["departure_bytes"] * 8 / window_s / 1e6, 1),
        "data_pkts_per_s": round(link["departures"] / window_s),
        "ack_pkts_per_s": round(r["other"]["pkts_ba"] / window_s),
        "loop_cpu_fraction": round(r["loop"]["cpu_s"] / (r["elapsed_ns"] / 1e9), 3),
        "loop_us_per_pkt": round(
            r["loop"]["cpu_s"] / max(pkts, 1) * 1e6 * window_s / (r["elapsed_ns"] / 1e9), 2
        ),
        "drops": link["drops"],
        "loop": r["loop"],
    }


def parity(seconds: float, n_flows: int, rt: int | None) -> dict[str, Any]:
    """Kernel Reno with ECN, ``n_flows`` bulk flows through RED with ECN at 10 Mbps; the
    run's trace replayed with the same seed: how many decisions differ."""
    import tempfile

    trace = Path(tempfile.mkdtemp(prefix="aqmlab-live-")) / "trace.csv"
    cfg = {
        **base(10_000_000, 100, 10_000_000, rt),
        "qdisc": {"kind": "red", "min_th": 5, "max_th": 15},
        "ecn": True,
        "seed": 4,
        "trace_path": str(trace),
        "flows": [
            {
                "id": i,
                "proto": "tcp",
                "a_port": 40000 + i,
                "b_port": 5001 + i,
                "delay_ab_ns": 5_000_000 * (i + 1),
                "delay_ba_ns": 5_000_000,
            }
            for i in range(n_flows)
        ],
    }
    with ln.bed(cfg, ecn=True) as bed:
        sinks = [bed.exec_b(ln.SINK, str(5001 + i), str(seconds + 3)) for i in range(n_flows)]
        time.sleep(0.3)
        loop = bed.run(seconds)
        senders = [
            bed.exec_a(ln.SENDER, str(5001 + i), str(40000 + i), str(seconds + 1), "reno")
            for i in range(n_flows)
        ]
        loop.join()
        r = bed.bottleneck.result()
        for p in sinks + senders:
            p.kill()
    t0 = time.monotonic()
    check = _core.live_trace_parity(json.dumps(bed.config), str(trace))
    took = time.monotonic() - t0
    shutil.rmtree(trace.parent)
    return {
        "flows": n_flows,
        "seconds": seconds,
        "arrivals": r["link"]["arrivals"],
        "marks": r["link"]["marks"],
        "drops": r["link"]["drops"],
        "utilisation": round(r["link"]["utilisation"], 4),
        "parity": check,
        "replay_s": round(took, 2),
    }


def main() -> None:
    why = ln.missing()
    if why:
        print(why)
        sys.exit(2)
    quick = "--quick" in sys.argv
    secs = 4.0 if quick else 8.0
    # --rt N: the packet loop runs SCHED_FIFO at priority N (config key realtime_priority).
    rt = int(sys.argv[sys.argv.index("--rt") + 1]) if "--rt" in sys.argv else None
    only = (
        sys.argv[sys.argv.index("--only") + 1]
        if "--only" in sys.argv
        else "rtt,rate,parity,capacity"
    )
    print(json.dumps({"load_avg_1min": os.getloadavg()[0], "cpus": os.cpu_count(), "rt": rt}))
    if "rtt" in only:
        print(json.dumps({"rtt": idle_rtt(100 if quick else 300, rt)}))
    if "rate" in only:
        print(json.dumps({"rate": bulk(10_000_000, 100, secs, rt)}))
        print(json.dumps({"rate": bulk(100_000_000, 500, secs, rt)}))
    if "parity" in only:
        print(json.dumps({"parity": parity(secs, 4, rt)}))
    if "capacity" in only:
        for n in (1, 4):
            print(json.dumps({"capacity": capacity(secs, n, rt)}))
    print(json.dumps({"load_avg_1min": os.getloadavg()[0]}))


if __name__ == "__main__":
    main()
