"""The ``aqmlab`` command line.

    aqmlab run SCENARIO.toml [--set key.path=value ...] [--seed N] [--out DIR] [--json]
    aqmlab validate SCENARIO.toml [--set ...] [--seed N]
    aqmlab algorithms [--json]
    aqmlab compare A.toml B.toml ... [--set ...] [--seed N] [--out DIR] [--jobs N]

A rejected scenario prints one line, ``error: <path>: <value> (<allowed>)``, on stderr and exits
with status 2, writing no result files.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aqmlab import __version__, api
from aqmlab._core import ScenarioError

EXIT_USAGE = 2


def _add_scenario_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a key by dotted path, list indices allowed: flows.0.count=64, "
        "bottleneck.qdisc.max_p=0.05 (value read as TOML, else as a string); repeatable",
    )
    p.add_argument("--seed", type=int, default=None, help="replace the scenario's seed")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aqmlab",
        description="aqmlab: a laboratory for active queue management.",
    )
    parser.add_argument("--version", action="version", version=f"aqmlab {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("run", help="run one scenario, print its summary and write its results")
    p.add_argument("scenario", type=Path, metavar="SCENARIO.toml")
    _add_scenario_options(p)
    p.add_argument(
        "--out", type=Path, default=None, help="results directory (default: results/<stem>)"
    )
    p.add_argument("--json", action="store_true", help="print only the summary JSON")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")

    p = sub.add_parser("validate", help="check a scenario and print it with every default")
    p.add_argument("scenario", type=Path, metavar="SCENARIO.toml")
    _add_scenario_options(p)

    p = sub.add_parser("algorithms", help="list every AQM algorithm, its parameters and source")
    p.add_argument("--json", action="store_true", help="print the list as JSON")

    p = sub.add_parser("compare", help="run several scenarios and compare them side by side")
    p.add_argument("scenarios", type=Path, nargs="+", metavar="SCENARIO.toml")
    _add_scenario_options(p)
    p.add_argument(
        "--out", type=Path, default=Path("results/compare"), help="(default: results/compare)"
    )
    p.add_argument("--jobs", type=int, default=None, help="runs in parallel (default: cores)")
    p.add_argument("--json", action="store_true", help="print the comparison table as JSON")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "run":
            return cmd_run(args)
        if args.command == "validate":
            return cmd_validate(args)
        if args.command == "algorithms":
            return cmd_algorithms(args)
        if args.command == "compare":
            return cmd_compare(args)
    except ScenarioError as e:
        message = " ".join(str(e).split())  # one line, whatever the message held
        print(f"error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    raise AssertionError(f"unhandled command {args.command}")  # pragma: no cover


def cmd_run(args: argparse.Namespace) -> int:
    res = api.run(args.scenario, set=args.overrides, seed=args.seed)
    out = args.out if args.out is not None else Path("results") / args.scenario.stem
    res.write(out, plots=not args.no_plots)
    if args.json:
        sys.stdout.write(res.summary_json.rstrip("\n") + "\n")
        return 0
    from aqmlab import report

    report.print_summary(res.summary, title=f"{args.scenario.name}", out_dir=out)
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    sys.stdout.write(api.validate(args.scenario, set=args.overrides, seed=args.seed))
    return 0


def cmd_algorithms(args: argparse.Namespace) -> int:
    algos = api.algorithms()
    if args.json:
        print(json.dumps(algos, indent=2))
        return 0
    from aqmlab import report

    report.print_algorithms(algos)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from aqmlab import compare, report

    table, _ = compare.compare(
        args.scenarios,
        set=args.overrides,
        seed=args.seed,
        out=args.out,
        jobs=args.jobs,
        plots=not args.no_plots,
    )
    if args.json:
        rows: list[dict[str, Any]] = table.to_dict(orient="records")
        print(json.dumps(rows, indent=2))
        return 0
    report.print_comparison(table, out_dir=args.out)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
