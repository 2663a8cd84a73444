"""``aqmlab live SCENARIO``: the CLI of a live run (the parser's entry and the command).

    aqmlab live SCENARIO.toml [--set ...] [--seed N] [--cc NAME] [--out DIR] [--twin] [--json]

Writes the run's results as ``aqmlab run`` does (summary.json, Parquet, plots, report.html);
with ``--twin`` also runs the same scenario simulated and writes both, with a comparison, as
``aqmlab compare`` does (``DIR/live``, ``DIR/sim``, ``DIR/comparison.*``). Exit status 2 when
the machine lacks something (root, TUN, netns, a congestion control) or the scenario holds a
key live cannot express, each said in one line; 1 when the run itself fails.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIT_USAGE = 2
EXIT_FAILED = 1


def add_parser(sub: Any) -> None:
    p = sub.add_parser("live", help="run a scenario with real Linux TCP through the bottleneck")
    p.set_defaults(func=main)
    p.add_argument("scenario", type=Path, metavar="SCENARIO.toml")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a key by dotted path (as aqmlab run); repeatable",
    )
    p.add_argument("--seed", type=int, default=None, help="replace the scenario's seed")
    p.add_argument(
        "--cc",
        default=None,
        metavar="NAME",
        help="kernel congestion control for every flow (reno, cubic, bbr, ...)",
    )
    p.add_argument(
        "--out", type=Path, default=None, help="results directory (default: results/<stem>-live)"
    )
    p.add_argument(
        "--twin",
        action="store_true",
        help="also run the scenario simulated and write both side by side",
    )
    p.add_argument(
        "--trace",
        default=None,
        metavar="FILE",
        help="record the bottleneck's per-packet decisions (for aqmlab replay)",
    )
    p.add_argument("--json", action="store_true", help="print only the summary JSON")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--force", action="store_true", help="replace --out even if not aqmlab's")


def main(args: argparse.Namespace) -> int:
    from aqmlab import output
    from aqmlab.live import agents, netns, preflight
    from aqmlab.live.run import live

    out = args.out if args.out is not None else Path("results") / f"{args.scenario.stem}-live"
    output.check_destination(out, force=args.force)
    try:
        res = live(
            args.scenario, set=args.overrides, seed=args.seed, cc=args.cc, trace_path=args.trace
        )
    except preflight.PreflightError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (agents.AgentError, netns.NetnsError) as e:
        print(f"error: live run failed: {' '.join(str(e).split())}", file=sys.stderr)
        return EXIT_FAILED
    if args.twin:
        _write_twin(args, res, out)
    else:
        res.write(out, plots=not args.no_plots, force=args.force)
    if args.json:
        sys.stdout.write(res.summary_json.rstrip("\n") + "\n")
        return 0
    from rich.console import Console
    from rich.table import Table

    from aqmlab import report
    from aqmlab.live import page

    report.print_summary(res.summary, title=f"{args.scenario.name} (live)", out_dir=out)
    t = Table(title="live", show_header=False)
    for k, v in page.facts(res.summary.get("live") or {}):
        t.add_row(k, v)
    Console().print(t)
    return 0


def _write_twin(args: argparse.Namespace, res: Any, out: Path) -> None:
    """The simulated twin (same scenario, overrides and seed) and the comparison of both."""
    import pandas as pd

    from aqmlab import api, compare
    from aqmlab import scenario as _scenario

    doc, _ = _scenario.resolve(args.scenario, overrides=args.overrides, seed=args.seed)
    doc.pop("live", None)
    sim = api.run(doc)
    runs = {"live": res, "sim": sim}
    table = pd.DataFrame(
        [compare.summary_row(n, r) for n, r in runs.items()], columns=list(compare.COLUMNS)
    )
    compare.write(out, table, runs, plots=not args.no_plots)


__all__ = ["add_parser", "main"]
