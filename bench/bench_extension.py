"""Bottleneck packets per CPU-second of the simulator core as users run it: the installed
extension (``aqmlab._core``, profile-guided when ``make setup`` could build it so), timed around
``_core.run`` alone (parse, simulate, summarise; no Python result objects, no files).

``make bench`` prints this beside the plain ``bench`` example, which stays the figure comparable
with earlier rows of docs/performance.md.
``python bench/bench_extension.py SCENARIO.toml [REPEATS]``
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

# As the CLI does (aqmlab/cli.py): otherwise numpy's OpenBLAS threads, started when the first
# result table is built, busy-wait on the other core and their CPU lands in process_time().
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from aqmlab import _core


def bottleneck_packets(raw: dict) -> int:
    links = raw["tables"]["links"]
    roles = list(links["role"])
    at = roles.index("bottleneck") if "bottleneck" in roles else 0
    return int(links["arrivals"][at])


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    path = Path(argv[0])
    repeats = int(argv[1]) if len(argv) > 1 else 3
    text = path.read_text()
    best = float("inf")
    packets = 0
    for i in range(repeats):
        c0 = time.process_time()
        raw = _core.run(text)
        cpu = time.process_time() - c0
        packets = bottleneck_packets(raw)
        best = min(best, cpu)
        print(f"extension run {i}: cpu {cpu:.3f} s | {packets} bottleneck packets")
    print(
        f"extension best: cpu {best:.3f} s, {packets / best / 1e6:.2f} M bottleneck packets "
        f"per cpu-s ({path})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
