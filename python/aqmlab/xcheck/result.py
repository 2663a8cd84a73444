"""A cross-check's result, whichever simulator sits beside aqmlab: per-seed runs, the metric
rows, and how they are written (``crosscheck.json``, ``crosscheck.md``, what the other
simulator ran, a goodput-vs-RTT plot)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from aqmlab.xcheck import table


@dataclass(frozen=True)
class Backend:
    """How a backend's side is named: ``key`` in rows and JSON (``ns2``), the simulator's full
    name (``ns-2.35``), its short name in headers (``ns-2``), and the file name of what it ran
    per seed (``ns2_seed{seed}.tcl``)."""

    key: str
    simulator: str
    short: str
    script_name: str


@dataclass
class SeedRun:
    """Both simulators on one seed: metrics, what the other simulator ran, the CPU seconds
    each side's process (or thread) used on this seed alone."""

    seed: int
    aqmlab: table.RunMetrics
    other: table.RunMetrics
    script: str
    aqmlab_cpu_s: float = 0.0
    other_cpu_s: float = 0.0
    #: With traced flows (ns-2 only): aqmlab's ``tcp_trace`` table, the other simulator's
    #: traces (long form: flow, t_s, var, value) and, per traced flow, where the two first part.
    aqmlab_trace: Any = None
    other_trace: Any = None
    divergence: dict[int, Any] = field(default_factory=dict)
    #: What the other simulator's program printed, where it prints a document (ns-3).
    other_raw: Any = None


@dataclass
class CrossCheck:
    """A cross-check: one row per metric (``rows``), and every seed's runs."""

    name: str
    seeds: list[int]
    rows: list[dict[str, Any]]
    runs: list[SeedRun] = field(default_factory=list)
    backend: Backend = field(
        default_factory=lambda: Backend("ns2", "ns-2.35", "ns-2", "ns2_seed{seed}.tcl")
    )

    def row(self, metric: str) -> dict[str, Any]:
        return next(r for r in self.rows if r["metric"] == metric)

    def to_json(self) -> dict[str, Any]:
        k = self.backend.key
        return {
            "name": self.name,
            "against": self.backend.simulator,
            "seeds": self.seeds,
            "metrics": self.rows,
            "runs": [
                {
                    "seed": r.seed,
                    "aqmlab": r.aqmlab.values,
                    k: r.other.values,
                    "aqmlab_cpu_s": r.aqmlab_cpu_s,
                    f"{k}_cpu_s": r.other_cpu_s,
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
                f"{k}_goodput_mbps": [r.other.goodput_mbps for r in self.runs],
            },
        }

    def markdown(self) -> str:
        b = self.backend
        text = table.markdown(
            self.rows,
            title=self.name,
            seeds=self.seeds,
            side=b.key,
            simulator=b.simulator,
            short=b.short,
        )
        cpu = [
            f"| {r.seed} | {r.aqmlab_cpu_s:.2f} | {r.other_cpu_s:.2f} |"
            for r in self.runs
            if r.other_cpu_s
        ]
        if cpu:
            text += (
                f"\n## CPU seconds per seed\n\n| seed | aqmlab | {b.short} |\n|---|---|---|\n"
                + "\n".join(cpu)
                + "\n"
            )
        lines = []
        for r in self.runs:
            for f, d in r.divergence.items():
                if d is None:
                    lines.append(f"- seed {r.seed}, flow {f}: the traces never part")
                else:
                    lines.append(
                        f"- seed {r.seed}, flow {f}: `{d['var']}` first differs at "
                        f"t = {d['t']:.5f} s (change {d['index']}; aqmlab {d['aqmlab']}, "
                        f"{b.short} {d[b.key]})"
                    )
        if lines:
            text += "\n## First divergence of the traced flows\n\n" + "\n".join(lines) + "\n"
        return text

    def write(self, out: str | Path, *, plots: bool = True, force: bool = False) -> Path:
        """Writes ``crosscheck.json``, ``crosscheck.md``, what the other simulator ran per seed
        and (with ``plots``) ``goodput_vs_rtt.png`` into ``out``, replacing it as a whole under
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
            name = self.backend.script_name.format(seed=r.seed)
            (d / name).write_text(r.script, encoding="utf-8")
            if r.aqmlab_trace is not None:
                pq.write_table(r.aqmlab_trace, d / f"tcp_trace_seed{r.seed}.parquet")
                pq.write_table(
                    r.other_trace, d / f"tcp_trace_{self.backend.key}_seed{r.seed}.parquet"
                )
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
    for label, side, marker in (("aqmlab", "aqmlab", "o"), (cc.backend.simulator, "other", "x")):
        xs, ys = [], []
        for r in cc.runs:
            m: table.RunMetrics = getattr(r, side)
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
