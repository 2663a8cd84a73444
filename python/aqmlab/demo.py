"""``python -m aqmlab.demo`` (what ``make demo`` runs): DropTail vs RED vs gentle RED.

Runs the package's demo scenarios (``aqmlab examples``: droptail, red, gred; in the repository
also ``scenarios/demo/``) (30 TCP flows, base RTTs 20-310 ms, a 10 Mbps / 5 ms
bottleneck with a 100-packet buffer, 150 s with 30 s warm-up) side by side and writes each run's
results, ``comparison.csv``, ``comparison.md`` and ``comparison.png`` under ``results/demo/``.

A scenario whose algorithm this build does not have is skipped with a note instead of failing
the whole demo.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from aqmlab import api, report
from aqmlab import compare as _compare
from aqmlab import example_scenarios as examples
from aqmlab import scenario as _scenario
from aqmlab._core import ScenarioError


def available(paths: Sequence[Path]) -> list[Path]:
    """The scenarios whose ``bottleneck.qdisc.kind`` this build implements."""
    kinds = {a["kind"] for a in api.algorithms()}
    keep = []
    for p in paths:
        kind = _scenario.load(p).get("bottleneck", {}).get("qdisc", {}).get("kind", "droptail")
        if kind in kinds:
            keep.append(p)
        else:
            print(f"note: skipping {p}: algorithm {kind!r} is not in this build", file=sys.stderr)
    return keep


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m aqmlab.demo", description=__doc__)
    parser.add_argument(
        "--dir",
        type=Path,
        default=examples.demo_dir(),
        help="directory of scenarios to compare (default: the package's demo scenarios)",
    )
    parser.add_argument("--out", type=Path, default=Path("results/demo"))
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    paths = available(sorted(args.dir.glob("*.toml")))
    if not paths:
        print(f"error: {args.dir}: no runnable scenarios", file=sys.stderr)
        return 2
    try:
        table, _ = _compare.compare(paths, set=args.overrides, out=args.out)
    except ScenarioError as e:
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    report.print_comparison(table, out_dir=args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
