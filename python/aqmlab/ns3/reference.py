"""Recorded ns-3 runs and run files for scripts, from the cross-check's own ns-3 program.

``bench/reference/ns3_*.json`` are recorded with ``record`` (``make ns3-reference``), so that
the core's tests can compare aqmlab with ns-3 without ns-3 installed; ``bench/vs_ns3.sh`` times
the program on a run file that ``run-file`` prints. Both go through the cross-check's path
(:func:`aqmlab.ns3.prepare_seed`: aqmlab runs the seed, the translation writes the run file with
the start times and access delays aqmlab resolved), so what is recorded is what ``aqmlab
crosscheck --against ns3`` runs.

    python -m aqmlab.ns3.reference run-file SCENARIO [--seed N] [--trace PATH]
    python -m aqmlab.ns3.reference record SCENARIO [--seeds K] -o OUT.json

A recorded file holds the scenario's text (the tests run exactly that), the program's hash,
and per seed the cross-check metrics of both sides, ns-3's CPU seconds and what the program
printed; ``metrics`` is ns-3's mean over the seeds and ``spread`` its minimum and maximum.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from aqmlab.ns3 import build, prepare_seed, run_seed

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def run_file(scenario: str, seed: int, trace: str | None = None) -> str:
    """The run file of ``scenario`` (path or TOML text) on ``seed``; with ``trace``, the program
    also writes every flow's TCP events there (see the top of ``dumbbell.cc``)."""
    text = prepare_seed(scenario, seed).run_file
    return text + (f"trace {trace}\n" if trace else "")


def record(scenario_path: Path, seeds: int) -> dict[str, Any]:
    """ns-3 on the scenario file's seed and the ``seeds - 1`` next ones, with aqmlab beside."""
    text = scenario_path.read_text(encoding="utf-8")
    first = int(tomllib.loads(text).get("seed", 1))
    runs = []
    for seed in range(first, first + seeds):
        r = run_seed(text, seed)
        runs.append(
            {
                "seed": seed,
                "ns3": r.other.values,
                "aqmlab": r.aqmlab.values,
                "ns3_cpu_s": round(r.other_cpu_s, 2),
                "output": r.other_raw,
            }
        )
    keys = runs[0]["ns3"].keys()
    return {
        "simulator": "ns-3.44",
        "program": "python/aqmlab/ns3/dumbbell.cc",
        "program_sha256": hashlib.sha256(build.SOURCE.read_bytes()).hexdigest()[:12],
        "scenario_file": scenario_path.as_posix(),
        "scenario": text,
        "seeds": [r["seed"] for r in runs],
        "metrics": {k: statistics.fmean(r["ns3"][k] for r in runs) for k in keys},
        "spread": {
            k: [min(r["ns3"][k] for r in runs), max(r["ns3"][k] for r in runs)] for k in keys
        },
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m aqmlab.ns3.reference", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    rf = sub.add_parser("run-file", help="print the ns-3 run file of a scenario")
    rf.add_argument("scenario")
    rf.add_argument("--seed", type=int, default=1)
    rf.add_argument("--trace", help="the program writes every flow's TCP events to this file")
    rec = sub.add_parser("record", help="record ns-3 runs of a scenario file as JSON")
    rec.add_argument("scenario", type=Path)
    rec.add_argument("--seeds", type=int, default=1, help="the file's seed and the next ones")
    rec.add_argument("-o", "--out", type=Path, required=True)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "run-file":
            sys.stdout.write(run_file(args.scenario, args.seed, args.trace))
            return 0
        if args.seeds < 1:
            ap.error(f"--seeds: {args.seeds} (at least 1)")
        doc = record(args.scenario, args.seeds)
    except (ValueError, build.Ns3Missing) as e:  # Unsupported, ScenarioError: one line
        print(f"error: {e}", file=sys.stderr)
        return 2
    tmp = args.out.with_name(args.out.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    tmp.replace(args.out)  # a failed recording leaves the previous file whole
    print(f"{args.out}: ns-3 {doc['metrics']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
