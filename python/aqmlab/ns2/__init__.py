"""``aqmlab crosscheck``: one scenario in aqmlab and in ns-2.35, side by side, over several seeds.

>>> import aqmlab
>>> cc = aqmlab.crosscheck("scenarios/demo/red.toml", seeds=3)        # doctest: +SKIP
>>> [(r["metric"], r["verdict"]) for r in cc.rows]                     # doctest: +SKIP
>>> cc.write("results/crosscheck/red")                                 # doctest: +SKIP

For each seed, aqmlab runs the scenario first; the ns-2 script is then generated from the
resolved scenario and the flows that run resolved (exact start times and access delays), with
ns-2's random generator seeded with the same number, and `ns` runs it. Runs go in parallel, one
per core. See :mod:`aqmlab.ns2.tcl` for how the scenario maps onto ns-2 and
:mod:`aqmlab.ns2.compare` for the metrics and verdicts.
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from aqmlab import api
from aqmlab import scenario as _scenario
from aqmlab.ns2 import compare, tcl, traces
from aqmlab.ns2 import runner as ns2
from aqmlab.ns2.runner import NsFailed, NsMissing
from aqmlab.ns2.tcl import Unsupported
from aqmlab.ns2.units import duration_s
from aqmlab.scenario import Overrides, ScenarioLike

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["CrossCheck", "NsFailed", "NsMissing", "Unsupported", "crosscheck", "run_seed"]


@dataclass
class SeedRun:
    """Both simulators on one seed."""

    seed: int
    aqmlab: compare.RunMetrics
    ns2: compare.RunMetrics
    script: str
    aqmlab_cpu_s: float = 0.0
    ns2_cpu_s: float = 0.0
    #: With ``trace_flows``: aqmlab's ``tcp_trace`` table, ns-2's traces (long form:
    #: flow, t_s, var, value) and, per traced flow, where the two first part.
    aqmlab_trace: Any = None
    ns2_trace: Any = None
    divergence: dict[int, Any] = field(default_factory=dict)


@dataclass
class CrossCheck:
    """A cross-check: one row per metric (``rows``), and every seed's runs."""

    name: str
    seeds: list[int]
    rows: list[dict[str, Any]]
    runs: list[SeedRun] = field(default_factory=list)

    def row(self, metric: str) -> dict[str, Any]:
        return next(r for r in self.rows if r["metric"] == metric)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seeds": self.seeds,
            "metrics": self.rows,
            "runs": [
                {
                    "seed": r.seed,
                    "aqmlab": r.aqmlab.values,
                    "ns2": r.ns2.values,
                    "aqmlab_cpu_s": r.aqmlab_cpu_s,
                    "ns2_cpu_s": r.ns2_cpu_s,
                }
                for r in self.runs
            ],
            "first_divergence": {
                str(r.seed): {str(f): d for f, d in r.divergence.items()}
                for r in self.runs
                if r.divergence
            },
            "flows": {
                "rtt_ms": self.runs[0].aqmlab.rtt_ms if self.runs else {},
                "aqmlab_goodput_mbps": [r.aqmlab.goodput_mbps for r in self.runs],
                "ns2_goodput_mbps": [r.ns2.goodput_mbps for r in self.runs],
            },
        }

    def markdown(self) -> str:
        text = compare.markdown(self.rows, title=self.name, seeds=self.seeds)
        lines = []
        for r in self.runs:
            for f, d in r.divergence.items():
                if d is None:
                    lines.append(f"- seed {r.seed}, flow {f}: the traces never part")
                else:
                    lines.append(
                        f"- seed {r.seed}, flow {f}: `{d['var']}` first differs at "
                        f"t = {d['t']:.5f} s (change {d['index']}; aqmlab {d['aqmlab']}, "
                        f"ns-2 {d['ns2']})"
                    )
        if lines:
            text += "\n## First divergence of the traced flows\n\n" + "\n".join(lines) + "\n"
        return text

    def write(self, out: str | Path, *, plots: bool = True, force: bool = False) -> Path:
        """Writes ``crosscheck.json``, ``crosscheck.md``, each seed's ns-2 script and (with
        ``plots``) ``goodput_vs_rtt.png`` into ``out``, replacing it as a whole under
        :mod:`aqmlab.output`'s policy (``force`` replaces what aqmlab did not write)."""
        from aqmlab import output

        with output.atomic_dir(out, kind="crosscheck", force=force) as d:
            self._write_files(d, plots=plots)
        return Path(out)

    def _write_files(self, d: Path, *, plots: bool) -> None:
        (d / "crosscheck.json").write_text(
            json.dumps(_jsonable(self.to_json()), indent=2), encoding="utf-8"
        )
        (d / "crosscheck.md").write_text(self.markdown(), encoding="utf-8")
        for r in self.runs:
            (d / f"ns2_seed{r.seed}.tcl").write_text(r.script, encoding="utf-8")
            if r.aqmlab_trace is not None:
                pq.write_table(r.aqmlab_trace, d / f"tcp_trace_seed{r.seed}.parquet")
                pq.write_table(r.ns2_trace, d / f"tcp_trace_ns2_seed{r.seed}.parquet")
        if plots and self.runs:
            _plot(self, d / "goodput_vs_rtt.png")


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return None
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    return x


def _plot(cc: CrossCheck, path: Path) -> None:
    from aqmlab import plots

    fig = plots.new_figure(figsize=(7, 4.5))
    ax = fig.subplots()
    for label, side, marker in (("aqmlab", "aqmlab", "o"), ("ns-2.35", "ns2", "x")):
        xs, ys = [], []
        for r in cc.runs:
            m: compare.RunMetrics = getattr(r, side)
            for i, g in m.goodput_mbps.items():
                xs.append(m.rtt_ms[i])
                ys.append(g)
        ax.scatter(xs, ys, marker=marker, label=label, alpha=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("base RTT (ms)")
    ax.set_ylabel("goodput (Mbps)")
    ax.set_title(f"{cc.name}: per-flow goodput, {len(cc.seeds)} seeds")
    ax.legend()
    plots.save(fig, path)


def ns2_tcp_model(text: str) -> str:
    """The scenario with ``tcp.model = "ns2"`` in every TCP/web group that does not choose one.

    aqmlab's default TCP model is still ``rfc`` (RFC 5681/6582/6298 readings); the cross-check
    sets aqmlab beside ns-2's agents, so it runs aqmlab's ``ns2`` model unless the scenario (or
    ``--set flows.N.tcp.model=rfc``) asks for the RFC readings, which shows their gap to ns-2.
    """
    doc = tomllib.loads(text)
    for group in doc.get("flows", []):
        if group.get("kind", "tcp") in ("tcp", "web"):
            group.setdefault("tcp", {}).setdefault("model", "ns2")
    return _scenario.dumps(doc)


def _aqmlab_metrics(res: Any) -> compare.RunMetrics:
    s = res.summary
    flows = res.flows.to_pydict()
    goodput = dict(zip(flows["id"], flows["goodput_mbps"], strict=False))
    rtt = dict(zip(flows["id"], flows["rtt_ms"], strict=False))
    links = res.links.to_pydict()
    roles = zip(links["role"], links["drops"], strict=True)
    access = sum(d for role, d in roles if role.startswith("access."))
    # ns-2's error model sits on the bottleneck link behind the queue and drops into the
    # link's drop target, which the queue monitor counts: its `pdrops_` includes link loss,
    # so aqmlab's count does too (the same packets, counted alike on both sides).
    drops = sum(s["drops"].values())
    values = {
        "utilisation": s["utilisation"],
        "loss_rate": drops / s["arrivals"] if s["arrivals"] else float("nan"),
        "drops_bottleneck": float(drops),
        "drops_access": float(access),
        "queue_mean_pkts": s["queue_pkts"]["mean"],
        "delay_mean_ms": s["delay_ms"]["mean"],
        "retransmits": float(sum(flows["retransmits"])),
        # As ns-2's `nrexmit_` counts them: not those whose previous congestion response was
        # an ECN reduction, which ns-2 answers without counting (`timeout()`'s
        # `CWND_ACTION_ECN` branch).
        "timeouts": float(sum(flows["timeouts"]) - sum(flows["timeouts_after_ecn"])),
    }
    values.update(compare.flow_metrics(goodput, rtt))
    return compare.RunMetrics(values=values, goodput_mbps=goodput, rtt_ms=rtt)


def _ns2_metrics(run: ns2.NsRun, rtt: dict[int, float]) -> compare.RunMetrics:
    m = run.metrics
    w = m["window_s"]
    goodput = {i: b * 8 / w / 1e6 for i, (b, _, _) in run.flows.items()}
    values = {
        # ns-2's queue byte counters are 32-bit ints and wrap (155 Mbps x 180 s); the window's
        # bytes stay below 2^32 there, so the difference modulo 2^32 is exact.
        "utilisation": (m["bdepartures_"] % 2**32) * 8 / (m["rate_bps"] * w),
        "loss_rate": m["pdrops_"] / m["parrivals_"] if m["parrivals_"] else float("nan"),
        "drops_bottleneck": m["pdrops_"],
        "drops_access": m["access_drops_run"],
        "queue_mean_pkts": m["qint_pkts_s"] / w,
        "delay_mean_ms": m["delay_mean_s"] * 1e3,
        "retransmits": float(sum(v[1] for v in run.flows.values())),
        "timeouts": float(sum(v[2] for v in run.flows.values())),
    }
    values.update(compare.flow_metrics(goodput, rtt))
    return compare.RunMetrics(values=values, goodput_mbps=goodput, rtt_ms=rtt)


def _resolved(text: str) -> dict[str, Any]:
    """A scenario's TOML text resolved by the core (every default written) as a document."""
    return tomllib.loads(api.validate(text))


def _overhead_s(doc: dict[str, Any]) -> float:
    """ns-2's `overhead_` matching aqmlab's per-send jitter (`tcp.overhead`), if the scenario
    sets one; ns-2 takes one value for all agents here, so groups must agree."""
    values = {
        duration_s(g.get("tcp", {}).get("overhead", "0s"))
        for g in doc["flows"]
        if g.get("kind", "tcp") == "tcp"
    }
    if len(values) > 1:
        raise Unsupported("flows.*.tcp.overhead", sorted(values), "the same in every group")
    return values.pop() if values else 0.0


def flow_runs(doc: dict[str, Any], flows: dict[str, list[Any]]) -> list[tcl.FlowRun]:
    """What the Tcl translation needs of each flow aqmlab ran: its `[[flows]]` block (by group
    name, first block of that name), base RTT in ns and start time, from the flows table."""
    names = [g.get("group") or f"g{i}" for i, g in enumerate(doc["flows"])]
    index = {n: i for i, n in reversed(list(enumerate(names)))}
    return [
        tcl.FlowRun(int(i), index[g], round(r * 1e6), float(s))
        for i, g, r, s in zip(
            flows["id"], flows["group"], flows["rtt_ms"], flows["start_s"], strict=True
        )
    ]


def check_translatable(doc: dict[str, Any]) -> None:
    """Raises :class:`Unsupported` if ns-2 cannot run ``doc`` (translates a dummy flow set)."""
    fake = []
    fid = 0
    for gi, g in enumerate(doc["flows"]):
        for _ in range(int(g.get("count", 1))):
            fake.append(tcl.FlowRun(fid, gi, 10**9, 0.0))
            fid += 1
    tcl.translate(doc, fake, seed=1, overhead_s=_overhead_s(doc))


def run_seed(
    scenario: ScenarioLike,
    seed: int,
    *,
    set: Overrides = None,
    trace_flows: list[int] | None = None,
    trace_dir: Path | None = None,
) -> SeedRun:
    """Both simulators on one seed."""
    text = ns2_tcp_model(api.prepare(scenario, set=set, seed=seed)[0])
    if trace_flows:
        traced = tomllib.loads(text)
        traced["trace"] = {"flows": list(trace_flows)}
        text = _scenario.dumps(traced)
    doc = _resolved(text)
    before = time.thread_time()
    res = api.run(text)  # in this thread, GIL released: thread time is its CPU time
    cpu = time.thread_time() - before
    aq = _aqmlab_metrics(res)
    runs = flow_runs(doc, res.flows.to_pydict())
    with tempfile.TemporaryDirectory(prefix="aqmlab-ns2-trace-") as tmp:
        workdir = Path(trace_dir) if trace_dir is not None else Path(tmp)
        script = tcl.translate(
            doc,
            runs,
            seed=seed,
            overhead_s=_overhead_s(doc),
            trace_flows=trace_flows,
            trace_dir=str(workdir.resolve()),
        )
        nr = ns2.run(script.text, workdir=workdir)
        out = SeedRun(
            seed=seed,
            aqmlab=aq,
            ns2=_ns2_metrics(nr, aq.rtt_ms),
            script=script.text,
            aqmlab_cpu_s=cpu,
            ns2_cpu_s=nr.cpu_s,
        )
        if script.traced:
            out.aqmlab_trace = res.tcp_trace
            out.ns2_trace = pa.concat_tables(
                [traces.read_ns2(workdir / f"ns2_trace_{i}.tr", i) for i in script.traced]
            )
            mine = traces.long_aqmlab(res.tcp_trace)
            out.divergence = {
                i: traces.first_divergence(mine, out.ns2_trace, i) for i in script.traced
            }
    return out


def crosscheck(
    scenario: ScenarioLike,
    *,
    seeds: int | list[int] = 3,
    set: Overrides = None,
    jobs: int | None = None,
    out: str | Path | None = None,
    plots: bool = True,
    trace_flows: list[int] | None = None,
) -> CrossCheck:
    """Runs ``scenario`` in aqmlab and in ns-2.35 on several seeds and sets the metrics side by
    side. ``seeds``: a count (the scenario's seed and the next ones) or a list of seeds.
    ``trace_flows``: flow ids traced in both simulators (cwnd, ssthresh, RTO, retransmissions,
    timeouts over time), with the first point where each pair of traces parts.

    Raises :class:`Unsupported` (a ``ValueError`` with ``.path``) before running anything if
    ns-2 cannot express the scenario, and :class:`NsMissing` if `ns` is not installed.
    """
    ns2.ns_binary()
    doc, name = _scenario.resolve(scenario, overrides=set, seed=None)
    resolved = tomllib.loads(api.validate(doc))
    check_translatable(resolved)
    base = int(resolved.get("seed", 1))
    seed_list = list(range(base, base + seeds)) if isinstance(seeds, int) else list(seeds)
    workers = jobs or os.cpu_count() or 1
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        runs = list(pool.map(lambda s: run_seed(doc, s, trace_flows=trace_flows), seed_list))
    except BaseException:  # Ctrl-C, SIGTERM: stop both simulators' runs in flight at once
        api.cancel_in_flight()
        ns2.terminate_running()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    rows = compare.table([r.aqmlab for r in runs], [r.ns2 for r in runs])
    cc = CrossCheck(name=resolved.get("name") or name, seeds=seed_list, rows=rows, runs=runs)
    if out is not None:
        cc.write(out, plots=plots)
    return cc
