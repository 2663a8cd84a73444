"""Times the full experiment 1 of paper 000 (the target: under 10 minutes on a 2-core machine).

``python -m aqmlab.papers.timing [--tcp reno|sack] [--out DIR] [--workers N]``: 35 runs (7 values
of N x 5 algorithms, 180 simulated seconds each at 155 Mbps) into a fresh directory, then the wall
time. A separate module so that ``python -m`` does not re-import a reproduction module the
``aqmlab.papers`` package has already imported.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from aqmlab.papers import green_tcp_000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tcp", choices=[green_tcp_000.PAPER_TCP, green_tcp_000.SACK_TCP])
    ap.add_argument("--out", default="results/reproduce/green_tcp_000_exp1_timing")
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args(argv)
    out = Path(args.out)
    shutil.rmtree(out, ignore_errors=True)  # time real runs, not the cache
    tcp = args.tcp or green_tcp_000.PAPER_TCP
    seconds, n, cached = green_tcp_000.time_experiment1(out, workers=args.workers, tcp=tcp)
    print(f"experiment 1 ({tcp}): {seconds:.1f} s wall for {n} runs ({cached} from the cache)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
