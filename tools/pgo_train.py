"""Training runs for the profile-guided build of the extension (``tools/pgo.sh``).

Runs, through the instrumented extension, a spread of what users run: the demo's DropTail
(Reno and SACK), RED and gentle RED, a CoDel, an FQ-CoDel and a PIE bottleneck, the
parking-lot topology, and paper scenarios with ns-2's TCP agents: RED with ECN, and paper 000's
GREEN-TCP reproduction (most of ``aqmlab reproduce all``'s CPU) as it runs it: 400 flows at
155 Mbps behind each of its main queues (GREEN-Embedded, GREEN-IDMaps, FRED, SFB in both bin
layouts, DropTail), and its Pareto on/off and 56 kbps traffic beside them. Each is shortened
so that the whole set takes a few seconds. The benchmark dumbbells (bench/scenarios/) are
deliberately not in the set, so that ``make bench``'s figure for the profile-guided extension
is not measured on its own training data. The profile only steers the compiler (inlining,
block layout); results are the same with or without it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import aqmlab
from aqmlab.papers import green_tcp_000

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
    # RED with ECN and ns-2's TCP agents (`tcp.model = "ns2"`).
    (
        "python/aqmlab/data/papers/adaptive_red_004/red_ecn.toml",
        {"duration": "30s", "warmup": "10s"},
    ),
]

# Paper 000's points as the reproduction builds them (experiment, queue, N, set-up choice),
# cut to TRAIN_S simulated seconds: past the flows' start-up, into the steady state that
# fills the 180-second runs.
PAPER_000 = [
    (1, "green_embedded", 400, green_tcp_000.PAPER_SETUP),
    (1, "green_idmaps", 400, green_tcp_000.PAPER_SETUP),
    (1, "fred", 400, green_tcp_000.PAPER_SETUP),
    (1, "sfb", 400, green_tcp_000.PAPER_SETUP),
    (1, "sfb", 400, "sfb-linux-bins"),
    (1, "droptail", 400, green_tcp_000.PAPER_SETUP),
    (2, "green_embedded", 400, green_tcp_000.PAPER_SETUP),
    (3, "green_idmaps", 250, green_tcp_000.PAPER_SETUP),
]
TRAIN_S = 10


def main() -> int:
    for path, overrides in RUNS:
        results = aqmlab.run(ROOT / path, set=overrides)
        print(f"pgo training: {path} {overrides or ''}: {len(results.flows)} flows", flush=True)
    for experiment, queue, n, setup in PAPER_000:
        p = green_tcp_000.point(experiment, queue, n, quick=False, setup=setup)
        results = aqmlab.run(p.scenario, set={"duration": f"{TRAIN_S}s"})
        print(
            f"pgo training: paper 000 experiment {experiment}, {queue}, N = {n}, {setup}: "
            f"{len(results.flows)} flows",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
