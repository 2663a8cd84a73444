"""Training runs for the profile-guided build of the extension (``tools/pgo.sh``).

Runs, through the instrumented extension, a spread of what users run: the benchmark dumbbells
(DropTail, NewReno and SACK), the demo's RED and gentle RED, a CoDel, an FQ-CoDel and a PIE
bottleneck, and the parking-lot topology, each shortened so that the whole set takes a few
seconds. The profile only steers the compiler (inlining, block layout); results are the
same with or without it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import aqmlab

ROOT = Path(__file__).resolve().parent.parent

# (scenario file, overrides)
RUNS: list[tuple[str, dict[str, object]]] = [
    ("bench/scenarios/dumbbell_155mbps_100flows.toml", {"duration": "20s", "warmup": "5s"}),
    ("bench/scenarios/dumbbell_155mbps_400flows.toml", {"duration": "15s", "warmup": "5s"}),
    (
        "bench/scenarios/dumbbell_155mbps_100flows.toml",
        {"duration": "15s", "warmup": "5s", "flows.0.tcp.variant": "sack"},
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
]


def main() -> int:
    for path, overrides in RUNS:
        results = aqmlab.run(ROOT / path, set=overrides)
        print(f"pgo training: {path} {overrides or ''}: {len(results.flows)} flows", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
