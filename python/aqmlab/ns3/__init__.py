"""``aqmlab crosscheck --against ns3``: one scenario in aqmlab and in ns-3.44, side by side.

>>> import aqmlab.ns3
>>> cc = aqmlab.ns3.crosscheck("scenarios/crosscheck/ns3_pie.toml", seeds=3)  # doctest: +SKIP
>>> [(r["metric"], r["verdict"]) for r in cc.rows]                             # doctest: +SKIP

For each seed, aqmlab runs the scenario first (its own TCP model, as the scenario says); the
ns-3 run file is then written from the resolved scenario and the flows that run resolved (exact
start times and access delays; :mod:`aqmlab.ns3.translate`), and the project's ns-3 program
(:mod:`aqmlab.ns3.build`, compiled on first use) runs it with ns-3's generator seeded with the
same number. Runs go in parallel, one per core. The metrics, their spread over seeds and the
verdicts are the same as ns-2's (:mod:`aqmlab.xcheck.table`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aqmlab import api
from aqmlab import scenario as _scenario
from aqmlab.ns3 import build, translate
from aqmlab.ns3.build import Ns3Missing
from aqmlab.scenario import Overrides, ScenarioLike
from aqmlab.units import duration_ns, rate_bps
from aqmlab.xcheck import Unsupported, table
from aqmlab.xcheck.aqmlab_side import aqmlab_metrics
from aqmlab.xcheck.result import Backend, CrossCheck, SeedRun

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = [
    "CrossCheck",
    "Ns3Failed",
    "Ns3Missing",
    "Prepared",
    "Unsupported",
    "crosscheck",
    "prepare_seed",
    "run_seed",
]

BACKEND = Backend("ns3", "ns-3.44", "ns-3", "ns3_seed{seed}.run")


class Ns3Failed(RuntimeError):
    """The ns-3 program ran but did not finish the run."""


@dataclass
class Ns3Run:
    """What one run of the ns-3 program printed (see the top of ``dumbbell.cc``)."""

    out: dict[str, Any]
    cpu_s: float


def run_program(run_file: str) -> Ns3Run:
    """Runs the ns-3 program on ``run_file``; its CPU time is this child's alone (``wait4``)."""
    binary = build.program()
    with tempfile.TemporaryDirectory(prefix="aqmlab-ns3-") as tmp:
        path = Path(tmp) / "run.txt"
        path.write_text(run_file, encoding="utf-8")
        out_path, err_path = Path(tmp) / "stdout", Path(tmp) / "stderr"
        with out_path.open("wb") as out, err_path.open("wb") as err:
            proc = subprocess.Popen([str(binary), f"--run={path}"], stdout=out, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        stdout = out_path.read_text(encoding="utf-8", errors="replace")
        stderr = err_path.read_text(encoding="utf-8", errors="replace")
    try:
        doc = json.loads(stdout.strip().splitlines()[-1]) if code == 0 else None
    except (json.JSONDecodeError, IndexError):
        doc = None
    if not isinstance(doc, dict) or "flows" not in doc:
        tail = " | ".join((stderr or stdout).strip().splitlines()[-5:])
        raise Ns3Failed(f"the ns-3 program exited with {code}: {tail}")
    return Ns3Run(out=doc, cpu_s=usage.ru_utime + usage.ru_stime)


def ns3_metrics(
    run: Ns3Run, rtt: dict[int, float], ids: list[int], rate_bps: float, mss: int
) -> table.RunMetrics:
    """The cross-check metrics of one ns-3 run (flows in the order of ``ids``). aqmlab counts
    goodput in packets of ``mss`` bytes; ns-3's sinks count TCP payload (``mss - 42`` bytes per
    segment), so their bytes are scaled back to whole packets."""
    m = run.out
    w = float(m["window_s"])
    scale = mss / (mss - translate.HEADERS)
    goodput = {i: f[0] * scale * 8 / w / 1e6 for i, f in zip(ids, m["flows"], strict=True)}
    values = {
        "utilisation": m["tx_bytes"] * 8 / (rate_bps * w),
        "loss_rate": m["drops"] / m["arrivals"] if m["arrivals"] else float("nan"),
        "drops_bottleneck": float(m["drops"]),
        "drops_access": float(m["access_drops"]),
        "marks": float(m["marks"]),
        "queue_mean_pkts": float(m["queue_mean_pkts"]),
        "delay_mean_ms": (
            m["sojourn_sum_s"] / m["departures_sojourn"] * 1e3
            if m["departures_sojourn"]
            else float("nan")
        ),
        "retransmits": float(sum(f[1] for f in m["flows"])),
        "timeouts": float(sum(f[2] for f in m["flows"])),
    }
    values.update(table.flow_metrics(goodput, rtt))
    return table.RunMetrics(values=values, goodput_mbps=goodput, rtt_ms=rtt)


def flows_of(doc: dict[str, Any], flows: dict[str, list[Any]]) -> list[translate.Flow]:
    """Each flow aqmlab ran (flows table) as the translation needs it: its group's index (by
    group name, first block of that name), access delay and start time."""
    names = [g.get("group") or f"g{i}" for i, g in enumerate(doc["flows"])]
    index = {n: i for i, n in reversed(list(enumerate(names)))}
    b = duration_ns(doc["bottleneck"]["delay"])
    s = duration_ns(doc.get("sink", {}).get("delay", "0ms"))
    return [
        translate.Flow(int(i), index[g], round(float(r) * 1e6) // 2 - b - s, round(float(t) * 1e9))
        for i, g, r, t in zip(
            flows["id"], flows["group"], flows["rtt_ms"], flows["start_s"], strict=True
        )
    ]


@dataclass
class Prepared:
    """A seed's aqmlab run and the ns-3 run file written from it."""

    doc: dict[str, Any]
    results: Any
    cpu_s: float
    run_file: str


def prepare_seed(scenario: ScenarioLike, seed: int, *, set: Overrides = None) -> Prepared:
    """aqmlab's run of one seed and the run file it gives the ns-3 program."""
    text = api.prepare(scenario, set=set, seed=seed)[0]
    doc = tomllib.loads(api.validate(text))
    translate.check(doc)
    before = time.thread_time()
    res = api.run(text)  # in this thread, GIL released: thread time is its CPU time
    cpu = time.thread_time() - before
    run_file = translate.translate(doc, flows_of(doc, res.flows.to_pydict()), seed=seed)
    return Prepared(doc=doc, results=res, cpu_s=cpu, run_file=run_file)


def run_seed(scenario: ScenarioLike, seed: int, *, set: Overrides = None) -> SeedRun:
    """Both simulators on one seed."""
    p = prepare_seed(scenario, seed, set=set)
    aq = aqmlab_metrics(p.results, timeouts_after_ecn=True)
    nr = run_program(p.run_file)
    return SeedRun(
        seed=seed,
        aqmlab=aq,
        other=ns3_metrics(
            nr,
            aq.rtt_ms,
            [int(i) for i in p.results.flows.column("id").to_pylist()],
            rate_bps(p.doc["bottleneck"]["rate"]),
            int(p.doc["flows"][0].get("tcp", {}).get("mss", 1000)),
        ),
        script=p.run_file,
        aqmlab_cpu_s=p.cpu_s,
        other_cpu_s=nr.cpu_s,
        other_raw=nr.out,
    )


def crosscheck(
    scenario: ScenarioLike,
    *,
    seeds: int | list[int] = 3,
    set: Overrides = None,
    jobs: int | None = None,
    out: str | Path | None = None,
    plots: bool = True,
) -> CrossCheck:
    """Runs ``scenario`` in aqmlab and in ns-3.44 on several seeds and sets the metrics side by
    side. ``seeds``: a count (the scenario's seed and the next ones) or a list of seeds.

    Raises :class:`Unsupported` (a ``ValueError`` with ``.path``) before running anything if
    the ns-3 program cannot express the scenario, and :class:`Ns3Missing` if the ``ns3`` wheel
    or a C++ compiler is missing (the program is compiled on first use).
    """
    doc, name = _scenario.resolve(scenario, overrides=set, seed=None)
    resolved = tomllib.loads(api.validate(doc))
    translate.check(resolved)
    build.program()
    base = int(resolved.get("seed", 1))
    seed_list = list(range(base, base + seeds)) if isinstance(seeds, int) else list(seeds)
    workers = jobs or os.cpu_count() or 1
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        runs = list(pool.map(lambda s: run_seed(doc, s), seed_list))
    except BaseException:  # Ctrl-C, SIGTERM: stop aqmlab's runs in flight at once (ns-3's
        api.cancel_in_flight()  # children share the terminal's process group and get the signal)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    rows = table.table([r.aqmlab for r in runs], [r.other for r in runs], side=BACKEND.key)
    cc = CrossCheck(
        name=resolved.get("name") or name, seeds=seed_list, rows=rows, runs=runs, backend=BACKEND
    )
    if out is not None:
        cc.write(out, plots=plots)
    return cc
