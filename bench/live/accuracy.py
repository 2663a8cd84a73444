"""Rate and delay accuracy of the live path, as docs/live.md reports them.

    sudo .venv/bin/python bench/live/accuracy.py [--seconds 20]

1. One bulk TCP flow (CUBIC) through a DropTail bottleneck at 10 and at 100 Mbps: the
   bottleneck's utilisation and the receiver's goodput against the rate.
2. ``ping`` across an idle path with a configured RTT of 20 ms and 100 ms (the bottleneck's
   default delays, which packets of no flow get): measured RTTs against the configured one.
3. The bottleneck's sojourn check: mean sojourn against mean queue bytes over the rate.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import threading

from aqmlab.live import live, netns
from aqmlab.live.preflight import realtime_allowed
from aqmlab.live.run import REALTIME_PRIORITY, _core_bottleneck
from aqmlab.live.session import Bottleneck, Network

#: ICMP echo from a raw socket (no iputils-ping needed): prints one RTT in ms per answer.
PING = """
import os, socket, struct, sys, time
dst, n = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.settimeout(2.0)
def csum(b):
    t = sum(struct.unpack(f"!{len(b) // 2}H", b))
    t = (t >> 16) + (t & 0xFFFF)
    return ~(t + (t >> 16)) & 0xFFFF
for seq in range(n):
    body = struct.pack("!HH", os.getpid() & 0xFFFF, seq) + bytes(56)
    pkt = struct.pack("!BBH", 8, 0, csum(b"\\x08\\x00\\x00\\x00" + body)) + body
    t = time.monotonic()
    s.sendto(pkt, (dst, 0))
    try:
        while True:
            data = s.recv(2048)
            if data[20] == 0 and data[26:28] == struct.pack("!H", seq):
                print(f"{(time.monotonic() - t) * 1e3:.3f}", flush=True)
                break
    except TimeoutError:
        pass
    time.sleep(0.2)
"""


def bulk(rate_mbps: int, seconds: float) -> None:
    doc = {
        "name": f"one flow at {rate_mbps} Mbps",
        "duration": f"{seconds}s",
        "warmup": "5s",
        "bottleneck": {"rate": f"{rate_mbps}Mbps", "delay": "5ms", "buffer": 200},
        "flows": [{"count": 1, "access_delay": "5ms", "tcp": {"mss": 1500, "cc": "cubic"}}],
    }
    s = live(doc).summary
    lv = s["live"]
    wire = s["flows"][0]["goodput_mbps"]
    print(
        f"{rate_mbps} Mbps: utilisation {s['utilisation']:.4f}, receiver goodput (wire bytes) "
        f"{wire:.3f} Mbps = {wire / rate_mbps:.4f} of the rate; loop late max "
        f"{lv['max_late_ms']:.3f} ms mean {lv['mean_late_ms']:.4f} ms, loop CPU "
        f"{lv['loop'].get('cpu_s', 0):.2f} s over {lv['elapsed_s']:.1f} s; sojourn "
        f"{lv['sojourn_check']}"
    )


def ping(rtt_ms: float, count: int) -> None:
    cfg = {
        "rate_bps": 100_000_000,
        "buffer": 100,
        "qdisc": {"kind": "droptail"},
        "ecn": False,
        "seed": 1,
        "mean_pkt_bytes": 1500,
        "sample_interval_ns": 20_000_000,
        "warmup_ns": 0,
        "default_delay_ab_ns": int(rtt_ms / 2 * 1e6),
        "default_delay_ba_ns": int(rtt_ms / 2 * 1e6),
        "flows": [],
        "trace_path": None,
        "realtime_priority": REALTIME_PRIORITY if realtime_allowed(REALTIME_PRIORITY) else None,
    }

    def make(a: str, b: str) -> Bottleneck:
        return _core_bottleneck({**cfg, "dev_a": a, "dev_b": b})

    with Network(make, ecn_route=False) as net:
        assert net.bottleneck is not None
        bn = net.bottleneck
        worker = threading.Thread(target=bn.run, args=(count * 0.2 + 10,), daemon=True)
        worker.start()
        out = subprocess.run(
            ["ip", "netns", "exec", net.ns_a, sys.executable, "-c", PING, netns.ADDR_B, str(count)],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        bn.stop()
        worker.join()
    rtts = [float(x) for x in out.split()]
    if not rtts:
        print(f"ping {rtt_ms} ms: no answer")
        return
    avg = statistics.fmean(rtts)
    print(
        f"ping, configured RTT {rtt_ms} ms: {len(rtts)}/{count} answered, min {min(rtts):.3f} "
        f"mean {avg:.3f} max {max(rtts):.3f} ms (mean - configured = {avg - rtt_ms:+.3f} ms)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    args = ap.parse_args()
    for rate in (10, 100):
        bulk(rate, args.seconds)
    for rtt in (20.0, 100.0):
        ping(rtt, 20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
