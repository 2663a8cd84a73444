"""Training runs for the profile-guided build of the extension (``tools/pgo.sh``).

Runs, through the instrumented extension, a spread of what users run: the demo's DropTail
(Reno and SACK), RED and gentle RED, a CoDel, an FQ-CoDel and a PIE bottleneck, the
parking-lot topology, and two paper scenarios (GREEN-TCP with 200 flows, RED with ECN, both with
ns-2's TCP agents), each shortened so that the whole set takes a few seconds. The
benchmark dumbbells (bench/scenarios/) are deliberately not in the set, so that ``make
bench``'s figure for the profile-guided extension is not measured on its own training data.
The profile only steers the compiler (inlining, block layout); results are the same with or
without it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import aqmlab

ROOT = Path(__file__).resolve().parent.parent

# (scenario file, overrides)
RUNS: list[tuple[str, dict[str, object]]] = [
    ("scenarios/demo/droptail.toml", {"duration": "60s", "warmup": "10s"}),
    (
        "scenarios/demo/droptail.toml",
        {"duration": "40s", "warmup": "10s", "flows.0.tcp.variant": "sack"},
    ),
    ("scenarios/demo/red.toml", {"duration": "40s", "warmup": "10s"}),
    ("scenarios/demo/gred.toml", {"duration": "40s", "warmup": "10s"}),
    (
        "scenarios/demo/droptail.toml",
        {"duration": "40s", "warmup": "10s", "bottleneck.qdisc.kind": "codel"},
    ),
    (
        "scenarios/demo/droptail.toml",
        {"duration": "40s", "warmup": "10s", "bottleneck.qdisc.kind": "fq_codel"},
    ),
    (
        "scenarios/demo/droptail.toml",
        {"duration": "40s", "warmup": "10s", "bottleneck.qdisc.kind": "pie"},
    ),
    ("scenarios/examples/parking_lot.toml", {}),
    # The paper scenarios' paths: ns-2's TCP agents (`tcp.model = "ns2"`), GREEN-TCP with
    # hundreds of flows, RED with ECN.
    (
        "python/aqmlab/data/papers/green_tcp_000/exp1.toml",
        {"duration": "15s", "flows.0.count": 200},
    ),
    (
        "python/aqmlab/data/papers/adaptive_red_004/red_ecn.toml",
        {"duration": "30s", "warmup": "10s"},
    ),
]


def main() -> int:
    for path, overrides in RUNS:
        results = aqmlab.run(ROOT / path, set=overrides)
        print(f"pgo training: {path} {overrides or ''}: {len(results.flows)} flows", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
