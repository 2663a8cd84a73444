"""The metrics a cross-check sets side by side, their spread over seeds, and a verdict per metric.

Every metric is computed the same way from both sides' raw numbers (per-flow delivered bytes,
bottleneck counters over the measurement window), so a difference is the simulators', not the
bookkeeping's. Where the summary has the metric, its label and unit come from the core's metric
registry (:mod:`aqmlab.registry`) and Jain's index is the core's; the few a cross-check adds
(drops on access links, the goodput-vs-RTT slope, retransmissions, timeouts) are declared here,
once, for every backend. Verdicts:

- ``agree``: the two seed ranges (min-max) overlap;
- ``within 10%``: the means differ by at most the metric's tolerance (10 % of the larger mean,
  or the metric's absolute tolerance, e.g. 0.05 for the log-log slope);
- ``differs``: neither.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

from aqmlab import registry
from aqmlab.registry import jain_index


@dataclass(frozen=True)
class XMetric:
    """One row of a cross-check: its key in each run's values, its label, and the absolute
    tolerance used beside the relative 10 %."""

    key: str
    label: str
    abs_tol: float = 0.0


def _registry(key: str, summary_key: str, note: str = "") -> XMetric:
    """A row whose label is the core registry's (``summary_key``), with an optional note."""
    m = next(m for m in registry.metrics("run") if m.key == summary_key)
    label = f"{m.title}" + (f" {note}" if note else "")
    return XMetric(key, label)


#: Every cross-check row, in display order. Keys are those of :class:`RunMetrics` values (and
#: of recorded references); labels come from the registry where the summary has the metric.
METRICS: list[XMetric] = [
    _registry("utilisation", "utilisation"),
    _registry("loss_rate", "loss_rate"),
    _registry("drops_bottleneck", "drops", "at the bottleneck (with link loss)"),
    XMetric("drops_access", "drops on access links (packets, whole run)"),
    _registry("marks", "marks"),
    _registry("jain", "jain_index"),
    _registry("queue_mean_pkts", "queue_pkts.mean"),
    _registry("delay_mean_ms", "delay_ms.mean"),
    _registry("goodput_mean_mbps", "goodput_mbps.mean"),
    XMetric("slope", "log goodput / log RTT slope", 0.05),
    XMetric("retransmits", "retransmitted packets"),
    XMetric("timeouts", "retransmission timeouts (ns-2: not right after an ECN cut)"),
]
REL_TOL = 0.10


@dataclass
class RunMetrics:
    """One run of one simulator."""

    values: dict[str, float]
    goodput_mbps: dict[int, float]  # per flow
    rtt_ms: dict[int, float]


def slope(goodput: list[float], rtt_ms: list[float]) -> float:
    """Least-squares slope of log(goodput) on log(RTT) over flows with goodput > 0."""
    pairs = zip(goodput, rtt_ms, strict=True)
    pts = [(math.log(r), math.log(g)) for g, r in pairs if g > 0 and r > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx == 0:
        return float("nan")
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


def flow_metrics(goodput: dict[int, float], rtt: dict[int, float]) -> dict[str, float]:
    ids = sorted(goodput)
    g = [goodput[i] for i in ids]
    return {
        "jain": jain_index(g),
        "goodput_mean_mbps": sum(g) / len(g) if g else float("nan"),
        "slope": slope(g, [rtt[i] for i in ids]),
    }


def spread(values: list[float]) -> dict[str, Any]:
    vals = [v for v in values if not math.isnan(v)]
    if not vals:
        return {
            "mean": float("nan"),
            "min": float("nan"),
            "max": float("nan"),
            "std": 0.0,
            "values": values,
        }
    return {
        "mean": statistics.fmean(vals),
        "min": min(vals),
        "max": max(vals),
        "std": statistics.stdev(vals) if len(vals) > 1 else 0.0,
        "values": values,
    }


def verdict(a: dict[str, Any], b: dict[str, Any], abs_tol: float = 0.0) -> str:
    if any(math.isnan(x) for x in (a["mean"], b["mean"])):
        return "n/a"
    if a["min"] <= b["max"] and b["min"] <= a["max"]:
        return "agree"
    tol = max(REL_TOL * max(abs(a["mean"]), abs(b["mean"])), abs_tol)
    if abs(a["mean"] - b["mean"]) <= tol:
        return "within 10%"
    return "differs"


def table(
    aqm: list[RunMetrics], ns: list[RunMetrics], *, side: str = "ns2"
) -> list[dict[str, Any]]:
    """One row per metric both simulators report: their spread over seeds, the ratio and the
    verdict. ``side`` names the other simulator's column (``ns2``, ``ns3``)."""
    rows = []
    for m in METRICS:
        key, label, abs_tol = m.key, m.label, m.abs_tol
        if not any(key in r.values for r in ns):
            continue  # a metric the other simulator does not measure
        a = spread([r.values.get(key, float("nan")) for r in aqm])
        b = spread([r.values.get(key, float("nan")) for r in ns])
        ratio = (
            a["mean"] / b["mean"]
            if b["mean"] not in (0.0,) and not math.isnan(b["mean"])
            else float("nan")
        )
        if a["mean"] == 0 and b["mean"] == 0:
            ratio = 1.0
        rows.append(
            {
                "metric": key,
                "label": label,
                "aqmlab": a,
                side: b,
                "ratio": ratio,
                "verdict": verdict(a, b, abs_tol),
            }
        )
    return rows


def _fmt(x: float) -> str:
    if math.isnan(x):
        return "-"
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    if abs(x) >= 0.1:
        return f"{x:.3f}"
    return f"{x:.4g}"


def cell(s: dict[str, Any]) -> str:
    """``mean [min-max]``."""
    if len([v for v in s["values"] if not math.isnan(v)]) <= 1:
        return _fmt(s["mean"])
    return f"{_fmt(s['mean'])} [{_fmt(s['min'])}-{_fmt(s['max'])}]"


def markdown(
    rows: list[dict[str, Any]],
    *,
    title: str,
    seeds: list[int],
    side: str = "ns2",
    simulator: str = "ns-2.35",
    short: str = "ns-2",
) -> str:
    """The rows as a Markdown page; ``side``, ``simulator`` and ``short`` name the other
    simulator's column, its full name (title) and its name in headers."""
    out = [
        f"# aqmlab beside {simulator}: {title}",
        "",
        f"Seeds {', '.join(map(str, seeds))}; each cell: mean [min-max] over seeds. Verdict: "
        "`agree` = the seed ranges overlap; `within 10%` = the means differ by ≤ 10 %; "
        "`differs` = neither.",
        "",
        f"| metric | aqmlab | {short} | aqmlab / {short} | verdict |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['label']} | {cell(r['aqmlab'])} | {cell(r[side])} "
            f"| {_fmt(r['ratio'])} | {r['verdict']} |"
        )
    return "\n".join(out) + "\n"
