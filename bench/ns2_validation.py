"""The ns-2 validation set (what the comparison with ns-2 must show) and its docs table.

    .venv/bin/python bench/ns2_validation.py run --seeds 5 [--only NAME ...]  # crosscheck each
    .venv/bin/python bench/ns2_validation.py table [--write docs/validation.md]

``run`` calls ``aqmlab crosscheck`` (the Python API, same code) on every case below and writes
``results/ns2_validation/<name>/crosscheck.{json,md}``; ``table`` reads those files only and
prints the table docs/validation.md holds (so the table is never typed by hand); ``--write``
replaces the block between the file's ``BEGIN/END GENERATED ns2-validation`` markers.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results/ns2_validation"
OVERHEAD = "flows.0.tcp.overhead=0.8ms"

#: name -> (scenario relative to the repository, --set overrides).
CASES: dict[str, tuple[str, list[str]]] = {
    **{
        f"demo_droptail_{v}": (
            "scenarios/demo/droptail.toml",
            [f"flows.0.tcp.variant={v}", OVERHEAD],
        )
        for v in ("reno", "newreno", "sack")
    },
    "demo_droptail_reno_no_overhead": (
        "scenarios/demo/droptail.toml",
        ["flows.0.tcp.variant=reno"],
    ),
    **{
        f"demo_{q}_{v}": (f"scenarios/demo/{q}.toml", [f"flows.0.tcp.variant={v}"])
        for q in ("red", "gred")
        for v in ("reno", "newreno", "sack")
    },
    "demo_ared": ("scenarios/crosscheck/demo_ared.toml", []),
    "demo_rem": ("scenarios/crosscheck/demo_rem.toml", []),
    "demo_drr": ("scenarios/crosscheck/demo_drr.toml", []),
    "dumbbell_155mbps_100flows": ("scenarios/crosscheck/dumbbell_155mbps_100flows.toml", []),
    "dumbbell_155mbps_100flows_sack": (
        "scenarios/crosscheck/dumbbell_155mbps_100flows.toml",
        ["flows.0.tcp.variant=sack"],
    ),
    "dumbbell_155mbps_400flows": ("scenarios/crosscheck/dumbbell_155mbps_400flows.toml", []),
}
#: Scenarios beyond the must-show set (other queues, receivers, sizes, topologies, traffic).
HELD_OUT: dict[str, tuple[str, list[str]]] = {
    "demo_pi": ("scenarios/crosscheck/demo_pi.toml", []),
    "demo_avq": ("scenarios/crosscheck/demo_avq.toml", []),
    "demo_avq_overhead": ("scenarios/crosscheck/demo_avq.toml", [OVERHEAD]),
    "demo_red_newreno_delack": (
        "scenarios/demo/red.toml",
        ["flows.0.tcp.variant=newreno", "flows.0.tcp.delayed_ack=true"],
    ),
    "demo_red_sack_mss1500": (
        "scenarios/demo/red.toml",
        ["flows.0.tcp.variant=sack", "flows.0.tcp.mss=1500"],
    ),
    "parking_lot_red": ("scenarios/examples/parking_lot.toml", []),
    "mixed_udp": ("scenarios/crosscheck/mixed_udp.toml", []),
    "mixed_udp_sack": ("scenarios/crosscheck/mixed_udp.toml", ["flows.0.tcp.variant=sack"]),
}
#: The RED demo marking instead of dropping (ECN on the queue and the senders), each sender.
ECN: dict[str, tuple[str, list[str]]] = {
    f"demo_red_ecn_{v}": (
        "scenarios/demo/red.toml",
        [f"flows.0.tcp.variant={v}", "flows.0.tcp.ecn=true", "bottleneck.qdisc.ecn=true"],
    )
    for v in ("reno", "newreno", "sack")
}
#: The same scenarios with aqmlab's RFC readings (`tcp.model = "rfc"`), ns-2 unchanged: the
#: gap the `ns2` model closes (docs/validation.md, "Which TCP model").
RFC_MODEL: dict[str, tuple[str, list[str]]] = {
    f"{name}__rfc": (CASES[name][0], [*CASES[name][1], "flows.0.tcp.model=rfc"])
    for name in (
        "demo_droptail_reno",
        "demo_droptail_newreno",
        "demo_droptail_sack",
        "demo_red_reno",
        "demo_red_sack",
        "dumbbell_155mbps_100flows",
    )
}
CASES.update(HELD_OUT)
CASES.update(ECN)
CASES.update(RFC_MODEL)

#: Columns of the docs table (crosscheck metric keys).
COLUMNS = [
    "utilisation",
    "loss_rate",
    "jain",
    "queue_mean_pkts",
    "slope",
    "retransmits",
    "timeouts",
    "drops_access",
]
SHORT = {"agree": "✓", "within 10%": "≈", "differs": "✗", "n/a": "-"}


def run(names: list[str], seeds: int, out: Path) -> None:
    import aqmlab

    for name in names:
        scenario, overrides = CASES[name]
        t0 = time.time()
        cc = aqmlab.crosscheck(
            ROOT / scenario, seeds=seeds, set=overrides, out=out / name, plots=False
        )
        bad = [r["metric"] for r in cc.rows if r["verdict"] == "differs"]
        print(f"{name}: {time.time() - t0:.0f} s, differs: {bad or 'none'}", flush=True)


def _num(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.3g}"


def table(out: Path) -> str:
    lines = [
        "| case | seeds | " + " | ".join(COLUMNS) + " |",
        "|---|---|" + "---|" * len(COLUMNS),
    ]
    counts: dict[str, int] = {}
    differs: list[str] = []
    for name in CASES:
        path = out / name / "crosscheck.json"
        if not path.exists():
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        rows = {r["metric"]: r for r in doc["metrics"]}
        cells = []
        for key in COLUMNS:
            r = rows[key]
            a, b = r["aqmlab"], r["ns2"]
            cells.append(
                f"{_num(a['mean'])} / {_num(b['mean'])} "
                f"[{_num(a['min'])}, {_num(a['max'])} / {_num(b['min'])}, {_num(b['max'])}] "
                f"{SHORT[r['verdict']]}"
            )
        lines.append(f"| {name} | {len(doc['seeds'])} | " + " | ".join(cells) + " |")
        for r in doc["metrics"]:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
            if r["verdict"] == "differs":
                differs.append(f"{name}: {r['metric']}")
    total = sum(counts.values())
    lines.append("")
    lines.append(
        f"Over all {total} metric rows (the {len(COLUMNS)} shown and drops, delay, mean "
        f"goodput): {counts.get('agree', 0)} agree, {counts.get('within 10%', 0)} within 10 %, "
        f"{counts.get('differs', 0)} differ" + (f" ({'; '.join(differs)})." if differs else ".")
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--seeds", type=int, default=5)
    r.add_argument("--only", nargs="*", default=None, choices=list(CASES))
    r.add_argument("--out", type=Path, default=OUT)
    t = sub.add_parser("table")
    t.add_argument("--out", type=Path, default=OUT)
    t.add_argument("--write", type=Path, default=None, metavar="MD")
    a = p.parse_args(argv)
    if a.cmd == "run":
        run(a.only or list(CASES), a.seeds, a.out)
    elif a.write is None:
        sys.stdout.write(table(a.out))
    else:
        write(a.write, table(a.out))
    return 0


BEGIN = "<!-- BEGIN GENERATED ns2-validation: bench/ns2_validation.py table --write -->"
END = "<!-- END GENERATED ns2-validation -->"


def write(md: Path, text: str) -> None:
    doc = md.read_text(encoding="utf-8")
    head, sep, rest = doc.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"{md}: no {BEGIN!r} ... {END!r} block")
    md.write_text(f"{head}{BEGIN}\n{text}{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
