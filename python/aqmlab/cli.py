"""The ``aqmlab`` command line.

    aqmlab run SCENARIO.toml [--set key.path=value ...] [--seed N] [--out DIR] [--json]
               [--trace-flows IDS] [--trace-links NAMES]
    aqmlab validate SCENARIO.toml [--set ...] [--seed N]
    aqmlab examples | aqmlab example NAME
    aqmlab algorithms [--json]
    aqmlab metrics [--json]
    aqmlab schema [--markdown]
    aqmlab compare A.toml B.toml ... [--set ...] [--seed N] [--out DIR] [--jobs N]
    aqmlab sweep SWEEP.toml [--out DIR] [--workers N] [--scheduler ADDR] [--dry-run]
    aqmlab plot RUNS.parquet --x KEY --y METRIC [--line LABEL] [--out PNG]
    aqmlab reproduce ID|all [--quick] [--out DIR] [--workers N] [--scheduler ADDR] | --list
    aqmlab live SCENARIO.toml [--set ...] [--cc NAME] [--out DIR] [--twin]  (see docs/live.md)
    aqmlab crosscheck SCENARIO.toml [--against ns2|ns3] [--seeds N] [--set ...] [--out DIR] [--json]

A rejected scenario prints one line, ``error: <path>: <value> (<allowed>)``, on stderr and exits
with status 2, writing no result files. ``--out`` follows :mod:`aqmlab.output`: an existing file
or a directory aqmlab did not write is refused unless ``--force``, and an unwritable one is
refused before anything runs. A run whose results break an invariant (:mod:`aqmlab.invariants`)
prints one line naming the run and exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from aqmlab import __version__, api, output
from aqmlab._core import ScenarioError
from aqmlab.invariants import InvariantError
from aqmlab.live import command as live_command

EXIT_USAGE = 2
EXIT_FAILED = 1


def _positive_int(text: str) -> int:
    """argparse type of counts (--workers, --jobs, --seeds): an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} (an integer >= 1)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} (an integer >= 1)")
    return value


def _add_force(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--force",
        action="store_true",
        help="replace --out even if it is a file or a directory aqmlab did not write",
    )


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
    p.set_defaults(func=cmd_run)
    p.add_argument("scenario", type=Path, metavar="SCENARIO.toml")
    _add_scenario_options(p)
    p.add_argument(
        "--out", type=Path, default=None, help="results directory (default: results/<stem>)"
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print only the summary JSON; write no results unless --out is given",
    )
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    _add_force(p)
    p.add_argument(
        "--trace-flows",
        default=None,
        metavar="IDS",
        help="record per-event TCP traces of these flow ids (0,5): tcp_trace.parquet, cwnd.png",
    )
    p.add_argument(
        "--trace-links",
        default=None,
        metavar="NAMES",
        help="log every packet event of these links (bottleneck, or R0->R1 in a topology): "
        "packet_trace.parquet and one .pcap per link; at most trace.max_events "
        "(default 1,000,000) events per link",
    )

    p = sub.add_parser("examples", help="list the example scenarios shipped with aqmlab")
    p.set_defaults(func=cmd_examples)
    p = sub.add_parser("example", help="print an example scenario (aqmlab example red > red.toml)")
    p.add_argument("name", help="an example's name (aqmlab examples lists them)")
    p.set_defaults(func=cmd_example)

    p = sub.add_parser("validate", help="check a scenario and print it with every default")
    p.set_defaults(func=cmd_validate)
    p.add_argument("scenario", type=Path, metavar="SCENARIO.toml")
    _add_scenario_options(p)

    p = sub.add_parser("algorithms", help="list every AQM algorithm, its parameters and source")
    p.set_defaults(func=cmd_algorithms)
    p.add_argument("--json", action="store_true", help="print the list as JSON")

    p = sub.add_parser("metrics", help="list the summary's metrics: key, label, unit, meaning")
    p.set_defaults(func=cmd_metrics)
    p.add_argument("--json", action="store_true", help="print the registry as JSON")
    p = sub.add_parser(
        "schema", help="print the JSON Schema of scenario files (for editors: TOML completion)"
    )
    p.set_defaults(func=cmd_schema)
    p.add_argument(
        "--markdown",
        action="store_true",
        help="print the generated reference tables of docs/scenarios.md instead",
    )

    p = sub.add_parser("compare", help="run several scenarios and compare them side by side")
    p.set_defaults(func=cmd_compare)
    p.add_argument("scenarios", type=Path, nargs="+", metavar="SCENARIO.toml")
    _add_scenario_options(p)
    p.add_argument(
        "--out", type=Path, default=Path("results/compare"), help="(default: results/compare)"
    )
    p.add_argument(
        "--jobs", type=_positive_int, default=None, help="runs in parallel (default: cores)"
    )
    p.add_argument("--json", action="store_true", help="print the comparison table as JSON")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    _add_force(p)

    p = sub.add_parser("sweep", help="run a grid of scenario variants in parallel, cached")
    p.set_defaults(func=cmd_sweep)
    p.add_argument("sweep", type=Path, metavar="SWEEP.toml")
    p.add_argument(
        "--out", type=Path, default=None, help="output directory (default: results/sweeps/<stem>)"
    )
    _add_pool_options(p)
    _add_force(p)
    p.add_argument("--dry-run", action="store_true", help="list the points, run nothing")

    p = sub.add_parser("plot", help="plot a metric of a sweep against one of its axes")
    p.set_defaults(func=cmd_plot)
    p.add_argument("runs", type=Path, metavar="RUNS.parquet")
    p.add_argument("--x", required=True, help="label column for the x axis (e.g. max_p)")
    p.add_argument("--y", required=True, help="metric column (e.g. loss_rate, delay_ms.p99)")
    p.add_argument("--line", default="algorithm", help="one line per value (default: algorithm)")
    p.add_argument("--logx", action="store_true", help="logarithmic x axis")
    p.add_argument("--out", type=Path, default=None, help="PNG (default: beside RUNS.parquet)")
    _add_force(p)

    _add_crosscheck(sub)
    live_command.add_parser(sub)

    p = sub.add_parser("reproduce", help="reproduce a paper's experiments and write a report")
    p.set_defaults(func=cmd_reproduce)
    p.add_argument("id", nargs="?", help="reproduction id (see --list), or all (writes index.html)")
    p.add_argument("--list", action="store_true", help="list the reproductions")
    p.add_argument("--quick", action="store_true", help="fewer points, shorter runs (< 1 min)")
    p.add_argument(
        "--out", type=Path, default=None, help="output directory (default: results/reproduce/ID)"
    )
    _add_pool_options(p)
    _add_force(p)
    return parser


def _add_crosscheck(sub: Any) -> None:
    p = sub.add_parser(
        "crosscheck",
        help="run a scenario in aqmlab and in ns-2.35 (or ns-3.44) and compare them, over seeds",
    )
    p.set_defaults(func=cmd_crosscheck)
    p.add_argument("scenario", type=Path, metavar="SCENARIO.toml")
    p.add_argument(
        "--against",
        choices=("ns2", "ns3"),
        default="ns2",
        help="the other simulator: ns2 (ns-2.35, default) or ns3 (ns-3.44, built on first use)",
    )
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a key by dotted path (as for run); repeatable",
    )
    p.add_argument(
        "--seeds", type=_positive_int, default=3, help="seeds: the scenario's and the next N-1"
    )
    p.add_argument(
        "--out", type=Path, default=None, help="directory (default: results/crosscheck/<stem>)"
    )
    p.add_argument(
        "--jobs", type=_positive_int, default=None, help="parallel runs (default: cores)"
    )
    p.add_argument("--json", action="store_true", help="print crosscheck.json only")
    p.add_argument("--no-plots", action="store_true", help="skip goodput_vs_rtt.png")
    p.add_argument(
        "--trace-flows",
        default=None,
        metavar="IDS",
        help="trace these flow ids in both simulators (tcp_trace*.parquet, first divergence)",
    )
    p.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="JSON",
        help="also write ns-2's results as a reference file (tests/data/ns2/)",
    )
    _add_force(p)


def _add_pool_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workers", type=_positive_int, default=None, help="local processes (default: cores)"
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDR",
        help="run on a Dask cluster (tcp://host:port; needs the dask extra)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def main(argv: Sequence[str] | None = None) -> int:
    # The CLI does no linear algebra, but numpy (imported for result tables) starts OpenBLAS
    # server threads that busy-wait for work for a while: ~0.1 s of CPU per process, 8 % of a
    # 100-flow, 180 s run. Set before numpy loads; inherited by sweep workers. A user's own
    # setting wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    args = build_parser().parse_args(argv)
    output.terminate_gracefully()
    shown, warnings.showwarning = warnings.showwarning, _show_warning
    try:
        func: Callable[[argparse.Namespace], int] = args.func
        return func(args)
    except ScenarioError as e:
        _error(str(e))
        return EXIT_USAGE
    except InvariantError as e:
        _error(str(e))
        return EXIT_FAILED
    except OSError as e:  # the disk filled up, a directory vanished mid-write, ...
        where = f"{e.filename}: " if e.filename else ""
        _error(f"{where}{e.strerror or e}")
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        if argv is None:  # the command line, not a caller in this process
            _exit_now(130)
        return 130
    finally:
        warnings.showwarning = shown


def _exit_now(code: int) -> None:
    """Ends the process at once, unless it has child processes to reap: everything the command
    wrote was completed or removed on the way here (atomic directories), and the interpreter's
    own exit would join pool threads and tear down pandas and pyarrow, up to a second on a
    loaded machine after Ctrl-C."""
    import contextlib
    import multiprocessing

    if multiprocessing.active_children():
        return  # a sweep's pool workers: the interpreter's exit joins them and frees their locks
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to say
            stream.flush()
    os._exit(code)


def _show_warning(message: Warning | str, *_: object, **__: object) -> None:
    """A Python warning (a compared run that delivered nothing) as one ``warning:`` line."""
    from aqmlab.report import printable

    print(f"warning: {printable(' '.join(str(message).split()))}", file=sys.stderr)


def _error(message: str) -> None:
    """``error: MESSAGE`` on one line of stderr, whatever the message held (newlines, a
    scenario's names with terminal escape sequences)."""
    from aqmlab.report import printable

    print(f"error: {printable(' '.join(message.split()))}", file=sys.stderr)


def _trace_ids(text: str | None) -> list[int]:
    """``"0,5"`` → ``[0, 5]``; a bad list is a usage error naming the option."""
    if not text:
        return []
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ScenarioError(
            f"--trace-flows: {text!r} (comma-separated flow ids, e.g. 0,5)"
        ) from None


def cmd_run(args: argparse.Namespace) -> int:
    ids = _trace_ids(args.trace_flows)
    if ids:
        args.overrides.append(f"trace.flows={ids}")
    if args.trace_links:
        names = [n.strip() for n in args.trace_links.split(",") if n.strip()]
        args.overrides.append(f"trace.links={json.dumps(names)}")
    # --json alone prints the summary and writes nothing; with --out it also writes there.
    write = args.out is not None or not args.json
    out = args.out if args.out is not None else Path("results") / args.scenario.stem
    if write:
        output.check_destination(out, force=args.force)
    text, name = api.prepare(args.scenario, set=args.overrides, seed=args.seed)
    from aqmlab.results import Results, checked_summary

    progress = _Progress(text)
    try:
        raw = api.run_core(text, on_progress=progress)
    finally:
        progress.close()
    if not write:  # --json alone: the checked summary, no tables (pyarrow is not imported)
        _warn_black_hole(checked_summary(raw, name=name))
        sys.stdout.write(raw["summary_json"].rstrip("\n") + "\n")
        return 0
    res = Results.from_core(raw, name=name)
    _warn_black_hole(res.summary)
    res.write(out, plots=not args.no_plots, force=args.force)
    if args.json:
        sys.stdout.write(res.summary_json.rstrip("\n") + "\n")
        return 0
    from aqmlab import report

    report.print_summary(res.summary, title=f"{args.scenario.name}", out_dir=out)
    return 0


def cmd_examples(args: argparse.Namespace) -> int:
    from aqmlab import example_scenarios as examples

    for name, path in examples.examples().items():
        print(f"{name:14s} {examples.describe(path)}")
    print("\naqmlab example NAME > NAME.toml copies one out; aqmlab run NAME.toml runs it.")
    return 0


def cmd_example(args: argparse.Namespace) -> int:
    from aqmlab import example_scenarios as examples

    sys.stdout.write(examples.example(args.name).read_text(encoding="utf-8"))
    return 0


def _warn_black_hole(summary: dict[str, Any]) -> None:
    """A run that delivered nothing (:func:`aqmlab.diagnose.no_traffic`): one line on stderr."""
    from aqmlab.diagnose import no_traffic

    why = no_traffic(summary)
    if why is not None:
        print(f"warning: {why}", file=sys.stderr)


class _Progress:
    """Progress of one long run on stderr: how much simulated time is done. Quiet for runs
    under a few seconds; on a terminal one line rewritten in place, otherwise a line a minute.
    A simulated duration far beyond what a run can cover is announced up front."""

    QUIET_S = 3.0
    HUGE_S = 1e6  # about 12 days of simulated time

    def __init__(self, text: str) -> None:
        import time

        from aqmlab import _core
        from aqmlab.scenario import loads
        from aqmlab.units import duration_s

        self.end_s = duration_s(loads(_core.validate(text)).get("duration", "0s"))
        self.t0 = time.monotonic()
        self.last = 0.0
        self.tty = sys.stderr.isatty()
        if self.end_s >= self.HUGE_S:
            print(
                f"note: {self.end_s:.3g} s of simulated time; this may take very long "
                "(Ctrl-C stops it at once)",
                file=sys.stderr,
            )

    def __call__(self, sim_ns: int) -> None:
        import time

        now = time.monotonic()
        if now - self.t0 < self.QUIET_S or now - self.last < (0.5 if self.tty else 60.0):
            return
        self.last = now
        done = sim_ns / 1e9
        pct = 100.0 * done / self.end_s if self.end_s > 0 else 100.0
        line = f"simulated {done:.4g} s of {self.end_s:.4g} s ({pct:.3g} %), {now - self.t0:.0f} s"
        print(f"\r{line}" if self.tty else line, end="" if self.tty else "\n", file=sys.stderr)

    def close(self) -> None:
        if self.tty and self.last:
            print(file=sys.stderr)


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


def cmd_metrics(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from aqmlab import registry, report

    if args.json:
        print(json.dumps([asdict(m) for m in registry.METRICS], indent=2))
        return 0
    report.print_metrics(registry.METRICS)
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from aqmlab import _core

    sys.stdout.write(_core.schema_markdown() if args.markdown else _core.schema_json())
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
        force=args.force,
    )
    if args.json:
        rows: list[dict[str, Any]] = table.to_dict(orient="records")
        print(json.dumps(rows, indent=2))
        return 0
    report.print_comparison(table, out_dir=args.out)
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    from aqmlab import sweep

    points = sweep.load_sweep(args.sweep)
    if args.dry_run:
        for i, point in enumerate(points):
            print(i, json.dumps(point.labels, default=str))
        return 0
    out = args.out if args.out is not None else Path("results/sweeps") / args.sweep.stem
    df = sweep.run_points(
        points,
        out,
        workers=args.workers,
        scheduler=args.scheduler,
        progress=not args.no_progress,
        force=args.force,
    )
    from aqmlab import pages

    page = pages.write_sweep_report(df, out)
    print(f"{sweep.summarise(df)}; table: {out / 'runs.parquet'}; report: {page}")
    return 1 if df["error"].notna().any() else 0


def cmd_plot(args: argparse.Namespace) -> int:
    import pandas as pd

    from aqmlab import plots

    try:
        runs = pd.read_parquet(args.runs)
    except (OSError, ValueError) as e:
        print(f"error: {args.runs}: {e}", file=sys.stderr)
        return EXIT_USAGE
    try:
        fig = plots.metric_vs(runs, args.x, args.y, line=args.line or None, logx=args.logx)
    except KeyError as e:
        cols = ", ".join(map(str, runs.columns))
        print(f"error: {e.args[0]} (columns: {cols})", file=sys.stderr)
        return EXIT_USAGE
    out = args.out or args.runs.with_name(f"{args.y}_vs_{args.x}.png".replace("/", "_"))
    output.check_file(out, force=args.force)
    plots.save(fig, out)
    output.record_file(out)
    print(out)
    return 0


def cmd_crosscheck(args: argparse.Namespace) -> int:
    from aqmlab import ns2, ns3, report

    if args.against == "ns3":
        for flag, given in (("--trace-flows", args.trace_flows), ("--record", args.record)):
            if given is not None:
                print(f"error: {flag} is for --against ns2 only", file=sys.stderr)
                return EXIT_USAGE
    out = args.out if args.out is not None else Path("results/crosscheck") / args.scenario.stem
    out = output.check_destination(out, force=args.force, kind="crosscheck")
    if args.record is not None:
        output.check_file(args.record, force=args.force, what="--record")
    try:
        if args.against == "ns3":
            cc = ns3.crosscheck(args.scenario, seeds=args.seeds, set=args.overrides, jobs=args.jobs)
        else:
            cc = ns2.crosscheck(
                args.scenario,
                seeds=args.seeds,
                set=args.overrides,
                jobs=args.jobs,
                trace_flows=_trace_ids(args.trace_flows),
            )
    except (
        ns2.Unsupported,
        ns2.NsMissing,
        ns2.NsFailed,
        ns3.Ns3Missing,
        ns3.Ns3Failed,
    ) as e:
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return EXIT_USAGE
    cc.write(out, plots=not args.no_plots, force=args.force)
    if args.record is not None:
        from aqmlab.ns2 import reference

        reference.record(
            cc, args.record, scenario=args.scenario.as_posix(), overrides=args.overrides
        )
        output.record_file(args.record)
    if args.json:
        print((out / "crosscheck.json").read_text(encoding="utf-8"))
        return 0
    b = cc.backend
    report.print_crosscheck(
        cc.rows,
        title=cc.name,
        seeds=cc.seeds,
        out_dir=out,
        side=b.key,
        simulator=b.simulator,
        short=b.short,
    )
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from aqmlab import claims, reproduce
    from aqmlab.papers import REPRODUCTIONS

    if args.list or not args.id:
        for rid, repro in sorted(REPRODUCTIONS.items()):
            print(f"{rid:20s} {repro.title}  [{repro.paper_file}]")
        return 0 if args.list else EXIT_USAGE
    if args.id == "all":
        t0, cpu0 = time.perf_counter(), reproduce.process_cpu_seconds()
        outcomes = reproduce.reproduce_all(
            quick=args.quick,
            out_dir=args.out,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=not args.no_progress,
        )
        for o in outcomes:
            print(
                f"{o.out_dir.name:18s} {claims.summary_line(o.report.results)} "
                f"{o.seconds:.1f} s wall, {o.cpu_seconds:.1f} s CPU"
            )
        index = outcomes[0].out_dir.parent / "index.html" if outcomes else None
        wall, cpu = time.perf_counter() - t0, reproduce.process_cpu_seconds() - cpu0
        print(f"all: {wall:.1f} s wall, {cpu:.1f} s CPU; index: {index}")
        return 0
    if args.id not in REPRODUCTIONS:
        known = ", ".join(sorted(REPRODUCTIONS))
        print(f"error: no reproduction {args.id!r} (known: {known}, all)", file=sys.stderr)
        return EXIT_USAGE
    outcome = reproduce.reproduce(
        args.id,
        quick=args.quick,
        out_dir=args.out,
        workers=args.workers,
        scheduler=args.scheduler,
        progress=not args.no_progress,
        force=args.force,
    )
    for r in outcome.report.results:
        print(f"[{r.verdict}] {r.claim.where}: {r.claim.quote}")
    print(
        f"{claims.summary_line(outcome.report.results)} {outcome.seconds:.1f} s wall, "
        f"{outcome.cpu_seconds:.1f} s CPU; report: {outcome.out_dir / 'report.html'}"
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
