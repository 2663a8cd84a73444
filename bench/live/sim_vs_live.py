"""The sim-vs-live table of docs/live.md: the same scenarios run live (kernel TCP through the
user-space bottleneck) and simulated (aqmlab's TCP with the matching congestion control).

    sudo .venv/bin/python bench/live/sim_vs_live.py [--duration 20] [--warmup 5] [--out F.csv]

Grid: DropTail, RED, self-configuring RED, CoDel, PIE, FQ-CoDel, rate-based GREEN at 10 Mbps
(100-packet buffer, each algorithm's defaults), 8 and 32 flows, equal (40 ms) and mixed
(30-210 ms) base RTTs, Reno and CUBIC: 56 live runs of ``duration`` seconds each. The simulated
twin uses SACK recovery and delayed ACKs (what Linux does) and CUBIC's Linux-style
Reno-friendly estimate. Prints a Markdown table (live / sim in each cell) and writes every
number as CSV.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from aqmlab import api
from aqmlab.live import live, preflight

QDISCS = ["droptail", "red", "self_config_red", "codel", "pie", "fq_codel", "green_rate"]
FLOWS = [8, 32]
RTTS = {"equal": "10ms", "mixed": {"linear": ["5ms", "95ms"]}}
CCS = ["reno", "cubic"]


def scenario(q: str, n: int, rtt: str, cc: str, duration: float, warmup: float) -> dict:
    tcp: dict[str, Any] = {"mss": 1500, "cc": cc, "variant": "sack", "delayed_ack": True}
    if cc == "cubic":
        tcp["cubic_friendly"] = "linux"
    return {
        "name": f"{q} {n} flows {rtt} RTT {cc}",
        "seed": 1,
        "duration": f"{duration}s",
        "warmup": f"{warmup}s",
        "bottleneck": {"rate": "10Mbps", "delay": "10ms", "buffer": 100, "qdisc": {"kind": q}},
        "flows": [
            {
                "count": n,
                "access_delay": RTTS[rtt],
                "start": {"uniform": ["0s", "1s"]},
                "tcp": tcp,
            }
        ],
    }


def metrics(s: dict[str, Any]) -> dict[str, float]:
    arrivals = max(int(s["arrivals"]), 1)
    return {
        "util": float(s["utilisation"]),
        "loss_mark": (sum(s["drops"].values()) + int(s["marks"])) / arrivals,
        "queue": float(s["queue_pkts"]["mean"]),
        "jain": float(s["jain_index"]),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--warmup", type=float, default=5.0)
    ap.add_argument("--out", type=Path, default=Path("/tmp/aqmlab-sim-vs-live.csv"))
    ap.add_argument("--only", default=None, help="comma-separated qdiscs (default: all)")
    args = ap.parse_args()
    qdiscs = args.only.split(",") if args.only else QDISCS
    rows = []
    t0 = time.monotonic()
    for q in qdiscs:
        for n in FLOWS:
            for rtt in RTTS:
                for cc in CCS:
                    doc = scenario(q, n, rtt, cc, args.duration, args.warmup)
                    lv = live(doc).summary
                    sim = api.run(doc).summary
                    row = {"qdisc": q, "flows": n, "rtt": rtt, "cc": cc}
                    row |= {f"live_{k}": v for k, v in metrics(lv).items()}
                    row |= {f"sim_{k}": v for k, v in metrics(sim).items()}
                    row["late_max_ms"] = lv["live"]["max_late_ms"]
                    rows.append(row)
                    print(row, file=sys.stderr, flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(args.out, index=False)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    print(
        f"{datetime.now(timezone.utc):%Y-%m-%d}, commit {commit}, Linux "
        f"{preflight.kernel_release()}, {len(df)} scenarios x {args.duration:g} s "
        f"(measured after {args.warmup:g} s), {time.monotonic() - t0:.0f} s in all\n"
    )
    print("| qdisc | flows | RTTs | cc | utilisation | loss+mark rate | mean queue (pkts) | Jain |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        cells = [
            f"{r['live_util']:.3f} / {r['sim_util']:.3f}",
            f"{r['live_loss_mark']:.4f} / {r['sim_loss_mark']:.4f}",
            f"{r['live_queue']:.1f} / {r['sim_queue']:.1f}",
            f"{r['live_jain']:.3f} / {r['sim_jain']:.3f}",
        ]
        print(
            f"| {r['qdisc']} | {r['flows']} | {r['rtt']} | {r['cc']} | " + " | ".join(cells) + " |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
