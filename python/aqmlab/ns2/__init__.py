"""``aqmlab crosscheck``: one scenario in aqmlab and in ns-2.35, side by side, over several seeds.

>>> import aqmlab
>>> cc = aqmlab.crosscheck("scenarios/demo/red.toml", seeds=3)        # doctest: +SKIP
>>> [(r["metric"], r["verdict"]) for r in cc.rows]                     # doctest: +SKIP
>>> cc.write("results/crosscheck/red")                                 # doctest: +SKIP

For each seed, aqmlab runs the scenario first; the ns-2 script is then generated from the
resolved scenario and the flows that run resolved (exact start times and access delays), with
ns-2's random generator seeded with the same number, and `ns` runs it. Runs go in parallel, one
per core. See :mod:`aqmlab.ns2.tcl` for how the scenario maps onto ns-2 and
:mod:`aqmlab.xcheck.table` for the metrics and verdicts (shared with the ns-3 backend).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa

from aqmlab import api
from aqmlab import scenario as _scenario
from aqmlab.ns2 import runner as ns2
from aqmlab.ns2 import tcl, traces
from aqmlab.ns2.runner import NsFailed, NsMissing
from aqmlab.scenario import Overrides, ScenarioLike
from aqmlab.units import duration_s
from aqmlab.xcheck import Unsupported, table
from aqmlab.xcheck.aqmlab_side import aqmlab_metrics
from aqmlab.xcheck.result import Backend, CrossCheck
from aqmlab.xcheck.result import SeedRun as _SeedRun

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["CrossCheck", "NsFailed", "NsMissing", "Unsupported", "crosscheck", "run_seed"]

BACKEND = Backend("ns2", "ns-2.35", "ns-2", "ns2_seed{seed}.tcl")


class SeedRun(_SeedRun):
    """Both simulators on one seed; ``ns2`` is the other side."""

    @property
    def ns2(self) -> table.RunMetrics:
        return self.other


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


def _aqmlab_metrics(res: Any) -> table.RunMetrics:
    """aqmlab's side, counted as ns-2 counts (timeouts right after an ECN cut left out)."""
    return aqmlab_metrics(res, timeouts_after_ecn=False)


def _ns2_metrics(run: ns2.NsRun, rtt: dict[int, float]) -> table.RunMetrics:
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
    values.update(table.flow_metrics(goodput, rtt))
    return table.RunMetrics(values=values, goodput_mbps=goodput, rtt_ms=rtt)


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
    # Where the monitor sits changes nothing a refusal depends on: any declared link will do.
    links = doc.get("topology", {}).get("links") or [{}]
    first = f"{links[0].get('from')}->{links[0].get('to')}"
    tcl.translate(doc, fake, seed=1, overhead_s=_overhead_s(doc), measured_link=first)


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
            measured_link=res.summary.get("measured_link"),
        )
        nr = ns2.run(script.text, workdir=workdir)
        out = SeedRun(
            seed=seed,
            aqmlab=aq,
            other=_ns2_metrics(nr, aq.rtt_ms),
            script=script.text,
            aqmlab_cpu_s=cpu,
            other_cpu_s=nr.cpu_s,
        )
        if script.traced:
            out.aqmlab_trace = res.tcp_trace
            out.other_trace = pa.concat_tables(
                [traces.read_ns2(workdir / f"ns2_trace_{i}.tr", i) for i in script.traced]
            )
            mine = traces.long_aqmlab(res.tcp_trace)
            out.divergence = {
                i: traces.first_divergence(mine, out.other_trace, i) for i in script.traced
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
    rows = table.table([r.aqmlab for r in runs], [r.other for r in runs], side=BACKEND.key)
    cc = CrossCheck(
        name=resolved.get("name") or name,
        seeds=seed_list,
        rows=rows,
        runs=list(runs),
        backend=BACKEND,
    )
    if out is not None:
        cc.write(out, plots=plots)
    return cc
